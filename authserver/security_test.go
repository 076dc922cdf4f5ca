package authserver_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/authserver"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service/accounts"
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

// from is a request header naming the client behind the proxy.
func from(addr string) []string { return []string{"X-Forwarded-For", addr} }

// behindProxy is what the cluster's instances trust: the test's proxy.
var behindProxy = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// send makes a request to the cluster and returns its response, read.
func send(t *testing.T, c *cluster, method, path, contentType, body string, headers ...string) page {
	t.Helper()
	req, _ := http.NewRequest(method, c.url+path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return page{status: res.StatusCode, body: string(data), header: res.Header}
}

// Finding 3: the per-address limit is in front of every route, the
// authorization server's included: with a burst of 2, each route's third
// request from one address is refused with 429.
func TestAddressLimitOnEveryRoute(t *testing.T) {
	c := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1,
		limits: httpserver.Limits{IPRate: 0.001, IPBurst: 2, TrustedProxies: behindProxy}})
	form := "application/x-www-form-urlencoded"
	for i, r := range []struct{ method, path, contentType, body string }{
		{"POST", "/mcp", "application/json", `{}`},
		{"GET", "/.well-known/oauth-authorization-server", "", ""},
		{"GET", "/.well-known/oauth-protected-resource/mcp", "", ""},
		{"POST", "/oauth/token", form, "grant_type=refresh_token&refresh_token=x&client_id=x"},
		{"POST", "/oauth/revoke", form, "token=x&client_id=x"},
		{"POST", "/oauth/register", "application/json", `{}`},
		{"GET", "/oauth/authorize?client_id=x", "", ""},
		{"GET", "/login", "", ""},
		{"POST", "/login", form, "email=a@b.example&password=x"},
		{"GET", "/password?token=x", "", ""},
		{"POST", "/password", form, "token=x"},
		{"GET", "/account", "", ""},
		{"GET", "/static/vitrine.css", "", ""},
		{"GET", "/healthz", "", ""},
		{"GET", "/readyz", "", ""},
		{"GET", "/nowhere", "", ""},
	} {
		addr := from(fmt.Sprintf("203.0.113.%d", i+1))
		for n := range 2 {
			if p := send(t, c, r.method, r.path, r.contentType, r.body, addr...); p.status == http.StatusTooManyRequests {
				t.Fatalf("%s %s: request %d refused within the burst", r.method, r.path, n+1)
			}
		}
		p := send(t, c, r.method, r.path, r.contentType, r.body, addr...)
		if after, _ := strconv.Atoi(p.header.Get("Retry-After")); p.status != http.StatusTooManyRequests || after < 1 {
			t.Errorf("%s %s: the third request from one address: %d, Retry-After %q", r.method, r.path, p.status, p.header.Get("Retry-After"))
		}
	}
}

// readCounter counts what the handler it wraps reads of request bodies.
type readCounter struct {
	next http.Handler
	n    atomic.Int64
}

func (rc *readCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.Body = countingBody{r.Body, &rc.n}
	rc.next.ServeHTTP(w, r)
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// Finding 3: the body bounds hold on the authorization server's routes:
// a body past --max-body is not read to its end, the protocol endpoints
// read at most 64 KiB whatever --max-body says (so that fosite, which
// parses them as multipart with 1 MiB in memory, never spools one to the
// temporary folder), and a body trickled in is cut at --body-timeout.
func TestBodyBoundsOnTheAuthorizationServer(t *testing.T) {
	t.Run("size", func(t *testing.T) {
		for _, c := range []struct {
			what    string
			maxBody int64
			body    int
			limit   int64
		}{
			{"past --max-body", 65536, 24 << 20, 65536},
			{"past the protocol endpoints' own bound", 4 << 20, 3 << 20, 64 << 10},
		} {
			var counter *readCounter
			cl := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1, limits: httpserver.Limits{MaxBodyBytes: c.maxBody},
				wrap: func(h http.Handler) http.Handler { counter = &readCounter{next: h}; return counter }})
			for _, path := range []string{"/oauth/token", "/oauth/revoke", "/oauth/register"} {
				counter.n.Store(0)
				var body bytes.Buffer
				mw := multipart.NewWriter(&body)
				mw.WriteField("grant_type", "refresh_token")
				f, _ := mw.CreateFormFile("upload", "big.bin")
				f.Write(bytes.Repeat([]byte("x"), c.body))
				mw.Close()
				req, _ := http.NewRequest("POST", cl.url+path, &body)
				req.Header.Set("Content-Type", mw.FormDataContentType())
				if res, err := http.DefaultClient.Do(req); err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode < 400 {
						t.Errorf("%s, %s: %d", c.what, path, res.StatusCode)
					}
				}
				// What the server read: the limit, and what one read took
				// past it.
				if n := counter.n.Load(); n > c.limit+64<<10 {
					t.Errorf("%s, %s: the server read %d bytes of the body, past %d", c.what, path, n, c.limit)
				}
			}
		}
	})
	t.Run("time", func(t *testing.T) {
		cl := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1, limits: httpserver.Limits{BodyTimeout: 300 * time.Millisecond}})
		for _, path := range []string{"/oauth/token", "/oauth/register", "/login"} {
			// The instance itself: the test proxy in front has no timeouts.
			conn, err := net.Dial("tcp", strings.TrimPrefix(cl.backends[0], "http://"))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n\r\ngrant_type=", path, strings.TrimPrefix(cl.backends[0], "http://"))
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			start := time.Now()
			// The instance gives up on the body, and the proxy answers.
			line, err := bufio.NewReader(conn).ReadString('\n')
			if took := time.Since(start); err != nil || took > 5*time.Second {
				t.Errorf("%s: a stalled body held the request for %s (%q, %v)", path, took, line, err)
			}
			conn.Close()
		}
	})
}

// Finding 3: every new client_id URL costs an outbound fetch and a stored
// row: one address gets 10, then one every 30 s.
func TestMetadataFetchesAreLimited(t *testing.T) {
	c := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1, limits: httpserver.Limits{TrustedProxies: behindProxy}})
	var fetched atomic.Int64
	var doc *httptest.Server
	doc = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		json.NewEncoder(w).Encode(map[string]any{"client_id": doc.URL + r.URL.Path, "client_name": "Doc",
			"redirect_uris": []string{redirectURI}, "token_endpoint_auth_method": "none"})
	}))
	defer doc.Close()
	authorizeURL := func(n int) string {
		cfg := oauthConfig(c, fmt.Sprintf("%s/client-%d.json", doc.URL, n))
		return strings.TrimPrefix(cfg.AuthCodeURL("state-123456", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), c.url)
	}
	for n := range 10 {
		if p := send(t, c, "GET", authorizeURL(n), "", "", from("203.0.113.9")...); p.status != http.StatusSeeOther {
			t.Fatalf("client %d: %d %s", n, p.status, p.body)
		}
	}
	p := send(t, c, "GET", authorizeURL(10), "", "", from("203.0.113.9")...)
	if p.status != http.StatusTooManyRequests || !strings.Contains(p.body, "Too many client metadata documents") {
		t.Errorf("the 11th new client_id from one address: %d %s", p.status, p.body)
	}
	if n := fetched.Load(); n != 10 {
		t.Errorf("%d documents fetched, want 10", n)
	}
	// A document already fetched is served from its copy; another address
	// fetches its own.
	if p := send(t, c, "GET", authorizeURL(3), "", "", from("203.0.113.9")...); p.status != http.StatusSeeOther {
		t.Errorf("a client already known: %d", p.status)
	}
	if p := send(t, c, "GET", authorizeURL(10), "", "", from("203.0.113.10")...); p.status != http.StatusSeeOther {
		t.Errorf("another address: %d", p.status)
	}
}

// signInFrom posts a sign-in form as a client at addr, behind the proxy.
func signInFrom(t *testing.T, c *cluster, addr, email, password string) page {
	t.Helper()
	b := newBrowser(t)
	form := b.do("GET", c.url+"/login", nil).fields()
	form.Set("email", email)
	form.Set("password", password)
	req, _ := http.NewRequest("POST", c.url+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-For", addr)
	res, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	return page{status: res.StatusCode}
}

// Findings 4 and 8: behind --trusted-proxies, the sign-in, password and
// registration limits count the client the proxy names, as the MCP
// endpoint does, not the proxy; IPv6 clients by their /64.
func TestAuthorizationServerLimitsCountClients(t *testing.T) {
	// The server's clock stands still: a slow run (ten argon2id
	// verifications on a loaded machine take seconds) refills no limit.
	frozen := time.Now()
	c := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1, limits: httpserver.Limits{TrustedProxies: behindProxy},
		options: func(o *authserver.Options) { o.Now = func() time.Time { return frozen } }})
	ana := "ana@technova.example"
	t.Run("sign-in", func(t *testing.T) {
		// Each attempt for another email: the lockout per email stays out
		// of it.
		for i := range 10 {
			if p := signInFrom(t, c, "203.0.113.66", fmt.Sprintf("nobody%d@example.com", i), "not the password"); p.status != http.StatusUnauthorized {
				t.Fatalf("bad password %d: %d", i+1, p.status)
			}
		}
		if p := signInFrom(t, c, "203.0.113.66", ana, c.password(ana)); p.status != http.StatusTooManyRequests {
			t.Errorf("the 11th attempt from the same client: %d", p.status)
		}
		if p := signInFrom(t, c, "203.0.113.77", "marina@mercadoverde.example", c.password("marina@mercadoverde.example")); p.status != http.StatusSeeOther {
			t.Errorf("another client behind the same proxy: %d", p.status)
		}
	})
	t.Run("IPv6 by /64", func(t *testing.T) {
		for i := range 10 {
			signInFrom(t, c, fmt.Sprintf("2001:db8:1:2::%x", i+1), fmt.Sprintf("nobody%d@example.com", i), "not the password")
		}
		if p := signInFrom(t, c, "2001:db8:1:2:ffff:ffff:ffff:ffff", "carla@technova.example", c.password("carla@technova.example")); p.status != http.StatusTooManyRequests {
			t.Errorf("another address of the same /64: %d", p.status)
		}
		if p := signInFrom(t, c, "2001:db8:1:3::1", "carla@technova.example", c.password("carla@technova.example")); p.status != http.StatusSeeOther {
			t.Errorf("an address of another /64: %d", p.status)
		}
	})
	t.Run("password links", func(t *testing.T) {
		link, _, err := c.svc.Accounts().Operator().CreatePasswordLink(ctx, "diego@technova.example", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		// Two passwords that differ: the page says so, until the address
		// is held back.
		form := url.Values{"token": {link}, "password": {"one long password"}, "password2": {"another long password"}}
		b := newBrowser(t)
		form.Set("csrf", b.do("GET", c.url+"/login", nil).fields().Get("csrf"))
		postFrom := func(addr string) string {
			req, _ := http.NewRequest("POST", c.url+"/password", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-Forwarded-For", addr)
			res, err := b.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			return string(body)
		}
		for range 10 {
			postFrom("203.0.113.88")
		}
		if body := postFrom("203.0.113.88"); !strings.Contains(body, "Too many attempts from your address") {
			t.Errorf("the 11th attempt of one client is not held back")
		}
		if body := postFrom("203.0.113.89"); !strings.Contains(body, "The two passwords differ") {
			t.Errorf("another client behind the proxy is held back")
		}
	})
	t.Run("registration", func(t *testing.T) {
		body := `{"client_name":"Flood","redirect_uris":["` + redirectURI + `"],"token_endpoint_auth_method":"none"}`
		for range 20 {
			send(t, c, "POST", "/oauth/register", "application/json", body, from("203.0.113.99")...)
		}
		if p := send(t, c, "POST", "/oauth/register", "application/json", body, from("203.0.113.99")...); p.status != http.StatusTooManyRequests {
			t.Errorf("the 21st registration of one client: %d", p.status)
		}
		if p := send(t, c, "POST", "/oauth/register", "application/json", body, from("203.0.113.100")...); p.status != http.StatusCreated {
			t.Errorf("another client's registration: %d", p.status)
		}
	})
}

// Finding 8: an address held back stays so however many others come: the
// limit's table forgets only addresses that have recovered, and when it
// is full of others still held back, new addresses share one bucket (it
// used to start over, the held-back address with it).
func TestHeldBackAddressStaysHeldBack(t *testing.T) {
	defer authserver.SetLimitTableSize(30)()
	c := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1, limits: httpserver.Limits{TrustedProxies: behindProxy}})
	body := `{"client_name":"Flood","redirect_uris":["` + redirectURI + `"],"token_endpoint_auth_method":"none"}`
	register := func(addr string) int {
		return send(t, c, "POST", "/oauth/register", "application/json", body, from(addr)...).status
	}
	for range 20 {
		register("203.0.113.66")
	}
	if code := register("203.0.113.66"); code != http.StatusTooManyRequests {
		t.Fatalf("the 21st registration: %d", code)
	}
	created := 0
	for i := range 60 {
		if register(fmt.Sprintf("198.51.100.%d", i+1)) == http.StatusCreated {
			created++
		}
	}
	if code := register("203.0.113.66"); code != http.StatusTooManyRequests {
		t.Errorf("after 60 other addresses, the held-back one registers: %d", code)
	}
	// 29 addresses fit beside it; the others shared the overflow bucket.
	if created < 29 || created > 29+20 {
		t.Errorf("%d of 60 new addresses registered", created)
	}
}

// signedIn signs a new browser in as email, on its account page.
func signedIn(t *testing.T, c *cluster, email, password string) *browser {
	t.Helper()
	b := newBrowser(t)
	form := b.do("GET", c.url+"/login?next=/account", nil).fields()
	form.Set("email", email)
	form.Set("password", password)
	if p := b.do("POST", c.url+"/login", form); p.status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", p.status)
	}
	if !onAccount(b, c) {
		t.Fatal("signed in, the account page is not shown")
	}
	return b
}

// onAccount reports whether the browser is shown its account page, not
// sent to sign in.
func onAccount(b *browser, c *cluster) bool {
	return b.do("GET", c.url+"/account", nil).status == http.StatusOK
}

// Finding 5: a new password (from an invitation link, or the operator's
// vitrine user password), a disabled account and "sign out everywhere"
// end every browser session of the user.
func TestSessionsEnd(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbURL string) {
		c := newCluster(t, dbURL)
		op := c.svc.Accounts().Operator()
		email, password := "diego@technova.example", c.password("diego@technova.example")
		t.Run("a password set from an invitation link", func(t *testing.T) {
			before, other := signedIn(t, c, email, password), signedIn(t, c, "ana@technova.example", c.password("ana@technova.example"))
			link, _, err := op.CreatePasswordLink(ctx, email, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			redeemer := newBrowser(t)
			form := redeemer.do("GET", c.url+"/password?token="+link, nil).fields()
			password = "diego's brand new password"
			form.Set("password", password)
			form.Set("password2", password)
			if p := redeemer.do("POST", c.url+"/password", form); p.status != http.StatusSeeOther {
				t.Fatalf("set the password: %d %s", p.status, p.body)
			}
			if onAccount(before, c) {
				t.Error("a session from before the new password still opens the account")
			}
			if !onAccount(redeemer, c) || !onAccount(other, c) {
				t.Error("the browser that set it, or another user's, was signed out")
			}
		})
		t.Run("a password the operator sets", func(t *testing.T) {
			before := signedIn(t, c, email, password)
			password = "the operator's password for diego"
			if err := op.SetPassword(ctx, email, password); err != nil {
				t.Fatal(err)
			}
			if onAccount(before, c) {
				t.Error("a session from before vitrine user password still opens the account")
			}
		})
		t.Run("disabled, then enabled", func(t *testing.T) {
			before := signedIn(t, c, email, password)
			for _, disabled := range []bool{true, false} {
				if _, err := op.UpdateUser(ctx, email, accounts.UserChanges{Disabled: &disabled}); err != nil {
					t.Fatal(err)
				}
			}
			if onAccount(before, c) {
				t.Error("a session from before the user was disabled is back once enabled")
			}
		})
		t.Run("sign out everywhere", func(t *testing.T) {
			here, there := signedIn(t, c, email, password), signedIn(t, c, email, password)
			other := signedIn(t, c, "ana@technova.example", c.password("ana@technova.example"))
			account := here.do("GET", c.url+"/account", nil)
			if !strings.Contains(account.body, `action="/account/sessions/revoke"`) {
				t.Fatal("the account page has no sign-out-everywhere button")
			}
			if p := here.do("POST", c.url+"/account/sessions/revoke", account.fields()); p.status != http.StatusSeeOther || !strings.HasSuffix(p.location, "/login") {
				t.Fatalf("sign out everywhere: %d %s", p.status, p.location)
			}
			if onAccount(here, c) || onAccount(there, c) {
				t.Error("a browser is still signed in after signing out everywhere")
			}
			if !onAccount(other, c) {
				t.Error("another user was signed out")
			}
			// Without this browser's CSRF token, nothing happens.
			again := signedIn(t, c, email, password)
			if p := again.do("POST", c.url+"/account/sessions/revoke", url.Values{"csrf": {"forged"}}); p.status != http.StatusForbidden || !onAccount(again, c) {
				t.Errorf("a forged form: %d", p.status)
			}
		})
	})
}

// Finding 6: re-approving an app with fewer scopes (write, then read only)
// revokes what the earlier approval issued, whose refresh tokens would
// mint write tokens again; re-approving with more keeps it. (Whatever the
// scopes: the comparison is over the grant's scope set.)
func TestNarrowedApprovalRevokesEarlierTokens(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbURL string) {
		c := newCluster(t, dbURL)
		client := register(t, c, map[string]any{"client_name": "Agent", "redirect_uris": []string{redirectURI}, "token_endpoint_auth_method": "none"})
		cfg := oauthConfig(c, client)
		write := authorize(t, c, client, "ana@technova.example", "write")
		read := authorize(t, c, client, "ana@technova.example", "read")
		if _, err := mcpCall(t, c, write.AccessToken, "list_tenants", nil); !refused(err) {
			t.Errorf("the earlier write token after a read-only approval: %v", err)
		}
		if tok, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: write.RefreshToken}).Token(); err == nil {
			t.Errorf("the earlier refresh token minted a token after a read-only approval (scope %v)", tok.Extra("scope"))
		}
		if res, err := mcpCall(t, c, read.AccessToken, "list_tenants", nil); err != nil || res.IsError {
			t.Fatalf("the read-only approval's token: %v", err)
		}
		fresh, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: read.RefreshToken}).Token()
		if err != nil {
			t.Fatalf("the read-only approval's refresh token: %v", err)
		}
		// Widened again: what the read-only approval issued keeps working.
		authorize(t, c, client, "ana@technova.example", "write")
		if res, err := mcpCall(t, c, fresh.AccessToken, "list_tenants", nil); err != nil || res.IsError {
			t.Errorf("a token of the narrower approval after a wider one: %v", err)
		}
		if _, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: fresh.RefreshToken}).Token(); err != nil {
			t.Errorf("a refresh token of the narrower approval after a wider one: %v", err)
		}
	})
}

// Finding 9: a client_id URL naming a special-purpose address, or an IPv6
// one that carries a private IPv4 address, is refused without a fetch.
func TestMetadataDocumentsOnlyFromPublicAddresses(t *testing.T) {
	c := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1, options: func(o *authserver.Options) { o.InsecureClientMetadata = false }})
	for _, host := range []string{"[64:ff9b::7f00:1]", "[64:ff9b::a9fe:a9fe]", "[2002:7f00:1::1]", "[fec0::1]", "[2001:0:4136:e378::1]",
		"[::127.0.0.1]", "[100::1]", "198.18.0.1", "192.0.0.8", "240.0.0.1", "0.1.2.3"} {
		cfg := oauthConfig(c, "https://"+host+"/client.json")
		p := newBrowser(t).do("GET", cfg.AuthCodeURL("state-123456", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), nil)
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, "not a public one") {
			t.Errorf("a client_id at %s: %d %s", host, p.status, p.body)
		}
	}
}

// Finding 11: a client_id URL's host is shown on the consent page, so it
// must be ASCII (punycode): a Unicode lookalike is refused before any
// fetch.
func TestMetadataDocumentHostsAreASCII(t *testing.T) {
	c := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1})
	for _, id := range []string{"https://exämple.com/client.json", "https://ex%C3%A4mple.com/client.json", "https://аpple.com/client.json"} {
		p := newBrowser(t).do("GET", oauthConfig(c, id).AuthCodeURL("state-123456", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), nil)
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, "host is not ASCII") {
			t.Errorf("client_id %s: %d %s", id, p.status, p.body)
		}
	}
}

// Finding 13: a redirect URI's host goes into the consent page's
// Content-Security-Policy: only a plain host name or an IP address is
// accepted, at registration and in metadata documents.
func TestRedirectURIHostsArePlain(t *testing.T) {
	c := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1})
	for uri, ok := range map[string]bool{
		"https://app.example.com:8443/callback": true,
		"http://127.0.0.1:9/callback":           true,
		"http://[::1]:9/callback":               true,
		"cursor://callback":                     true,
		"cursor:/callback":                      true,
		"https://evil.example;script-src/cb":    false,
		"https://*.example/cb":                  false,
		"https://a.example%3Bscript-src/cb":     false,
		"myapp://host;form-action/cb":           false,
		"myapp://*/cb":                          false,
		"https://under_score.example/cb":        false,
		"https://-lead.example/cb":              false,
		"http://[fe80::1%25eth0]:9/cb":          false,
	} {
		p := send(t, c, "POST", "/oauth/register", "application/json",
			`{"client_name":"X","token_endpoint_auth_method":"none","redirect_uris":[`+strconv.Quote(uri)+`]}`)
		if ok && p.status != http.StatusCreated || !ok && (p.status != http.StatusBadRequest || !strings.Contains(p.body, "invalid_redirect_uri")) {
			t.Errorf("register %s: %d %s", uri, p.status, p.body)
		}
	}
	var doc *httptest.Server
	doc = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"client_id": doc.URL + r.URL.Path, "client_name": "Doc",
			"redirect_uris": []string{"https://evil.example;script-src/cb"}, "token_endpoint_auth_method": "none"})
	}))
	defer doc.Close()
	cfg := oauthConfig(c, doc.URL+"/client.json")
	cfg.RedirectURL = "https://evil.example;script-src/cb"
	p := newBrowser(t).do("GET", cfg.AuthCodeURL("state-123456", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), nil)
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, "not a plain host name") {
		t.Errorf("a metadata document with such a redirect URI: %d %s", p.status, p.body)
	}
}

// Finding 10: the pre-session cookie (which binds a browser's CSRF tokens
// before sign-in) is taken back only when this server issued it: a value
// planted by a sibling domain (possible without __Host-) binds nothing,
// so that whoever planted it cannot forge the browser's forms.
func TestPlantedPreSessionBindsNothing(t *testing.T) {
	c := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1})
	planted := &http.Cookie{Name: "vitrine_pre", Value: "planted-by-a-sibling-domain-0123456789"}
	get := func() (csrf string, setsPre bool) {
		req, _ := http.NewRequest("GET", c.url+"/login", nil)
		req.AddCookie(planted)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		for _, ck := range res.Cookies() {
			setsPre = setsPre || ck.Name == "vitrine_pre"
		}
		return page{body: string(body)}.fields().Get("csrf"), setsPre
	}
	// The planter reads the page its cookie makes...
	csrf, replaced := get()
	if !replaced {
		t.Error("a pre-session value the server did not issue was taken back")
	}
	// ...and makes the victim's browser, which carries the same planted
	// cookie, post the sign-in form with the planter's credentials.
	form := url.Values{"csrf": {csrf}, "email": {"marina@mercadoverde.example"}, "password": {c.password("marina@mercadoverde.example")}, "next": {"/account"}}
	req, _ := http.NewRequest("POST", c.url+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(planted)
	res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a sign-in form bound to a planted cookie: %d, want 403", res.StatusCode)
	}
	// A value the server issued keeps working.
	b := newBrowser(t)
	p := b.do("GET", c.url+"/login", nil)
	again := b.do("GET", c.url+"/login", nil)
	if p.fields().Get("csrf") != again.fields().Get("csrf") || strings.Contains(again.header.Get("Set-Cookie"), "vitrine_pre") {
		t.Error("the server's own pre-session cookie is not taken back")
	}
}

// Growth: a user holds at most vitrine.MaxPersonalTokens usable personal
// tokens (each has its own rate limit); one revoked or expired makes room.
func TestPersonalTokensAreCapped(t *testing.T) {
	c := newClusterWith(t, dbtest.SQLiteURL(t), clusterConfig{instances: 1})
	op := c.svc.Accounts().Operator()
	email := "diego@technova.example"
	soon := time.Now().Add(time.Hour)
	made := 1 // the demo's
	for ; made < vitrine.MaxPersonalTokens-1; made++ {
		if _, _, err := op.CreateToken(ctx, accounts.NewToken{Email: email, Name: fmt.Sprintf("t%d", made), ExpiresAt: &soon}); err != nil {
			t.Fatal(err)
		}
	}
	b := signedIn(t, c, email, c.password(email))
	create := func() page {
		form := b.do("GET", c.url+"/account", nil).fields()
		form.Set("name", "from the page")
		return b.do("POST", c.url+"/account/tokens", form)
	}
	if p := create(); p.status != http.StatusOK || !strings.Contains(p.body, `id="new-token"`) {
		t.Fatalf("the %dth token: %d", vitrine.MaxPersonalTokens, p.status)
	}
	p := create()
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, "already has 100 personal tokens") {
		t.Errorf("one token past the cap: %d %s", p.status, p.body)
	}
	if _, _, err := op.CreateToken(ctx, accounts.NewToken{Email: email, Name: "cli"}); vitrine.TypeOf(err) != vitrine.ConflictError {
		t.Errorf("vitrine token create past the cap: %v", err)
	}
	tokens, _ := op.ListTokens(ctx, email)
	if _, err := op.RevokeToken(ctx, tokens[0].ID); err != nil {
		t.Fatal(err)
	}
	if p := create(); p.status != http.StatusOK {
		t.Errorf("after one was revoked: %d", p.status)
	}
}
