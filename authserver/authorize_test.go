package authserver_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"golang.org/x/oauth2"
)

// authorizeQuery is a well-formed authorization request of client to
// redirect, as a query.
func authorizeQuery(c *cluster, client, redirect string) url.Values {
	return url.Values{"client_id": {client}, "redirect_uri": {redirect}, "response_type": {"code"}, "state": {"state-123456"},
		"scope": {"vitrine:read"}, "code_challenge": {oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier())},
		"code_challenge_method": {"S256"}, "resource": {c.url + "/mcp"}}
}

// accepted reports whether an authorization request was taken: sent on to
// sign-in, not answered with a page of its own.
func accepted(p page) bool {
	return p.status == http.StatusSeeOther && strings.Contains(p.location, "/login?next=")
}

// Issue 45, finding 8: a loopback redirect URI may differ from the one
// registered by its port alone (RFC 8252 §7.3, RFC 9700 §2.1): not by a
// user name before the host, nor by an escape in its path that decodes to
// the registered one, nor by anything else; and the port is one a browser
// can open (issue 45's closing review: :0 and :65536 were taken).
func TestLoopbackRedirectURIsDifferOnlyInPort(t *testing.T) {
	c := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1})
	client := register(t, c, map[string]any{"client_name": "Native", "token_endpoint_auth_method": "none",
		"redirect_uris": []string{"http://127.0.0.1:5555/callback", "http://[::1]/cb?app=1"}})
	for redirect, want := range map[string]bool{
		"http://127.0.0.1:5555/callback":      true,
		"http://127.0.0.1:6666/callback":      true,
		"http://127.0.0.1/callback":           true,
		"http://[::1]:7777/cb?app=1":          true,
		"http://[::1]/cb?app=1":               true,
		"http://evil@127.0.0.1:6666/callback": false,
		"http://evil@127.0.0.1:5555/callback": false,
		"http://127.0.0.1:6666/call%62ack":    false,
		"http://127.0.0.1:6666/callback?x=1":  false,
		"http://127.0.0.1:6666/Callback":      false,
		"http://127.0.0.1:6666/callback/":     false,
		"http://127.0.0.1:6666/callback#x":    false,
		"http://127.0.0.1:6666/./callback":    false,
		"http://localhost:6666/callback":      false,
		"http://127.0.0.2:6666/callback":      false,
		"http://[::1]:6666/callback":          false,
		"https://127.0.0.1:6666/callback":     false,
		"http://[::1]:7777/cb?app=%31":        false,
		"http://127.0.0.1:6666:7/callback":    false,
		"http://127.0.0.1%3a6666/callback":    false,
		"HTTP://127.0.0.1:6666/callback":      false,
		"http://127.0.0.1:0/callback":         false,
		"http://127.0.0.1:65536/callback":     false,
		"http://127.0.0.1:+6666/callback":     false,
		"http://127.0.0.1:/callback":          false,
	} {
		p := newBrowser(t).do("GET", c.url+"/oauth/authorize?"+authorizeQuery(c, client, redirect).Encode(), nil)
		if accepted(p) != want {
			t.Errorf("redirect_uri %s: %d %s, want accepted %v", redirect, p.status, p.location, want)
		}
		if !want && (p.status != http.StatusBadRequest || !strings.Contains(p.body, "redirect_uri")) {
			t.Errorf("redirect_uri %s: %d, want a 400 page naming redirect_uri", redirect, p.status)
		}
	}
}

// Issue 45, finding 9: a parameter sent twice is refused with an
// invalid_request page that names it (RFC 6749 §3.1), whichever value
// comes first; resource may come several times (RFC 8707), and a
// parameter the server does not know is ignored, however many times.
func TestAuthorizationParametersSentTwiceAreRefused(t *testing.T) {
	c := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1})
	client := register(t, c, map[string]any{"client_name": "Agent", "redirect_uris": []string{redirectURI}, "token_endpoint_auth_method": "none"})
	other := register(t, c, map[string]any{"client_name": "Other", "redirect_uris": []string{redirectURI}, "token_endpoint_auth_method": "none"})
	second := map[string]string{
		"client_id":             other,
		"redirect_uri":          redirectURI,
		"response_type":         "code",
		"response_mode":         "query",
		"scope":                 "vitrine:write",
		"state":                 "state-654321",
		"code_challenge":        oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier()),
		"code_challenge_method": "S256",
	}
	for k, v := range second {
		q := authorizeQuery(c, client, redirectURI)
		q.Add(k, v)
		if len(q[k]) < 2 {
			q.Add(k, v) // one the request had not sent yet: sent twice alike
		}
		p := newBrowser(t).do("GET", c.url+"/oauth/authorize?"+q.Encode(), nil)
		if p.status != http.StatusBadRequest || p.location != "" || !strings.Contains(p.body, "invalid_request") ||
			!strings.Contains(p.body, "Request parameter &#39;"+k+"&#39; is included more than once") {
			t.Errorf("%s twice: %d %s", k, p.status, p.location)
		}
	}
	q := authorizeQuery(c, client, redirectURI)
	q.Add("resource", c.url+"/mcp")
	q["prompt"] = []string{"consent", "login"}
	if p := newBrowser(t).do("GET", c.url+"/oauth/authorize?"+q.Encode(), nil); !accepted(p) {
		t.Errorf("resource twice and an unknown parameter twice: %d %s", p.status, p.body)
	}
	// Signed in, the consent page's form carries the request: a second
	// value there is refused too.
	b := newBrowser(t)
	ana := "ana@technova.example"
	consent := b.signIn(c, c.url+"/oauth/authorize?"+authorizeQuery(c, client, redirectURI).Encode(), ana, c.password(ana))
	form := consent.fields()
	form.Set("authz", form.Get("authz")+"&client_id="+other)
	form.Set("decision", "approve")
	form.Set("scope", "read")
	if p := b.do("POST", c.url+"/oauth/authorize", form); p.status != http.StatusBadRequest || p.location != "" {
		t.Errorf("a consent whose request names two clients: %d %s", p.status, p.location)
	}
}
