package mcpserver_test

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
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
)

// issuer is an OAuth authorization server of the test's own: its metadata,
// its keys (which it may rotate), and tokens it signs.
type issuer struct {
	t   *testing.T
	srv *httptest.Server
	mu  sync.Mutex
	key jwk.Key // the signing key, published in the JWKS
}

func newIssuer(t *testing.T) *issuer {
	is := &issuer{t: t, key: rsaKey(t, "key-1")}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		is.mu.Lock()
		pub, err := is.key.PublicKey()
		is.mu.Unlock()
		if err != nil {
			t.Error(err)
		}
		set := jwk.NewSet()
		set.AddKey(pub)
		json.NewEncoder(w).Encode(set)
	})
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

func rsaKey(t *testing.T, kid string) jwk.Key {
	raw, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	k, err := jwk.Import(raw)
	if err != nil {
		t.Fatal(err)
	}
	k.Set(jwk.KeyIDKey, kid)
	k.Set(jwk.AlgorithmKey, jwa.RS256())
	return k
}

// token signs claims with key (the issuer's current key when nil).
func (is *issuer) token(claims map[string]any, key jwk.Key) string {
	is.t.Helper()
	if key == nil {
		is.mu.Lock()
		key = is.key
		is.mu.Unlock()
	}
	tok := jwt.New()
	base := map[string]any{"iss": is.srv.URL, "aud": "vitrine-test", "exp": time.Now().Add(time.Hour).Unix(),
		"iat": time.Now().Unix(), "jti": "jti-1", "scope": "openid vitrine:write"}
	for k, v := range claims {
		base[k] = v
	}
	for k, v := range base {
		if v == nil {
			continue // a nil claim is left out
		}
		if err := tok.Set(k, v); err != nil {
			is.t.Fatal(err)
		}
	}
	alg, _ := key.Algorithm()
	signed, err := jwt.Sign(tok, jwt.WithKey(alg, key))
	if err != nil {
		is.t.Fatal(err)
	}
	return string(signed)
}

func oauthWorld(t *testing.T) (*world, *issuer, *httptest.Server) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	is := newIssuer(t)
	srv, err := mcpserver.New(w.svc, mcpserver.Options{Logger: slog.New(slog.NewTextHandler(w.log, nil)),
		OAuth: &mcpserver.OAuth{Issuer: is.srv.URL, Audience: "vitrine-test"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.CheckOAuth(ctx); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.HTTPHandler())
	t.Cleanup(hs.Close)
	return w, is, hs
}

func post(t *testing.T, url, token string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", url+mcpserver.HTTPPath, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
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
	w, is, hs := oauthWorld(t)
	connect := func(token string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: hs.URL + mcpserver.HTTPPath, HTTPClient: bearerClient(token), MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}

	// A valid token acts for the user with its email, within their memberships.
	carla := connect(is.token(map[string]any{"email": member}, nil))
	who := ok[struct {
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
	fails(t, carla, "delete_product", map[string]any{"tenant_id": w.tenants["technova"], "id": w.productID("technova", "NB-DELL-5440")}, denied)

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
	if _, err := w.svc.Operator().UpdateUser(ctx, viewer, service.UserChanges{Subject: &sub}); err != nil {
		t.Fatal(err)
	}
	srv, _ := mcpserver.New(w.svc, mcpserver.Options{OAuth: &mcpserver.OAuth{Issuer: is.srv.URL, Audience: "vitrine-test", UserClaim: "sub"}})
	bySub := httptest.NewServer(srv.HTTPHandler())
	defer bySub.Close()
	if res := post(t, bySub.URL, is.token(map[string]any{"sub": sub}, nil)); res.StatusCode != 200 {
		t.Errorf("a linked subject: %d", res.StatusCode)
	}
	if res := post(t, bySub.URL, is.token(map[string]any{"sub": "someone-else"}, nil)); res.StatusCode != 401 {
		t.Errorf("an unlinked subject: %d", res.StatusCode)
	}

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
	ec, _ := jwk.Import(ecRaw)
	ec.Set(jwk.KeyIDKey, "ec-1")
	ec.Set(jwk.AlgorithmKey, jwa.ES256())
	good := is.token(map[string]any{"email": member}, nil)
	parts := strings.Split(good, ".")
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + "."
	for name, token := range map[string]string{
		"wrong issuer":   is.token(map[string]any{"email": member, "iss": "https://evil.example"}, nil),
		"wrong audience": is.token(map[string]any{"email": member, "aud": "another-api"}, nil),
		"expired":        is.token(map[string]any{"email": member, "exp": time.Now().Add(-time.Hour).Unix()}, nil),
		"not yet valid":  is.token(map[string]any{"email": member, "nbf": time.Now().Add(time.Hour).Unix()}, nil),
		"unknown key":    is.token(map[string]any{"email": member}, stranger),
		"other curve":    is.token(map[string]any{"email": member}, ec),
		"bad signature":  is.token(map[string]any{"email": member}, other),
		"tampered":       parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"email":"ana@technova.example","iss":"`+is.srv.URL+`","aud":"vitrine-test","exp":9999999999,"scope":"vitrine:write"}`)) + "." + parts[2],
		"alg none":       none,
		"unknown user":   is.token(map[string]any{"email": "nobody@x.example"}, nil),
		"no email":       is.token(map[string]any{"email": nil}, nil),
		"not a jwt":      "garbage",
	} {
		res := post(t, hs.URL, token)
		challenge := res.Header.Get("WWW-Authenticate")
		if res.StatusCode != 401 || !strings.Contains(challenge, `error="invalid_token"`) ||
			!strings.Contains(challenge, `resource_metadata="`+hs.URL+`/.well-known/oauth-protected-resource"`) {
			t.Errorf("%s: %d %q", name, res.StatusCode, challenge)
		}
	}
	// A valid token without a Vitrine scope is forbidden, saying which scopes.
	res := post(t, hs.URL, is.token(map[string]any{"email": member, "scope": "openid"}, nil))
	if res.StatusCode != 403 || !strings.Contains(res.Header.Get("WWW-Authenticate"), `error="insufficient_scope", scope="vitrine:read vitrine:write"`) {
		t.Errorf("no scope: %d %q", res.StatusCode, res.Header.Get("WWW-Authenticate"))
	}
	// Without a token, the challenge points at the metadata too.
	req, _ := http.NewRequest("POST", hs.URL+mcpserver.HTTPPath, strings.NewReader("{}"))
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
		if meta.Resource != hs.URL+"/mcp" || !slices.Equal(meta.AuthorizationServers, []string{is.srv.URL}) || len(meta.Scopes) != 2 {
			t.Errorf("%s: %+v", path, meta)
		}
	}

}
