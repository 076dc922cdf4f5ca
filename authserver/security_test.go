package authserver_test

import (
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
