package authserver_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"golang.org/x/oauth2"
)

// The findings of the security review of issue 23, each through the
// handler stack `vitrine serve` mounts (two instances behind a proxy).

// post sends a form to the cluster and returns its status.
func post(t *testing.T, c *cluster, path string, form url.Values, headers ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", c.url+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// Finding 1: an access token's display prefix (public: whoami and token
// list show it) followed by anything revokes nothing; the whole token does.
func TestRevocationNeedsTheWholeToken(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbURL string) {
		c := newCluster(t, dbURL)
		client := register(t, c, map[string]any{"client_name": "Agent", "redirect_uris": []string{redirectURI}, "token_endpoint_auth_method": "none"})
		tok := authorize(t, c, client, "ana@technova.example", "write")
		forged := tok.AccessToken[:12] + strings.Repeat("A", len(tok.AccessToken)-12)
		for _, hint := range []string{"", "access_token"} {
			form := url.Values{"token": {forged}, "client_id": {client}}
			if hint != "" {
				form.Set("token_type_hint", hint)
			}
			if res := post(t, c, "/oauth/revoke", form); res.StatusCode != 200 {
				t.Fatalf("revoke with the prefix: %d", res.StatusCode)
			}
		}
		if res, err := mcpCall(t, c, tok.AccessToken, "list_tenants", nil); err != nil || res.IsError {
			t.Fatalf("the token after a revocation by its prefix: %v", err)
		}
		cfg := oauthConfig(c, client)
		fresh, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
		if err != nil {
			t.Fatalf("its refresh family after a revocation by its prefix: %v", err)
		}
		if res := post(t, c, "/oauth/revoke", url.Values{"token": {fresh.AccessToken}, "client_id": {client}}); res.StatusCode != 200 {
			t.Fatalf("revoke: %d", res.StatusCode)
		}
		if _, err := mcpCall(t, c, fresh.AccessToken, "list_tenants", nil); !refused(err) {
			t.Errorf("the whole token revoked, it still works: %v", err)
		}
	})
}

// Finding 2: before anyone signs in, an authorization request that cannot
// be used is a page on Vitrine, never a redirect to whatever URI a client
// registered.
func TestNoRedirectBeforeSignIn(t *testing.T) {
	c := newCluster(t, dbtest.SQLiteURL(t))
	evil := register(t, c, map[string]any{"client_name": "Evil", "redirect_uris": []string{"https://evil.example/landing"}, "token_endpoint_auth_method": "none"})
	cfg := oauthConfig(c, evil)
	cfg.RedirectURL = "https://evil.example/landing"
	for name, u := range map[string]string{
		"no PKCE":          cfg.AuthCodeURL("state-123456"),
		"plain PKCE":       cfg.AuthCodeURL("state-123456", oauth2.SetAuthURLParam("code_challenge", "x"), oauth2.SetAuthURLParam("code_challenge_method", "plain")),
		"a short state":    cfg.AuthCodeURL("short", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())),
		"another resource": cfg.AuthCodeURL("state-123456", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()), oauth2.SetAuthURLParam("resource", "https://elsewhere.example/mcp")),
		"an unknown scope": cfg.AuthCodeURL("state-123456", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()), oauth2.SetAuthURLParam("scope", "admin")),
	} {
		p := newBrowser(t).do("GET", u, nil)
		if p.status != http.StatusBadRequest || p.location != "" || !strings.Contains(p.body, "This app&#39;s request cannot be used") {
			t.Errorf("%s: %d, Location %q", name, p.status, p.location)
		}
	}
}

// Finding 12: every authorization response names the issuer (RFC 9207),
// as the metadata says; an error after the person answered too.
func TestAuthorizationResponseNamesTheIssuer(t *testing.T) {
	c := newCluster(t, dbtest.SQLiteURL(t))
	res, err := http.Get(c.url + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	json.NewDecoder(res.Body).Decode(&meta)
	res.Body.Close()
	if meta["authorization_response_iss_parameter_supported"] != true {
		t.Errorf("metadata: %v", meta)
	}
	client := register(t, c, map[string]any{"client_name": "Agent", "redirect_uris": []string{redirectURI}, "token_endpoint_auth_method": "none"})
	cfg := oauthConfig(c, client)
	b := newBrowser(t)
	consent := b.signIn(c, cfg.AuthCodeURL("state-123456", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), "ana@technova.example", c.password("ana@technova.example"))
	if back := b.answer(c, consent, "approve", "read"); back.Query().Get("iss") != c.url || back.Query().Get("code") == "" {
		t.Errorf("approved: %s", back)
	}
	consent = b.do("GET", cfg.AuthCodeURL("", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), nil)
	if back := b.answer(c, consent, "deny", "read"); back.Query().Get("iss") != c.url || back.Query().Get("error") != "access_denied" || back.Query().Has("state") {
		t.Errorf("denied: %s", back)
	}
}
