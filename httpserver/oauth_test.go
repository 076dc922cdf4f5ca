package httpserver_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service/accounts"
)

// issuer is an OAuth authorization server of the test's own: its metadata,
// its keys (which it may rotate), and tokens it signs.
type issuer struct {
	t   *testing.T
	srv *httptest.Server
	mu  sync.Mutex
	key *jose.JSONWebKey // the signing key, published in the JWKS
	// iss is the issuer as its metadata and tokens name it (srv.URL, or
	// with a trailing slash as Auth0's); aud is its tokens' default
	// audience.
	iss, aud string
	// introspected counts the tokens introspected; active answers those
	// that are, with their claims.
	introspected atomic.Int64
	active       map[string]map[string]any
	// foreign are keys the JWKS lists before the signing key, of kinds
	// a resource server may not know.
	foreign []map[string]any
}

func newIssuer(t *testing.T) *issuer {
	is := &issuer{t: t, key: rsaKey(t, "key-1")}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": is.iss, "jwks_uri": is.srv.URL + "/jwks", "introspection_endpoint": is.srv.URL + "/introspect"})
	})
	mux.HandleFunc("POST /introspect", func(w http.ResponseWriter, r *http.Request) {
		is.introspected.Add(1)
		is.mu.Lock()
		claims, ok := is.active[r.FormValue("token")]
		is.mu.Unlock()
		if !ok {
			claims = map[string]any{"active": false}
		}
		json.NewEncoder(w).Encode(claims)
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		is.mu.Lock()
		keys := []any{}
		for _, k := range is.foreign {
			keys = append(keys, k)
		}
		keys = append(keys, is.key.Public())
		is.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"keys": keys})
	})
	is.srv = httptest.NewServer(mux)
	is.iss = is.srv.URL
	t.Cleanup(is.srv.Close)
	return is
}

func rsaKey(t *testing.T, kid string) *jose.JSONWebKey {
	raw, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return &jose.JSONWebKey{Key: raw, KeyID: kid, Algorithm: string(jose.RS256)}
}

// token signs claims with key (the issuer's current key when nil).
func (is *issuer) token(claims map[string]any, key *jose.JSONWebKey) string {
	is.t.Helper()
	if key == nil {
		is.mu.Lock()
		key = is.key
		is.mu.Unlock()
	}
	base := map[string]any{"iss": is.iss, "aud": is.aud, "exp": time.Now().Add(time.Hour).Unix(),
		"iat": time.Now().Unix(), "jti": "jti-1", "scope": "openid vitrine:write", "email_verified": true}
	for k, v := range claims {
		base[k] = v
	}
	for k, v := range base {
		if v == nil {
			delete(base, k) // a nil claim is left out
		}
	}
	payload, err := json.Marshal(base)
	if err != nil {
		is.t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(key.Algorithm), Key: key},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		is.t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		is.t.Fatal(err)
	}
	signed, err := jws.CompactSerialize()
	if err != nil {
		is.t.Fatal(err)
	}
	return signed
}

// oauthWorld serves the demo world with OAuth on, as `vitrine serve`
// serves it (httpserver.New), at a URL known before it starts: the resource
// URL the tokens are issued for.
func oauthWorld(t *testing.T, cfg func(*httpserver.OAuth)) (*world, *issuer, *httptest.Server) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	is := newIssuer(t)
	hs := oauthServer(t, w, is, cfg)
	return w, is, hs
}

func oauthServer(t *testing.T, w *world, is *issuer, cfg func(*httpserver.OAuth)) *httptest.Server {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	public := "http://" + hs.Listener.Addr().String()
	o := &httpserver.OAuth{Issuer: is.srv.URL}
	if cfg != nil {
		cfg(o)
	}
	srv, err := mcpserver.New(w.svc, mcpserver.Options{Logger: slog.New(slog.NewTextHandler(w.log, nil)), PublicURL: public})
	if err != nil {
		t.Fatal(err)
	}
	web, err := httpserver.New(srv, w.svc, httpserver.Options{Logger: slog.New(slog.NewTextHandler(w.log, nil)), OAuth: o, PublicURL: public})
	if err != nil {
		t.Fatal(err)
	}
	if err := web.CheckOAuth(ctx); err != nil {
		t.Fatal(err)
	}
	hs.Config.Handler = web.Handler()
	hs.Start()
	t.Cleanup(hs.Close)
	is.aud = hs.URL + httpserver.MCPPath
	return hs
}

func post(t *testing.T, url, token string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", url+httpserver.MCPPath, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

func TestOAuthResourceServer(t *testing.T) {
	w, is, hs := oauthWorld(t, nil)
	connect := func(token string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: hs.URL + httpserver.MCPPath, HTTPClient: testkit.BearerClient(token), MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}

	// A valid token acts for the user with its email, within their memberships.
	carla := connect(is.token(map[string]any{"email": member}, nil))
	who := testkit.OK[struct {
		User  struct{ Email string }
		Token struct {
			ID       string
			ReadOnly bool `json:"read_only"`
		}
		Tenants []struct{ Slug, Role string }
	}](t, carla, "whoami", nil)
	if who.User.Email != member || who.Token.ID != "oauth:jti-1" || who.Token.ReadOnly || len(who.Tenants) != 2 {
		t.Errorf("whoami with a JWT: %+v", who)
	}
	testkit.Fails(t, carla, "delete_product", map[string]any{"tenant_id": w.tenants["technova"], "id": w.productID("technova", "NB-DELL-5440")}, denied)

	// A read scope narrows to the read-only tools.
	reader := connect(is.token(map[string]any{"email": member, "scope": "vitrine:read"}, nil))
	tools, err := reader.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if !tool.Annotations.ReadOnlyHint {
			t.Errorf("a read scope lists %s", tool.Name)
		}
	}

	// The subject, once linked to a user, identifies them too.
	sub := "auth0|12345"
	if _, err := w.svc.Operator().UpdateUser(ctx, viewer, accounts.UserChanges{Subject: &sub}); err != nil {
		t.Fatal(err)
	}
	bySub := oauthServer(t, w, is, func(o *httpserver.OAuth) { o.UserClaim = "sub" })
	if res := post(t, bySub.URL, is.token(map[string]any{"sub": sub}, nil)); res.StatusCode != 200 {
		t.Errorf("a linked subject: %d", res.StatusCode)
	}
	for name, claims := range map[string]map[string]any{
		"an unlinked subject":           {"sub": "someone-else"},
		"a verified email, by sub only": {"sub": "someone-else", "email": member},
	} {
		if res := post(t, bySub.URL, is.token(claims, nil)); res.StatusCode != 401 {
			t.Errorf("%s: %d", name, res.StatusCode)
		}
	}
	is.aud = hs.URL + httpserver.MCPPath

	// The issuer rotates its key: tokens of the new key are accepted at once.
	is.mu.Lock()
	is.key = rsaKey(t, "key-2")
	is.mu.Unlock()
	if res := post(t, hs.URL, is.token(map[string]any{"email": member}, nil)); res.StatusCode != 200 {
		t.Errorf("after key rotation: %d", res.StatusCode)
	}

	// Vitrine's own tokens still work.
	if res := post(t, hs.URL, w.tokens[owner]); res.StatusCode != 200 {
		t.Errorf("a Vitrine token with OAuth on: %d", res.StatusCode)
	}

	// Every bad token is refused with a challenge that points at the metadata.
	other := rsaKey(t, "key-1") // same kid, other key: a bad signature
	stranger := rsaKey(t, "key-9")
	ecRaw, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ec := &jose.JSONWebKey{Key: ecRaw, KeyID: "ec-1", Algorithm: string(jose.ES256)}
	good := is.token(map[string]any{"email": member}, nil)
	parts := strings.Split(good, ".")
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + "."
	for name, token := range map[string]string{
		"wrong issuer":   is.token(map[string]any{"email": member, "iss": "https://evil.example"}, nil),
		"wrong audience": is.token(map[string]any{"email": member, "aud": "https://other.example/mcp"}, nil),
		"no expiry":      is.token(map[string]any{"email": member, "exp": nil}, nil),
		"expired":        is.token(map[string]any{"email": member, "exp": time.Now().Add(-time.Hour).Unix()}, nil),
		"not yet valid":  is.token(map[string]any{"email": member, "nbf": time.Now().Add(time.Hour).Unix()}, nil),
		"unknown key":    is.token(map[string]any{"email": member}, stranger),
		"other curve":    is.token(map[string]any{"email": member}, ec),
		"bad signature":  is.token(map[string]any{"email": member}, other),
		"tampered":       parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"email":"ana@technova.example","email_verified":true,"iss":"`+is.iss+`","aud":"`+is.aud+`","exp":9999999999,"scope":"vitrine:write"}`)) + "." + parts[2],
		"alg none":       none,
		"unknown user":   is.token(map[string]any{"email": "nobody@x.example"}, nil),
		"no email":       is.token(map[string]any{"email": nil}, nil),
		"not a jwt":      "garbage",
	} {
		res := post(t, hs.URL, token)
		challenge := res.Header.Get("WWW-Authenticate")
		if res.StatusCode != 401 || !strings.Contains(challenge, `error="invalid_token"`) ||
			!strings.Contains(challenge, `resource_metadata="`+hs.URL+`/.well-known/oauth-protected-resource/mcp"`) {
			t.Errorf("%s: %d %q", name, res.StatusCode, challenge)
		}
	}
	// A valid token without a Vitrine scope is forbidden, saying which scopes.
	res := post(t, hs.URL, is.token(map[string]any{"email": member, "scope": "openid"}, nil))
	if ch := res.Header.Get("WWW-Authenticate"); res.StatusCode != 403 || !strings.Contains(ch, `error="insufficient_scope"`) ||
		!strings.Contains(ch, `scope="vitrine:read vitrine:write"`) {
		t.Errorf("no scope: %d %q", res.StatusCode, res.Header.Get("WWW-Authenticate"))
	}
	// Without a token, the challenge points at the metadata too.
	req, _ := http.NewRequest("POST", hs.URL+httpserver.MCPPath, strings.NewReader("{}"))
	res, _ = http.DefaultClient.Do(req)
	if res.StatusCode != 401 || !strings.Contains(res.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("no token: %d %q", res.StatusCode, res.Header.Get("WWW-Authenticate"))
	}

	// RFC 9728 metadata.
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		res, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			Scopes               []string `json:"scopes_supported"`
		}
		json.NewDecoder(res.Body).Decode(&meta)
		res.Body.Close()
		if meta.Resource != hs.URL+"/mcp" || !slices.Equal(meta.AuthorizationServers, []string{is.srv.URL}) || !slices.Equal(meta.Scopes, vitrine.AllScopes()) {
			t.Errorf("%s: %+v", path, meta)
		}
	}

}

// An issuer's key set may list keys of a kind Vitrine cannot read (a
// post-quantum one, a curve it does not know): they are left out, and the
// issuer's other keys still verify its tokens.
func TestOAuthKeySetWithForeignKeys(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	is := newIssuer(t)
	is.foreign = []map[string]any{
		{"kty": "AKP", "alg": "ML-DSA-44", "kid": "pq-1", "pub": base64.RawURLEncoding.EncodeToString(make([]byte, 1312))},
		{"kty": "EC", "crv": "secp256k1", "kid": "k1-1", "x": "AA", "y": "AA"},
	}
	hs := oauthServer(t, w, is, nil)
	if status, ch := challenge(t, hs, is.token(map[string]any{"email": owner}, nil)); status != 200 {
		t.Errorf("a token of the issuer's RSA key beside keys of other kinds: %d %q", status, ch)
	}
}

// challenge posts an initialize with token and returns the status and the
// WWW-Authenticate header.
func challenge(t *testing.T, hs *httptest.Server, token string) (int, string) {
	t.Helper()
	res := post(t, hs.URL, token)
	return res.StatusCode, res.Header.Get("WWW-Authenticate")
}

// The holes a review found in front of real identity providers, each
// closed: unverified emails, tokens without expiry, Entra's scp string.
func TestOAuthClaims(t *testing.T) {
	w, is, hs := oauthWorld(t, func(o *httpserver.OAuth) { o.MaxTokenLifetime = 2 * time.Hour })
	for name, c := range map[string]struct {
		claims map[string]any
		status int
		says   string
	}{
		"unverified email":        {map[string]any{"email": owner, "email_verified": false}, 401, "email_verified is not true"},
		"no email_verified":       {map[string]any{"email": owner, "email_verified": nil}, 401, "email_verified is not true"},
		"email_verified a string": {map[string]any{"email": owner, "email_verified": "true"}, 200, ""},
		"no exp":                  {map[string]any{"email": owner, "exp": nil}, 401, "no expiry"},
		"too long a life":         {map[string]any{"email": owner, "exp": time.Now().Add(30 * 24 * time.Hour).Unix()}, 401, "lives longer"},
		"scp as a string":         {map[string]any{"email": owner, "scope": nil, "scp": "openid vitrine:write"}, 200, ""},
		"scp as a list":           {map[string]any{"email": owner, "scope": nil, "scp": []string{"vitrine:read"}}, 200, ""},
		"scope as a list":         {map[string]any{"email": owner, "scope": []string{"vitrine:write"}}, 200, ""},
		"neither":                 {map[string]any{"email": owner, "scope": nil}, 403, "insufficient_scope"},
		"audience with a slash":   {map[string]any{"email": owner, "aud": hs.URL + "/mcp/"}, 200, ""},
		"audience of the origin":  {map[string]any{"email": owner, "aud": hs.URL}, 401, "another audience"},
	} {
		status, ch := challenge(t, hs, is.token(c.claims, nil))
		if status != c.status || !strings.Contains(ch, c.says) {
			t.Errorf("%s: %d %q", name, status, ch)
		}
	}

	// An Entra-style scp string with only the read scope narrows to reads.
	cs := connectTo(t, hs.URL, is.token(map[string]any{"email": member, "scope": nil, "scp": "vitrine:read"}, nil))
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if !tool.Annotations.ReadOnlyHint {
			t.Errorf("scp vitrine:read lists %s", tool.Name)
		}
	}
	testkit.OK[any](t, cs, "list_products", map[string]any{"tenant_id": w.tenants["technova"]})
}

// An issuer whose metadata names it with a trailing slash (Auth0's) is
// taken exactly so, configured with or without the slash; its tokens are
// compared with that exact issuer, and the metadata advertises it.
func TestOAuthIssuerWithTrailingSlash(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	is := newIssuer(t)
	is.iss = is.srv.URL + "/"
	for _, configured := range []string{is.srv.URL + "/", is.srv.URL} {
		hs := oauthServer(t, w, is, func(o *httpserver.OAuth) { o.Issuer = configured })
		if status, ch := challenge(t, hs, is.token(map[string]any{"email": owner}, nil)); status != 200 {
			t.Errorf("configured %s: a token of %s: %d %q", configured, is.iss, status, ch)
		}
		if status, _ := challenge(t, hs, is.token(map[string]any{"email": owner, "iss": is.srv.URL}, nil)); status != 401 {
			t.Errorf("configured %s: a token of the issuer without its slash: %d", configured, status)
		}
		var meta struct {
			AuthorizationServers []string `json:"authorization_servers"`
		}
		getJSONDoc(t, hs.URL+"/.well-known/oauth-protected-resource/mcp", &meta)
		if !slices.Equal(meta.AuthorizationServers, []string{is.iss}) {
			t.Errorf("configured %s: advertised %v", configured, meta.AuthorizationServers)
		}
	}
	// An issuer whose metadata names another one is refused at start.
	web, err := httpserver.New(w.server(mcpserver.Options{}), w.svc, httpserver.Options{OAuth: &httpserver.OAuth{Issuer: is.srv.URL + "/tenant"}, PublicURL: "http://127.0.0.1:1"})
	if err == nil {
		err = web.CheckOAuth(ctx)
	}
	if err == nil {
		t.Error("an issuer without metadata was accepted")
	}
}

// A configuration that cannot work is refused at start, saying what to set.
func TestOAuthConfigurationRefusedAtStart(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	for name, c := range map[string]struct {
		public, audience, says string
	}{
		"no public URL":            {"", "", "--public-url"},
		"plain http beyond":        {"http://mcp.example.com", "", "--public-url https://mcp.example.com"},
		"another URL audience":     {"https://mcp.example.com", "https://api.example.com", "leave --oauth-audience unset"},
		"audience of the base URL": {"https://mcp.example.com", "https://mcp.example.com", "leave --oauth-audience unset"},
	} {
		_, err := httpserver.New(w.server(mcpserver.Options{}), w.svc, httpserver.Options{PublicURL: c.public,
			OAuth: &httpserver.OAuth{Issuer: "https://id.example.com", Audience: c.audience}})
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, c := range map[string]struct{ public, audience string }{
		"https":                 {"https://mcp.example.com", ""},
		"the resource":          {"https://mcp.example.com/", "https://mcp.example.com/mcp"},
		"an identifier (Entra)": {"https://mcp.example.com", "api://4b1f-vitrine"},
		"loopback http":         {"http://127.0.0.1:8080", ""},
	} {
		if _, err := httpserver.New(w.server(mcpserver.Options{}), w.svc, httpserver.Options{PublicURL: c.public,
			OAuth: &httpserver.OAuth{Issuer: "https://id.example.com", Audience: c.audience}}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Users are found by a linked subject first, then by verified email; with
// provisioning on, a verified email of a listed domain becomes a user with
// no membership, and other domains are still refused.
func TestOAuthUserMapping(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	is := newIssuer(t)
	hs := oauthServer(t, w, is, func(o *httpserver.OAuth) {
		o.Provision.Domains = []string{"newco.example"}
	})
	sub := "okta|00u1"
	if _, err := w.svc.Operator().UpdateUser(ctx, viewer, accounts.UserChanges{Subject: &sub}); err != nil {
		t.Fatal(err)
	}
	type who struct {
		User    struct{ Email string }
		Tenants []struct{ Slug string }
	}
	// The linked subject wins over the token's email.
	got := testkit.OK[who](t, connectTo(t, hs.URL, is.token(map[string]any{"sub": sub, "email": owner}, nil)), "whoami", nil)
	if got.User.Email != viewer {
		t.Errorf("a linked subject with another email acted as %s", got.User.Email)
	}
	got = testkit.OK[who](t, connectTo(t, hs.URL, is.token(map[string]any{"sub": "new-1", "email": "Rita@NewCo.example", "name": "Rita"}, nil)), "whoami", nil)
	if !strings.EqualFold(got.User.Email, "rita@newco.example") || len(got.Tenants) != 0 {
		t.Errorf("a provisioned user: %+v", got)
	}
	if u, err := w.svc.Operator().User(ctx, "email", "rita@newco.example"); err != nil || u.Name != "Rita" {
		t.Errorf("the provisioned user: %+v %v", u, err)
	}
	for name, claims := range map[string]map[string]any{
		"another domain":                   {"email": "eve@elsewhere.example"},
		"a provisioned domain, unverified": {"email": "mallory@newco.example", "email_verified": false},
	} {
		if status, _ := challenge(t, hs, is.token(claims, nil)); status != 401 {
			t.Errorf("%s: %d", name, status)
		}
	}
	if _, err := w.svc.Operator().User(ctx, "email", "mallory@newco.example"); err == nil {
		t.Error("an unverified email was provisioned")
	}
}

// Results depend on the caller: none is marked shareable between users.
func TestResultsAreNotSharedBetweenUsers(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	srv, err := mcpserver.New(w.svc, mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(serveHTTP(t, w.svc, srv, httpserver.Options{}))
	t.Cleanup(hs.Close)
	tools, err := connectTo(t, hs.URL, w.tokens[owner]).ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tools.CacheScope != "private" {
		t.Errorf("tools/list cacheScope %q", tools.CacheScope)
	}
}

func connectTo(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url + httpserver.MCPPath, HTTPClient: testkit.BearerClient(token), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func getJSONDoc(t *testing.T, url string, v any) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %s", url, res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// Growth: a token the issuer says is not active is not asked about again
// for a while (at most 10 s, within the cache's TTL), so that a client
// sending a bogus token again and again costs the issuer one request, not
// one each; a good token is cached as before, apart from the refusals.
func TestIntrospectionCachesRefusals(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	is := newIssuer(t)
	is.active = map[string]map[string]any{"good-opaque-token": {"active": true, "iss": is.iss, "sub": "ana-sub", "email": owner,
		"email_verified": true, "scope": "vitrine:write", "exp": time.Now().Add(time.Hour).Unix()}}
	hs := oauthServer(t, w, is, func(o *httpserver.OAuth) {
		o.Introspection = httpserver.Introspection{ClientID: "vitrine", ClientSecret: "s", CacheTTL: 30 * time.Second}
	})
	is.mu.Lock()
	is.active["good-opaque-token"]["aud"] = is.aud
	is.mu.Unlock()
	for range 5 {
		if res := post(t, hs.URL, "bogus-opaque-token"); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a bogus token: %d", res.StatusCode)
		}
	}
	if n := is.introspected.Load(); n != 1 {
		t.Errorf("a bogus token sent 5 times was introspected %d times, want 1", n)
	}
	for range 3 {
		if res := post(t, hs.URL, "good-opaque-token"); res.StatusCode != http.StatusOK {
			t.Fatalf("a good token: %d", res.StatusCode)
		}
	}
	if n := is.introspected.Load(); n != 2 {
		t.Errorf("after a good token 3 times: %d introspections, want 2", n)
	}
	if res := post(t, hs.URL, "another-bogus-token"); res.StatusCode != http.StatusUnauthorized || is.introspected.Load() != 3 {
		t.Errorf("another bogus token: %d, %d introspections", res.StatusCode, is.introspected.Load())
	}
}
