package httpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service/accounts"
)

// clockSkew tolerates issuer and server clocks that disagree a little.
const clockSkew = 30 * time.Second

// errScope refuses a valid token that holds no Vitrine scope.
var errScope = errors.New("the token holds neither " + ScopeRead + " nor " + ScopeWrite)

// verify checks an access token of the authorization server, a JWT by its
// signature or an opaque token by introspection, and returns the identity
// it vouches for. Both kinds go through the same checks of their claims.
func (rs *resourceServer) verify(ctx context.Context, raw string) (accounts.Identity, error) {
	meta, err := rs.metadata(ctx)
	if err != nil {
		return accounts.Identity{}, err
	}
	var c claims
	switch {
	case looksLikeJWT(raw):
		if c, err = rs.verifyJWT(ctx, raw); err != nil {
			return accounts.Identity{}, err
		}
	case rs.intro != nil:
		if c, err = rs.intro.introspect(ctx, raw); err != nil {
			return accounts.Identity{}, err
		}
	default:
		return accounts.Identity{}, invalid("it is neither a Vitrine token nor a JWT, and token introspection is not configured")
	}
	return rs.identity(c, meta.Issuer, time.Now())
}

func invalid(reason string) error {
	return &accounts.AuthError{Reason: "the access token is not valid: " + reason}
}

// claims are what Vitrine reads of a JWT's payload or an introspection
// answer (RFC 7662 uses the same names).
type claims struct {
	Active        *bool        `json:"active"` // introspection only
	Issuer        string       `json:"iss"`
	Subject       string       `json:"sub"`
	Audience      stringOrList `json:"aud"`
	Expiry        *numericDate `json:"exp"`
	NotBefore     *numericDate `json:"nbf"`
	IssuedAt      *numericDate `json:"iat"`
	ID            string       `json:"jti"`
	Scope         stringOrList `json:"scope"`
	Scp           stringOrList `json:"scp"` // Entra ID, Okta
	Email         string       `json:"email"`
	EmailVerified boolish      `json:"email_verified"`
	Name          string       `json:"name"`
}

// identity checks the claims every access token must satisfy, whatever
// its kind, and maps them to an identity.
func (rs *resourceServer) identity(c claims, issuer string, now time.Time) (accounts.Identity, error) {
	switch {
	case c.Issuer != issuer:
		return accounts.Identity{}, invalid("another issuer signed it")
	case !c.Audience.matches(rs.cfg.Audience):
		return accounts.Identity{}, invalid("it is meant for another audience than " + rs.cfg.Audience)
	case c.Expiry == nil:
		return accounts.Identity{}, invalid("it has no expiry (exp)")
	case now.After(c.Expiry.Time().Add(clockSkew)):
		return accounts.Identity{}, invalid("it expired")
	case c.NotBefore != nil && now.Add(clockSkew).Before(c.NotBefore.Time()):
		return accounts.Identity{}, invalid("it is not valid yet")
	}
	if max := rs.cfg.MaxTokenLifetime; max > 0 {
		from := now
		if c.IssuedAt != nil {
			from = c.IssuedAt.Time()
		}
		if c.Expiry.Time().Sub(from) > max+clockSkew {
			return accounts.Identity{}, invalid(fmt.Sprintf("it lives longer than this server accepts (%s)", max))
		}
	}
	id := accounts.Identity{Subject: c.Subject, Email: c.Email, EmailVerified: bool(c.EmailVerified), Name: c.Name,
		SubjectOnly: rs.cfg.UserClaim == "sub", ExpiresAt: c.Expiry.Time(), TokenID: "oauth"}
	if c.ID != "" {
		id.TokenID = "oauth:" + c.ID
	}
	scopes := append(c.Scope.list(), c.Scp.list()...)
	switch {
	case contains(scopes, ScopeWrite):
	case contains(scopes, ScopeRead):
		id.ReadOnly = true
	default:
		return accounts.Identity{}, errScope
	}
	id.Toolsets = vitrine.ToolsetsOfScopes(scopes)
	return id, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// stringOrList is a claim that may be one string or a list of them; a
// string of several words (the "scope" claim, Entra's "scp") is split.
type stringOrList []string

func (s *stringOrList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*s = strings.Fields(one)
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("neither a string nor a list of strings")
	}
	*s = many
	return nil
}

func (s stringOrList) list() []string { return s }

// matches compares audiences as RFC 9728 asks (simple string comparison),
// tolerating the trailing slash that some authorization servers add or
// drop.
func (s stringOrList) matches(aud string) bool {
	return oauthex.MatchesResource(s, aud)
}

// boolish reads true or "true": some providers (Amazon Cognito) send
// email_verified as a string.
type boolish bool

func (b *boolish) UnmarshalJSON(data []byte) error {
	*b = boolish(string(data) == "true" || string(data) == `"true"`)
	return nil
}

// numericDate is a JWT time: seconds since the epoch, maybe fractional.
type numericDate float64

func (d numericDate) Time() time.Time {
	return time.Unix(0, int64(float64(d)*float64(time.Second))).UTC()
}

// looksLikeJWT reports whether raw has the shape of a signed JWT: three
// base64url parts, the first a JSON header.
func looksLikeJWT(raw string) bool {
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return false
	}
	header, err := base64.RawURLEncoding.DecodeString(parts[0])
	return err == nil && json.Valid(header)
}

// signingAlgs are the algorithms an issuer may sign its tokens with: the
// asymmetric ones of JWA. "none" and the HMAC ones, whose key would be
// the public key set itself, never verify.
var signingAlgs = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA}

// verifyJWT checks a JWT's signature with the issuer's keys and returns
// its claims. An unknown key id refetches the keys (the issuer may have
// rotated them), at most once in keyRefresh.
func (rs *resourceServer) verifyJWT(ctx context.Context, raw string) (claims, error) {
	keys, err := rs.keys.get(ctx, false)
	if err != nil {
		return claims{}, err
	}
	bad := invalid("its signature does not verify with the issuer's keys")
	jws, err := jose.ParseSignedCompact(raw, signingAlgs)
	if err != nil || len(jws.Signatures) != 1 {
		return claims{}, bad
	}
	kid := jws.Signatures[0].Header.KeyID
	payload, ok := verifySignature(jws, keys)
	if !ok && kid != "" && len(keys.Key(kid)) == 0 {
		if keys, ferr := rs.keys.get(ctx, true); ferr == nil {
			payload, ok = verifySignature(jws, keys)
		}
	}
	if !ok {
		return claims{}, bad
	}
	var c claims
	if err := json.Unmarshal(payload, &c); err != nil {
		return claims{}, invalid("its claims are not well formed")
	}
	c.Active = nil // only introspection says that
	return c, nil
}

// verifySignature verifies a JWS with the keys of its key id, and returns
// its payload. The key id is required; a key meant for encryption, or
// that names another algorithm than the token's, is not used.
func verifySignature(jws *jose.JSONWebSignature, keys *jose.JSONWebKeySet) ([]byte, bool) {
	h := jws.Signatures[0].Header
	if h.KeyID == "" {
		return nil, false
	}
	for _, k := range keys.Key(h.KeyID) {
		if (k.Use != "" && k.Use != "sig") || (k.Algorithm != "" && k.Algorithm != h.Algorithm) {
			continue
		}
		if payload, err := jws.Verify(k); err == nil {
			return payload, true
		}
	}
	return nil, false
}

// keyRefresh bounds how often an unknown key id may refetch the key set;
// keyTTL is how long fetched keys are trusted before they are fetched
// again, so that a key the issuer withdrew stops verifying.
const (
	keyRefresh = 30 * time.Second
	keyTTL     = 15 * time.Minute
)

// keyCache holds the issuer's keys.
type keyCache struct {
	fetch func(ctx context.Context) (*jose.JSONWebKeySet, error)

	mu      sync.Mutex
	keys    *jose.JSONWebKeySet
	fetched time.Time // of the keys
	forced  time.Time // of the last fetch for an unknown key id
}

// get returns the cached keys, fetching them when there are none, when
// they are older than keyTTL, or when unknownKid asks for it and no such
// fetch happened in the last keyRefresh.
func (k *keyCache) get(ctx context.Context, unknownKid bool) (*jose.JSONWebKeySet, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	stale := k.keys == nil || time.Since(k.fetched) > keyTTL
	if unknownKid && time.Since(k.forced) >= keyRefresh {
		k.forced, stale = time.Now(), true
	}
	if !stale {
		return k.keys, nil
	}
	set, err := k.fetch(ctx)
	if err != nil {
		if k.keys != nil && !unknownKid && time.Since(k.fetched) < 2*keyTTL {
			return k.keys, nil // the issuer is down for now: keep the keys a while
		}
		return nil, err
	}
	k.keys, k.fetched = set, time.Now()
	return set, nil
}

// maxKeySetBytes bounds the issuer's key set document.
const maxKeySetBytes = 1 << 20

func (rs *resourceServer) fetchKeys(ctx context.Context) (*jose.JSONWebKeySet, error) {
	loc := rs.cfg.JWKSURL
	if loc == "" {
		meta, err := rs.metadata(ctx)
		if err != nil {
			return nil, err
		}
		if loc = meta.JWKSURI; loc == "" {
			if rs.intro != nil {
				return &jose.JSONWebKeySet{}, nil // opaque tokens only
			}
			return nil, fmt.Errorf("the issuer's metadata has no jwks_uri: give --oauth-jwks-url")
		}
	}
	set, err := rs.readKeySet(ctx, loc)
	if err != nil {
		return nil, fmt.Errorf("fetch the issuer's keys from %s: %w", loc, err)
	}
	return set, nil
}

// readKeySet fetches a JWK Set (RFC 7517). A key this server cannot read
// (a key type or curve it does not know) is left out, not a failure: the
// issuer's other keys still verify.
func (rs *resourceServer) readKeySet(ctx context.Context, loc string) (*jose.JSONWebKeySet, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := rs.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("it answered %s", res.Status)
	}
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, res.Body, maxKeySetBytes)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a JWK Set: %w", err)
	}
	set := &jose.JSONWebKeySet{}
	for _, raw := range doc.Keys {
		var k jose.JSONWebKey
		if k.UnmarshalJSON(raw) == nil && k.Valid() {
			set.Keys = append(set.Keys, k)
		}
	}
	return set, nil
}

// maxIntrospectionCache bounds Introspection.CacheTTL: past it, a token
// revoked at the issuer would work too long.
const maxIntrospectionCache = 5 * time.Minute

// maxIntrospected bounds the answers kept; past it, expired ones are
// forgotten, then all.
const maxIntrospected = 10000

// maxRefusedCache bounds how long a "not active" answer is reused (within
// Introspection.CacheTTL): a bogus token sent again and again asks the
// issuer once in that time, not every time. A token is issued active, so
// a refusal reused does not refuse a good token; only a token the issuer
// had not yet recorded when asked would wait that long.
const maxRefusedCache = 10 * time.Second

// introspector asks the issuer about opaque tokens (RFC 7662) and keeps
// its answers for a short, bounded time: active ones for CacheTTL, refusals
// for at most maxRefusedCache, each in a table of its own so that a flood
// of bogus tokens never pushes out the good ones.
type introspector struct {
	rs *resourceServer

	mu      sync.Mutex
	cache   map[[32]byte]introspected // by the token's SHA-256: no secret kept
	refused map[[32]byte]time.Time    // until when a token is known not active
}

type introspected struct {
	claims claims
	until  time.Time
}

func (in *introspector) endpoint(ctx context.Context) (string, error) {
	if u := in.rs.cfg.Introspection.URL; u != "" {
		return u, nil
	}
	meta, err := in.rs.metadata(ctx)
	if err != nil {
		return "", err
	}
	if meta.IntrospectionEndpoint == "" {
		return "", errors.New("the issuer's metadata has no introspection_endpoint: give --oauth-introspection-url")
	}
	return meta.IntrospectionEndpoint, nil
}

func (in *introspector) introspect(ctx context.Context, raw string) (claims, error) {
	key := sha256.Sum256([]byte(raw))
	now := time.Now()
	in.mu.Lock()
	hit, ok := in.cache[key]
	refusedUntil, refused := in.refused[key]
	in.mu.Unlock()
	if ok && now.Before(hit.until) {
		return hit.claims, nil
	}
	if refused && now.Before(refusedUntil) {
		return claims{}, errInactive
	}
	endpoint, err := in.endpoint(ctx)
	if err != nil {
		return claims{}, err
	}
	cfg := in.rs.cfg.Introspection
	form := url.Values{"token": {raw}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return claims{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(cfg.ClientID), url.QueryEscape(cfg.ClientSecret)) // RFC 6749 §2.3.1
	res, err := in.rs.client.Do(req)
	if err != nil {
		return claims{}, fmt.Errorf("introspect a token: %w", err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(http.MaxBytesReader(nil, res.Body, 1<<20)); err != nil {
		return claims{}, fmt.Errorf("introspect a token: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return claims{}, fmt.Errorf("introspect a token: the endpoint answered %s (check --oauth-client-id and its secret)", res.Status)
	}
	var c claims
	if err := json.Unmarshal(buf.Bytes(), &c); err != nil {
		return claims{}, fmt.Errorf("introspect a token: the answer is not JSON: %w", err)
	}
	if c.Active == nil || !*c.Active {
		if ttl := min(cfg.CacheTTL, maxRefusedCache); ttl > 0 {
			in.mu.Lock()
			forget(in.refused, maxIntrospected, func(until time.Time) bool { return !now.Before(until) })
			in.refused[key] = now.Add(ttl)
			in.mu.Unlock()
		}
		return claims{}, errInactive
	}
	if c.Issuer == "" {
		// Optional in an answer (RFC 7662): it comes from the issuer itself.
		meta, _ := in.rs.metadata(ctx)
		c.Issuer = meta.Issuer
	}
	if ttl := cfg.CacheTTL; ttl > 0 && c.Expiry != nil {
		until := now.Add(ttl)
		if exp := c.Expiry.Time(); exp.Before(until) {
			until = exp
		}
		in.mu.Lock()
		forget(in.cache, maxIntrospected, func(v introspected) bool { return !now.Before(v.until) })
		in.cache[key] = introspected{claims: c, until: until}
		in.mu.Unlock()
	}
	return c, nil
}

// errInactive refuses a token its issuer says is not active.
var errInactive = invalid("the authorization server says it is not active (revoked, expired or unknown)")

// forget makes room in a cache of at most size entries: the expired ones
// go, then, if it is still full, all.
func forget[V any](m map[[32]byte]V, size int, expired func(V) bool) {
	if len(m) < size {
		return
	}
	for k, v := range m {
		if expired(v) {
			delete(m, k)
		}
	}
	if len(m) >= size {
		clear(m)
	}
}
