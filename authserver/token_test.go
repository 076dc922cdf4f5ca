package authserver_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/signin"
	"golang.org/x/oauth2"
)

// codeFor runs a client's flow for a person up to the code, which it
// returns unredeemed, with the PKCE verifier.
func codeFor(t *testing.T, c *cluster, clientID, email string) (code, verifier string) {
	t.Helper()
	verifier = oauth2.GenerateVerifier()
	b := newBrowser(t)
	consent := b.signIn(c, oauthConfig(c, clientID).AuthCodeURL("state-123456", oauth2.S256ChallengeOption(verifier)), email, c.password(email))
	back := b.answer(c, consent, "approve", "write")
	return back.Query().Get("code"), verifier
}

// tokenRequest posts a form to the token endpoint (with HTTP Basic
// credentials when user is set) and returns the status, the JSON answer
// and the headers.
func tokenRequest(t *testing.T, c *cluster, path string, form url.Values, user, pass string) (int, map[string]any, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("POST", c.url+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		req.SetBasicAuth(url.QueryEscape(user), url.QueryEscape(pass))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	json.NewDecoder(res.Body).Decode(&body)
	return res.StatusCode, body, res.Header
}

func redeem(t *testing.T, c *cluster, clientID, code, verifier string) (int, map[string]any, http.Header) {
	t.Helper()
	return tokenRequest(t, c, "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
		"redirect_uri": {redirectURI}, "client_id": {clientID}}, "", "")
}

// The token endpoint as clients meet it: a code works once, for its own
// client, redirect URI and PKCE verifier; a confidential client proves
// itself with its secret; revoking a refresh token ends its family.
func TestTokenEndpoint(t *testing.T) {
	c := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{})
	client := register(t, c, map[string]any{"client_name": "Agent", "redirect_uris": []string{redirectURI}, "token_endpoint_auth_method": "none"})
	ana := "ana@technova.example"

	t.Run("the answer", func(t *testing.T) {
		code, verifier := codeFor(t, c, client, ana)
		status, body, h := redeem(t, c, client, code, verifier)
		if status != 200 || body["token_type"] != "bearer" || body["scope"] != "vitrine:read vitrine:write vitrine:toolset:tenants vitrine:toolset:products" ||
			!strings.HasPrefix(body["refresh_token"].(string), "vtrr_") || h.Get("Cache-Control") != "no-store" {
			t.Errorf("%d %v %v", status, body, h)
		}
		if exp, _ := body["expires_in"].(float64); exp < 3000 || exp > 3600 {
			t.Errorf("expires_in %v, want an hour", body["expires_in"])
		}
	})

	t.Run("a code used twice revokes what its first use issued", func(t *testing.T) {
		code, verifier := codeFor(t, c, client, ana)
		_, first, _ := redeem(t, c, client, code, verifier)
		status, again, _ := redeem(t, c, client, code, verifier)
		if status != 400 || again["error"] != "invalid_grant" || !strings.Contains(again["error_description"].(string), "already been used") {
			t.Errorf("the code again: %d %v", status, again)
		}
		if _, err := mcpCall(t, c, first["access_token"].(string), "list_tenants", nil); !refused(err) {
			t.Errorf("the first use's access token after the code's reuse: %v", err)
		}
		if _, err := oauthConfig(c, client).TokenSource(ctx, &oauth2.Token{RefreshToken: first["refresh_token"].(string)}).Token(); err == nil {
			t.Error("the first use's refresh token after the code's reuse refreshed")
		}
	})

	t.Run("a wrong PKCE verifier is refused, and spends the code", func(t *testing.T) {
		code, verifier := codeFor(t, c, client, ana)
		status, body, _ := redeem(t, c, client, code, oauth2.GenerateVerifier())
		if status != 400 || body["error"] != "invalid_grant" || !strings.Contains(body["error_description"].(string), "did not match") {
			t.Errorf("a wrong verifier: %d %v", status, body)
		}
		if status, _, _ := redeem(t, c, client, code, verifier); status != 400 {
			t.Errorf("the right verifier after a wrong one: %d", status)
		}
		code, _ = codeFor(t, c, client, ana)
		if status, body, _ := redeem(t, c, client, code, ""); status != 400 || !strings.Contains(body["error_description"].(string), "at least 43") {
			t.Errorf("no verifier: %d %v", status, body)
		}
	})

	t.Run("a code is its client's, for its redirect URI", func(t *testing.T) {
		other := register(t, c, map[string]any{"client_name": "Other", "redirect_uris": []string{redirectURI}, "token_endpoint_auth_method": "none"})
		code, verifier := codeFor(t, c, client, ana)
		if status, body, _ := redeem(t, c, other, code, verifier); status != 400 || body["error"] != "invalid_grant" {
			t.Errorf("another client: %d %v", status, body)
		}
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
			"redirect_uri": {"http://127.0.0.1:9/elsewhere"}, "client_id": {client}}
		if status, body, _ := tokenRequest(t, c, "/oauth/token", form, "", ""); status != 400 || body["error"] != "invalid_grant" {
			t.Errorf("another redirect URI: %d %v", status, body)
		}
		if status, body, _ := redeem(t, c, client, code, verifier); status != 200 {
			t.Errorf("the code's own client, after those: %d %v", status, body)
		}
	})

	t.Run("a confidential client sends its secret", func(t *testing.T) {
		body, _ := json.Marshal(map[string]any{"client_name": "Server app", "redirect_uris": []string{redirectURI}})
		res, err := http.Post(c.url+"/oauth/register", "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		var reg struct {
			ClientID     string `json:"client_id"`
			ClientSecret string `json:"client_secret"`
		}
		json.NewDecoder(res.Body).Decode(&reg)
		res.Body.Close()
		if !strings.HasPrefix(reg.ClientSecret, "vcs_") {
			t.Fatalf("registration: %d %+v", res.StatusCode, reg)
		}
		code, verifier := codeFor(t, c, reg.ClientID, ana)
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {redirectURI}}
		for name, creds := range map[string][2]string{"no secret": {reg.ClientID, ""}, "a wrong secret": {reg.ClientID, reg.ClientSecret + "x"}} {
			if status, body, _ := tokenRequest(t, c, "/oauth/token", form, creds[0], creds[1]); status != 401 || body["error"] != "invalid_client" {
				t.Errorf("%s: %d %v", name, status, body)
			}
		}
		if status, body, _ := tokenRequest(t, c, "/oauth/token", form, reg.ClientID, reg.ClientSecret); status != 200 {
			t.Errorf("its secret, by HTTP Basic: %d %v", status, body)
		}
	})

	t.Run("revoking a refresh token ends its family", func(t *testing.T) {
		tok := authorize(t, c, client, ana, "write")
		if status, _, _ := tokenRequest(t, c, "/oauth/revoke", url.Values{"token": {tok.RefreshToken}, "client_id": {client}}, "", ""); status != 200 {
			t.Fatalf("revoke: %d", status)
		}
		if _, err := mcpCall(t, c, tok.AccessToken, "list_tenants", nil); !refused(err) {
			t.Errorf("the access token of a revoked refresh token: %v", err)
		}
		if _, err := oauthConfig(c, client).TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token(); err == nil {
			t.Error("a revoked refresh token refreshed")
		}
	})

	t.Run("another client's token is not revoked", func(t *testing.T) {
		tok := authorize(t, c, client, ana, "write")
		other := register(t, c, map[string]any{"client_name": "Other", "redirect_uris": []string{redirectURI}, "token_endpoint_auth_method": "none"})
		if status, _, _ := tokenRequest(t, c, "/oauth/revoke", url.Values{"token": {tok.AccessToken}, "client_id": {other}}, "", ""); status != 200 {
			t.Fatalf("revoke: %d", status)
		}
		if res, err := mcpCall(t, c, tok.AccessToken, "list_tenants", nil); err != nil || res.IsError {
			t.Errorf("a token another client revoked: %v", err)
		}
	})

	t.Run("only codes and refresh tokens", func(t *testing.T) {
		form := url.Values{"grant_type": {"password"}, "username": {ana}, "password": {c.password(ana)}, "client_id": {client}}
		if status, body, _ := tokenRequest(t, c, "/oauth/token", form, "", ""); status != 400 || body["error"] != "unsupported_grant_type" {
			t.Errorf("the password grant: %d %v", status, body)
		}
	})
}

// A refresh token issued before an upgrade keeps working after it: its
// row, as the server wrote it when it was built on ory/fosite, refreshes
// into tokens of the same grant, and is spent as any other.
func TestRefreshTokenOfAnEarlierVersion(t *testing.T) {
	c := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1})
	client := register(t, c, map[string]any{"client_name": "Agent", "redirect_uris": []string{redirectURI}, "token_endpoint_auth_method": "none"})
	ana := "ana@technova.example"
	authorize(t, c, client, ana, "write")
	u, err := c.svc.Accounts().Operator().User(ctx, "email", ana)
	if err != nil {
		t.Fatal(err)
	}
	db := c.svc.Accounts().OAuthStore()
	grants, err := db.OAuthGrantsOfUser(ctx, u.ID)
	if err != nil || len(grants) != 1 {
		t.Fatalf("grants: %v %v", grants, err)
	}
	now := time.Now().UTC()
	old := fmt.Sprintf(`{"id":"family-of-an-earlier-version","requested_at":%q,"client_id":%q,"requested_scope":["vitrine:read","vitrine:write"],`+
		`"granted_scope":["vitrine:read","vitrine:write","vitrine:toolset:members"],"requested_audience":[],"granted_audience":[%q],`+
		`"form":{},"session":{"user_id":%q,"grant_id":%q,"client_tag":"Agent","expires_at":{"access_token":%q,"refresh_token":%q}}}`,
		now.Format(time.RFC3339Nano), client, c.url+"/mcp", u.ID, grants[0].ID, now.Add(time.Hour).Format(time.RFC3339Nano),
		now.Add(24*time.Hour).Format(time.RFC3339Nano))
	refresh := "vtrr_an-earlier-versions-refresh-token-0123456789abcdef"
	sum := sha256.Sum256([]byte(refresh))
	if err := db.CreateOAuthSession(ctx, &signin.OAuthSession{Kind: "refresh", Signature: hex.EncodeToString(sum[:]),
		RequestID: "family-of-an-earlier-version", GrantID: grants[0].ID, Request: []byte(old), Active: true,
		ExpiresAt: now.Add(24 * time.Hour), CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	cfg := oauthConfig(c, client)
	fresh, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: refresh}).Token()
	if err != nil {
		t.Fatalf("the earlier version's refresh token: %v", err)
	}
	if names := toolNames(t, c, fresh.AccessToken); !slices.Contains(names, "list_members") || slices.Contains(names, "list_products") {
		t.Errorf("its access token, of the members toolset, lists %v", names)
	}
	if _, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: refresh}).Token(); err == nil {
		t.Error("the earlier version's refresh token refreshed twice")
	}
}

// Issue 45, finding 9: at the token endpoint too, a parameter sent twice is
// invalid_request naming it (RFC 6749 §3.2), and spends nothing: the code
// still works when sent as it should be.
func TestTokenParametersSentTwiceAreRefused(t *testing.T) {
	c := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1})
	client := register(t, c, map[string]any{"client_name": "Agent", "redirect_uris": []string{redirectURI}, "token_endpoint_auth_method": "none"})
	code, verifier := codeFor(t, c, client, "ana@technova.example")
	form := func() url.Values {
		return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
			"redirect_uri": {redirectURI}, "client_id": {client}}
	}
	for k, v := range map[string]string{"grant_type": "refresh_token", "code": "another", "code_verifier": oauth2.GenerateVerifier(),
		"redirect_uri": "http://127.0.0.1:9/other", "client_id": "another"} {
		f := form()
		f[k] = []string{f.Get(k), v}
		status, body, _ := tokenRequest(t, c, "/oauth/token", f, "", "")
		if status != http.StatusBadRequest || body["error"] != "invalid_request" ||
			!strings.Contains(fmt.Sprint(body["error_description"]), "'"+k+"' is included more than once") {
			t.Errorf("%s twice: %d %v", k, status, body)
		}
	}
	status, body, _ := redeem(t, c, client, code, verifier)
	if status != http.StatusOK {
		t.Fatalf("the code sent once: %d %v", status, body)
	}
	f := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {body["refresh_token"].(string), "vtrr_other"}, "client_id": {client}}
	if status, body, _ := tokenRequest(t, c, "/oauth/token", f, "", ""); status != http.StatusBadRequest || body["error"] != "invalid_request" {
		t.Errorf("refresh_token twice: %d %v", status, body)
	}
	f = url.Values{"token": {body["access_token"].(string), "x"}, "client_id": {client}}
	if status, body, _ := tokenRequest(t, c, "/oauth/revoke", f, "", ""); status != http.StatusBadRequest || body["error"] != "invalid_request" {
		t.Errorf("token twice at revocation: %d %v", status, body)
	}
}
