package authserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vitrine/vitrine/authserver"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"golang.org/x/oauth2"
)

// Every page the authorization server answers, error pages and refusals
// included, carries the security headers (docs/oauth.md): a
// Content-Security-Policy that allows no script and frames nothing, and
// the headers that keep it from being framed, cached or sniffed. Issue 45,
// finding 6: the error pages, the failed sign-in page, the "form expired"
// page and the 429 pages wrote their status before the policy was set, and
// went out without it.
func TestEveryPageCarriesItsSecurityHeaders(t *testing.T) {
	// A company's OpenID provider, for the page of a failed sign-in with
	// it: its discovery document is all the server reads at start.
	var provider *httptest.Server
	provider = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": provider.URL, "authorization_endpoint": provider.URL + "/auth",
			"token_endpoint": provider.URL + "/token", "jwks_uri": provider.URL + "/jwks"})
	}))
	defer provider.Close()
	frozen := time.Now()
	c := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1, limits: httpserver.Limits{TrustedProxies: behindProxy},
		options: func(o *authserver.Options) {
			o.Now = func() time.Time { return frozen }
			o.Upstream = &authserver.Upstream{Issuer: provider.URL, ClientID: "vitrine"}
		}})
	ana := "ana@technova.example"
	client := register(t, c, map[string]any{"client_name": "Agent", "redirect_uris": []string{redirectURI}, "token_endpoint_auth_method": "none"})
	cfg := oauthConfig(c, client)
	link, _, err := c.svc.Accounts().Operator().CreatePasswordLink(ctx, "diego@technova.example", time.Hour)
	if err != nil {
		t.Fatal(err)
	}

	check := func(name string, p page, status int) {
		t.Helper()
		if p.status != status {
			t.Errorf("%s: %d, want %d", name, p.status, status)
		}
		csp := p.header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s (%d): Content-Security-Policy %q lacks %q", name, p.status, csp, want)
			}
		}
		for h, want := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
			"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"} {
			if got := p.header.Get(h); got != want {
				t.Errorf("%s (%d): %s %q, want %q", name, p.status, h, got, want)
			}
		}
	}

	// Before sign-in.
	b := newBrowser(t)
	login := b.do("GET", c.url+"/login", nil)
	check("the sign-in page", login, http.StatusOK)
	check("an authorization request without code_challenge", b.do("GET", cfg.AuthCodeURL("state-123456"), nil), http.StatusBadRequest)
	check("an authorization request of an unknown client", b.do("GET", oauthConfig(c, "nobody").AuthCodeURL("state-123456", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), nil), http.StatusBadRequest)
	form := login.fields()
	form.Set("email", ana)
	form.Set("password", "not the password")
	check("a wrong password", b.do("POST", c.url+"/login", form), http.StatusUnauthorized)
	check("a sign-in form without its CSRF token (form expired)", b.do("POST", c.url+"/login", url.Values{"email": {ana}, "password": {"x"}}), http.StatusForbidden)
	check("a sign-out form without its CSRF token", b.do("POST", c.url+"/logout", url.Values{}), http.StatusForbidden)
	check("a password link that is not one", b.do("GET", c.url+"/password?token=nothing", nil), http.StatusNotFound)
	check("a password link", b.do("GET", c.url+"/password?token="+url.QueryEscape(link), nil), http.StatusOK)
	check("two passwords that differ", b.do("POST", c.url+"/password", url.Values{"csrf": {form.Get("csrf")}, "token": {link},
		"password": {"one long password"}, "password2": {"another long password"}}), http.StatusBadRequest)
	check("a failed sign-in with the company's provider", b.do("GET", c.url+"/login/sso/callback?state=x&code=y", nil), http.StatusUnauthorized)
	// An address past its sign-in attempts (10 a minute).
	for i := range 10 {
		if p := signInFrom(t, c, "203.0.113.66", fmt.Sprintf("nobody%d@example.com", i), "not the password"); p.status != http.StatusUnauthorized {
			t.Fatalf("bad password %d: %d", i+1, p.status)
		}
	}
	held := newBrowser(t)
	form = held.do("GET", c.url+"/login", nil).fields()
	form.Set("email", ana)
	form.Set("password", c.password(ana))
	req, _ := http.NewRequest("POST", c.url+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-For", "203.0.113.66")
	res, err := held.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	check("too many sign-in attempts from one address", page{status: res.StatusCode, header: res.Header}, http.StatusTooManyRequests)

	// Signed in.
	consent := b.signIn(c, cfg.AuthCodeURL("state-123456", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), ana, c.password(ana))
	check("the consent page", consent, http.StatusOK)
	if csp := consent.header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' http://127.0.0.1:9") {
		t.Errorf("the consent page's form-action does not name its client: %q", csp)
	}
	check("a consent form without its CSRF token", b.do("POST", c.url+"/oauth/authorize", url.Values{"decision": {"approve"}}), http.StatusForbidden)
	check("the account page", b.do("GET", c.url+"/account", nil), http.StatusOK)
	check("an authorization request with a short state, signed in", b.do("GET", cfg.AuthCodeURL("short", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), nil), http.StatusBadRequest)
}
