package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"
	"github.com/vitrine/vitrine/service"
)

// OAuth configures resource-server mode (the MCP authorization spec): the
// HTTP server then accepts JWT access tokens issued by Issuer for Audience,
// besides Vitrine's own tokens.
type OAuth struct {
	Issuer   string
	Audience string
	// JWKSURL is where the issuer's keys are; empty discovers it from the
	// issuer's metadata (RFC 8414, then OpenID Connect discovery).
	JWKSURL string
	// UserClaim names the claim that identifies the Vitrine user: "email"
	// (matched against users' emails) or "sub" (matched against the
	// subject linked with vitrine user update --subject).
	UserClaim string
	// HTTPClient fetches metadata and keys; nil uses a client with a
	// timeout.
	HTTPClient *http.Client
}

// The scopes a token needs: write gives every tool, read the read-only
// ones. Scopes only narrow: the user's memberships still decide.
const (
	ScopeRead  = "vitrine:read"
	ScopeWrite = "vitrine:write"
)

// clockSkew tolerates issuer and server clocks that disagree a little.
const clockSkew = 30 * time.Second

// keyRefresh bounds how often an unknown key id may refetch the key set;
// keyTTL is how long fetched keys are trusted before they are fetched
// again, so that a key the issuer withdrew stops verifying.
const (
	keyRefresh = 30 * time.Second
	keyTTL     = 15 * time.Minute
)

// jwtVerifier checks JWT access tokens against the issuer's keys, which it
// caches and refetches when a token names a key it does not know.
type jwtVerifier struct {
	cfg OAuth

	mu      sync.Mutex
	keys    jwk.Set
	fetched time.Time // of the keys
	forced  time.Time // of the last fetch for an unknown key id
}

func newJWTVerifier(cfg OAuth) *jwtVerifier {
	if cfg.UserClaim == "" {
		cfg.UserClaim = "email"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	cfg.Issuer = strings.TrimSuffix(cfg.Issuer, "/")
	return &jwtVerifier{cfg: cfg}
}

// Check fetches the issuer's keys, so that a misconfiguration shows at
// start rather than at the first call.
func (v *jwtVerifier) Check(ctx context.Context) error {
	_, err := v.keySet(ctx, false)
	return err
}

// keySet returns the cached keys, fetching them when there are none, when
// they are older than keyTTL, or when unknownKid asks for it and no such
// fetch happened in the last keyRefresh.
func (v *jwtVerifier) keySet(ctx context.Context, unknownKid bool) (jwk.Set, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	stale := v.keys == nil || time.Since(v.fetched) > keyTTL
	if unknownKid && time.Since(v.forced) >= keyRefresh {
		v.forced, stale = time.Now(), true
	}
	if !stale {
		return v.keys, nil
	}
	url := v.cfg.JWKSURL
	if url == "" {
		var err error
		if url, err = v.discover(ctx); err != nil {
			return nil, err
		}
	}
	set, err := jwk.Fetch(ctx, url, jwk.WithHTTPClient(v.cfg.HTTPClient))
	if err != nil {
		if v.keys != nil && !unknownKid && time.Since(v.fetched) < 2*keyTTL {
			return v.keys, nil // the issuer is down for now: keep the keys a while
		}
		return nil, fmt.Errorf("fetch the issuer's keys from %s: %w", url, err)
	}
	v.keys, v.fetched = set, time.Now()
	return set, nil
}

// discover reads the issuer's jwks_uri from its metadata.
func (v *jwtVerifier) discover(ctx context.Context) (string, error) {
	for _, path := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.cfg.Issuer+path, nil)
		if err != nil {
			return "", err
		}
		res, err := v.cfg.HTTPClient.Do(req)
		if err != nil {
			return "", fmt.Errorf("discover the issuer's keys: %w", err)
		}
		var meta struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		err = json.NewDecoder(http.MaxBytesReader(nil, res.Body, 1<<20)).Decode(&meta)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || err != nil || meta.JWKSURI == "" {
			continue
		}
		if strings.TrimSuffix(meta.Issuer, "/") != v.cfg.Issuer {
			return "", fmt.Errorf("the issuer's metadata names another issuer, %q", meta.Issuer)
		}
		return meta.JWKSURI, nil
	}
	return "", fmt.Errorf("no metadata with a jwks_uri at %s: give --oauth-jwks-url", v.cfg.Issuer)
}

// errScope refuses a valid token that holds no Vitrine scope.
var errScope = errors.New("the token holds neither " + ScopeRead + " nor " + ScopeWrite)

// verify checks a JWT's signature, issuer, audience, expiry and not-before,
// and returns the identity it vouches for.
func (v *jwtVerifier) verify(ctx context.Context, raw string) (service.Identity, error) {
	keys, err := v.keySet(ctx, false)
	if err != nil {
		return service.Identity{}, err
	}
	opts := func(keys jwk.Set) []jwt.ParseOption {
		return []jwt.ParseOption{
			jwt.WithKeySet(keys, jws.WithInferAlgorithmFromKey(true)),
			jwt.WithValidate(true),
			jwt.WithIssuer(v.cfg.Issuer),
			jwt.WithAudience(v.cfg.Audience),
			jwt.WithAcceptableSkew(clockSkew),
		}
	}
	tok, err := jwt.Parse([]byte(raw), opts(keys)...)
	if err != nil && unknownKey(keys, raw) {
		// The issuer may have rotated its keys: refetch them, at most once
		// in keyRefresh, so that forged key ids cannot flood the issuer.
		if keys, ferr := v.keySet(ctx, true); ferr == nil {
			tok, err = jwt.Parse([]byte(raw), opts(keys)...)
		}
	}
	if err != nil {
		return service.Identity{}, &service.AuthError{Reason: "the access token is not valid: " + reason(err)}
	}
	var value string
	if err := tok.Get(v.cfg.UserClaim, &value); err != nil || value == "" {
		return service.Identity{}, &service.AuthError{Reason: "the access token has no " + v.cfg.UserClaim + " claim"}
	}
	scopes := tokenScopes(tok)
	id := service.Identity{Claim: v.cfg.UserClaim, Value: value, TokenID: "oauth"}
	if jti, ok := tok.JwtID(); ok {
		id.TokenID = "oauth:" + jti
	}
	if exp, ok := tok.Expiration(); ok {
		id.ExpiresAt = exp
	}
	switch {
	case scopes[ScopeWrite]:
	case scopes[ScopeRead]:
		id.ReadOnly = true
	default:
		return service.Identity{}, errScope
	}
	return id, nil
}

// unknownKey reports whether the token names a key id that the cached keys
// lack: the issuer may have rotated its keys since they were fetched.
func unknownKey(keys jwk.Set, raw string) bool {
	msg, err := jws.Parse([]byte(raw))
	if err != nil || len(msg.Signatures()) != 1 {
		return false
	}
	kid, ok := msg.Signatures()[0].ProtectedHeaders().KeyID()
	if !ok {
		return false
	}
	_, known := keys.LookupKeyID(kid)
	return !known
}

// reason words a verification failure without echoing the token.
func reason(err error) string {
	switch {
	case errors.Is(err, jwt.TokenExpiredError()):
		return "it expired"
	case errors.Is(err, jwt.TokenNotYetValidError()):
		return "it is not valid yet"
	case errors.Is(err, jwt.InvalidIssuerError()):
		return "another issuer signed it"
	case errors.Is(err, jwt.InvalidAudienceError()):
		return "it is meant for another audience"
	case errors.Is(err, jwt.ValidateError()):
		return "its claims do not hold"
	}
	return "its signature does not verify with the issuer's keys"
}

// tokenScopes reads "scope" (a space-separated string) or "scp" (a list).
func tokenScopes(tok jwt.Token) map[string]bool {
	out := map[string]bool{}
	var s string
	if tok.Get("scope", &s) == nil {
		for _, f := range strings.Fields(s) {
			out[f] = true
		}
	}
	var list []any
	if tok.Get("scp", &list) == nil {
		for _, v := range list {
			if str, ok := v.(string); ok {
				out[str] = true
			}
		}
	}
	return out
}

// resourceMetadata serves RFC 9728 protected-resource metadata: where this
// resource's tokens come from, and which scopes it knows.
func (s *Server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                 s.publicURL(r) + HTTPPath,
		"authorization_servers":    []string{s.jwt.cfg.Issuer},
		"scopes_supported":         []string{ScopeRead, ScopeWrite},
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "Vitrine",
	})
}

// publicURL is the base URL clients reach this server at.
func (s *Server) publicURL(r *http.Request) string {
	if s.opts.PublicURL != "" {
		return strings.TrimSuffix(s.opts.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// metadataURL is where a 401 sends clients to learn how to authenticate.
func (s *Server) metadataURL(r *http.Request) string {
	return s.publicURL(r) + "/.well-known/oauth-protected-resource"
}
