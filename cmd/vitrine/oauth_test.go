package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// discoveryIssuer serves an authorization server's metadata and keys: all
// that `vitrine serve --oauth-issuer` reads at start. (The whole OAuth
// flow, with a real authorization server, is e2e/oauth.test.mjs.)
func discoveryIssuer(t *testing.T) string {
	t.Helper()
	raw, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key := jose.JSONWebKey{Key: raw.Public(), KeyID: "k1"}
	var hs *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": hs.URL + "/", "jwks_uri": hs.URL + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{key}})
	})
	hs = httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs.URL + "/"
}

// serveInProcess runs `vitrine serve` with args, on a database of its own,
// and returns its base URL once it listens; it stops when the test ends.
func serveInProcess(t *testing.T, args ...string) string {
	t.Helper()
	srv := serveHere(t, append([]string{"--db", filepath.Join(t.TempDir(), "v.db")}, args...)...)
	t.Cleanup(func() {
		if code := srv.stop(); code != 0 {
			t.Errorf("exit %d: %s", code, srv.stderr.String())
		}
	})
	return srv.url
}

// checkDiscovery follows what an MCP client does with no token: POST /mcp,
// read the 401's resource_metadata, fetch it, find the issuer.
func checkDiscovery(t *testing.T, base, issuer string) {
	t.Helper()
	res, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	m := regexp.MustCompile(`resource_metadata="([^"]+)"`).FindStringSubmatch(res.Header.Get("WWW-Authenticate"))
	if res.StatusCode != 401 || m == nil {
		t.Fatalf("no token: %d %q", res.StatusCode, res.Header.Get("WWW-Authenticate"))
	}
	if m[1] != base+"/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("the challenge points at %s", m[1])
	}
	for _, loc := range []string{m[1], base + "/.well-known/oauth-protected-resource"} {
		code, body := get(t, loc)
		var meta struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		}
		json.Unmarshal([]byte(body), &meta)
		if code != 200 || meta.Resource != base+"/mcp" || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != issuer {
			t.Errorf("GET %s: %d %s", loc, code, body)
		}
	}
}

// The protected-resource metadata that a 401 points at is served by the
// binary itself (it once answered 404, and no OAuth client could connect).
func TestServeOAuthDiscovery(t *testing.T) {
	issuer := discoveryIssuer(t)
	base := serveInProcess(t, "--oauth-issuer", issuer)
	checkDiscovery(t, base, issuer)
}

// Behind a reverse proxy, --public-url is what the metadata and the
// challenges advertise, and discovery works through the proxy.
func TestServeOAuthDiscoveryThroughAProxy(t *testing.T) {
	issuer := discoveryIssuer(t)
	proxy := httptest.NewUnstartedServer(nil)
	public := "http://" + proxy.Listener.Addr().String()
	base := serveInProcess(t, "--oauth-issuer", issuer, "--public-url", public)
	target, _ := url.Parse(base)
	proxy.Config.Handler = httputil.NewSingleHostReverseProxy(target)
	proxy.Start()
	t.Cleanup(proxy.Close)
	checkDiscovery(t, public, issuer)
}

// A configuration no client could use stops the server at start, saying
// what to set.
func TestServeOAuthRefusedAtStart(t *testing.T) {
	issuer := discoveryIssuer(t)
	for name, c := range map[string]struct {
		args []string
		says string
	}{
		"beyond loopback, no public URL": {[]string{"--addr", "0.0.0.0:0"}, "set --public-url"},
		"plain http beyond loopback":     {[]string{"--public-url", "http://mcp.example.com"}, "--public-url https://mcp.example.com"},
		"an audience of another URL":     {[]string{"--oauth-audience", "https://api.example.com"}, "leave --oauth-audience unset"},
		"introspection without a client": {[]string{"--oauth-client-secret", "s"}, "--oauth-client-id"},
	} {
		args := append([]string{"serve", "--db", filepath.Join(t.TempDir(), "v.db"), "--addr", "127.0.0.1:0", "--oauth-issuer", issuer}, c.args...)
		_, errs, code := runCLI(t, args...)
		if code == 0 || !strings.Contains(errs, c.says) {
			t.Errorf("%s: exit %d, %s", name, code, errs)
		}
	}
}

// With no --oauth-issuer, the binary is its own authorization server: the
// discovery a client follows and the pages a person sees are what it
// serves, on its own mux.
func TestServeAuthorizationServerRoutes(t *testing.T) {
	base := serveInProcess(t)
	checkDiscovery(t, base, base)
	code, body := get(t, base+"/.well-known/oauth-authorization-server")
	var meta struct {
		Issuer        string   `json:"issuer"`
		Authorization string   `json:"authorization_endpoint"`
		Registration  string   `json:"registration_endpoint"`
		PKCE          []string `json:"code_challenge_methods_supported"`
		CIMD          bool     `json:"client_id_metadata_document_supported"`
	}
	json.Unmarshal([]byte(body), &meta)
	if code != 200 || meta.Issuer != base || meta.Authorization != base+"/oauth/authorize" || meta.Registration != base+"/oauth/register" ||
		len(meta.PKCE) != 1 || meta.PKCE[0] != "S256" || !meta.CIMD {
		t.Errorf("authorization server metadata: %d %s", code, body)
	}
	res, err := http.Get(base + "/login")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	csp := res.Header.Get("Content-Security-Policy")
	if res.StatusCode != 200 || !strings.Contains(csp, "frame-ancestors 'none'") || res.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("/login: %d %q", res.StatusCode, csp)
	}
	// --no-auth-server turns it off: no metadata, no pages.
	off := serveInProcess(t, "--no-auth-server")
	if code, _ := get(t, off+"/.well-known/oauth-authorization-server"); code != 404 {
		t.Errorf("--no-auth-server still serves metadata: %d", code)
	}
}

// An http:// --public-url beyond loopback stops the sign-in pages at
// start (their cookies would lose Secure and __Host-), as it stops
// resource-server mode; --dev-insecure-public-url allows it, loudly.
func TestServeRefusesPlainHTTPPublicURL(t *testing.T) {
	db := filepath.Join(t.TempDir(), "v.db")
	// A serve that starts would run until its context ends: 10 s.
	limit, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var errs bytes.Buffer
	code := run(limit, []string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--public-url", "http://mcp.example.com"}, strings.NewReader(""), io.Discard, &errs)
	if code == 0 || limit.Err() != nil || !strings.Contains(errs.String(), "set --public-url https://mcp.example.com") || !strings.Contains(errs.String(), "--dev-insecure-public-url") {
		t.Errorf("an http public URL: exit %d, %s", code, errs.String())
	}
	srv := serveHere(t, "--db", db, "--public-url", "http://mcp.example.com", "--dev-insecure-public-url")
	if log := srv.stderr.String(); !strings.Contains(log, `"level":"WARN","msg":"INSECURE: the sign-in pages are served at an http:// URL beyond loopback`) {
		t.Errorf("no warning at start:\n%s", log)
	}
	if code := srv.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	// On loopback, http stays the default (only this machine reaches it).
	if code := serveHere(t, "--db", db).stop(); code != 0 {
		t.Errorf("on loopback: exit %d", code)
	}
}
