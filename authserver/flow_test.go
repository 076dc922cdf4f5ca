package authserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/authserver"
	"github.com/vitrine/vitrine/demo"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
	"golang.org/x/oauth2"
)

var ctx = context.Background()

const redirectURI = "http://127.0.0.1:9/callback"

// cluster is two instances of the server on one database, behind a proxy
// that sends each request to the other one: every step of a flow crosses
// instances.
type cluster struct {
	url string // the public URL: the proxy
	// backends are the instances' own URLs.
	backends []string
	// svc is the first instance's service (the operator's way in).
	svc   *service.Service
	world *demo.World
	log   *testkit.SyncBuffer
}

func newCluster(t *testing.T, dbURL string) *cluster {
	t.Helper()
	return newClusterWith(t, dbURL, clusterConfig{})
}

// clusterConfig is what a test changes of the cluster's instances.
type clusterConfig struct {
	// limits are the HTTP limits of each instance.
	limits httpserver.Limits
	// options, if set, changes the authorization server's options.
	options func(*authserver.Options)
	// instances is how many there are (default 2).
	instances int
	// wrap, if set, wraps each instance's handler (to watch it).
	wrap func(http.Handler) http.Handler
}

func newClusterWith(t *testing.T, dbURL string, cfg clusterConfig) *cluster {
	t.Helper()
	if cfg.instances == 0 {
		cfg.instances = 2
	}
	proxy := httptest.NewUnstartedServer(nil)
	public := "http://" + proxy.Listener.Addr().String()
	c := &cluster{url: public, log: &testkit.SyncBuffer{}}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the servers' log:\n%s", c.log.String())
		}
	})
	var backends []*url.URL
	for i := range cfg.instances {
		db := dbtest.Open(t, dbURL)
		svc := service.New(db, nil)
		if i == 0 {
			w, err := demo.Seed(ctx, svc)
			if err != nil {
				t.Fatal(err)
			}
			c.world, c.svc = w, svc
		}
		opts := authserver.Options{Issuer: public, Resource: public + "/mcp",
			InsecureClientMetadata: true, Logger: slog.New(slog.NewTextHandler(c.log, nil))}
		if cfg.options != nil {
			cfg.options(&opts)
		}
		as, err := authserver.New(ctx, svc.Accounts(), opts)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := mcpserver.New(svc, mcpserver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		web, err := httpserver.New(srv, svc, httpserver.Options{PublicURL: public, AuthorizationServer: as, Limits: cfg.limits}) // as vitrine serve serves it
		if err != nil {
			t.Fatal(err)
		}
		h := web.Handler()
		if cfg.wrap != nil {
			h = cfg.wrap(h)
		}
		hs := httptest.NewServer(h)
		t.Cleanup(hs.Close)
		u, _ := url.Parse(hs.URL)
		backends = append(backends, u)
		c.backends = append(c.backends, hs.URL)
	}
	var n atomic.Int64
	proxy.Config.Handler = &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(backends[n.Add(1)%int64(len(backends))])
		// A proxy that appends the peer to what the request says: tests
		// stand for clients behind another proxy by sending the header.
		r.Out.Header["X-Forwarded-For"] = r.In.Header["X-Forwarded-For"]
		r.SetXForwarded()
		r.Out.Host = r.In.Host
	}}
	proxy.Start()
	t.Cleanup(proxy.Close)
	return c
}

func (c *cluster) password(email string) string {
	for _, u := range c.world.Users {
		if u.Email == email {
			return u.Password
		}
	}
	panic(email)
}

// browser is a person's browser: cookies, and redirects shown, not followed.
type browser struct {
	t      *testing.T
	client *http.Client
	lang   string
}

func newBrowser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

type page struct {
	status   int
	location string
	body     string
	header   http.Header
}

func (b *browser) do(method, u string, form url.Values) page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, u, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if b.lang != "" {
		req.Header.Set("Accept-Language", b.lang)
	}
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	p := page{status: res.StatusCode, body: string(data), header: res.Header}
	if loc, err := res.Location(); err == nil {
		p.location = loc.String()
	}
	return p
}

var hiddenRE = regexp.MustCompile(`name="(csrf|authz|next|token)" value="([^"]*)"`)

// fields returns the hidden fields of a page's forms.
func (p page) fields() url.Values {
	v := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(p.body, -1) {
		v.Set(m[1], html.UnescapeString(m[2]))
	}
	return v
}

// signIn follows an authorization URL through sign-in to the consent page.
func (b *browser) signIn(c *cluster, authURL, email, password string) page {
	b.t.Helper()
	p := b.do("GET", authURL, nil)
	if p.status != 303 || !strings.Contains(p.location, "/login?next=") {
		b.t.Fatalf("authorize without a session: %d %s %s", p.status, p.location, p.body)
	}
	login := b.do("GET", p.location, nil)
	form := login.fields()
	form.Set("email", email)
	form.Set("password", password)
	p = b.do("POST", c.url+"/login", form)
	if p.status != 303 {
		b.t.Fatalf("sign-in: %d %s", p.status, p.body)
	}
	return b.do("GET", p.location, nil)
}

// checked returns the values of a page's ticked checkboxes named name.
func (p page) checked(name string) []string {
	var out []string
	for _, m := range checkedRE.FindAllStringSubmatch(p.body, -1) {
		if m[1] == name {
			out = append(out, m[2])
		}
	}
	return out
}

var checkedRE = regexp.MustCompile(`<input type="checkbox" id="[^"]*" name="([^"]+)" value="([^"]+)" checked>`)

// approve answers a consent page; scope is "write" or "read". The
// toolsets ticked are those the page ticks.
func (b *browser) answer(c *cluster, consent page, decision, scope string) *url.URL {
	b.t.Helper()
	return b.answerToolsets(c, consent, decision, scope, consent.checked("toolset"))
}

// answerToolsets answers a consent page with these toolsets ticked.
func (b *browser) answerToolsets(c *cluster, consent page, decision, scope string, toolsets []string) *url.URL {
	b.t.Helper()
	form := consent.fields()
	form.Set("decision", decision)
	form.Set("scope", scope)
	form["toolset"] = toolsets
	p := b.do("POST", c.url+"/oauth/authorize", form)
	if p.status != 303 || !strings.HasPrefix(p.location, redirectURI) {
		b.t.Fatalf("consent: %d %s %s", p.status, p.location, p.body)
	}
	u, _ := url.Parse(p.location)
	return u
}

// register makes a client through dynamic client registration.
func register(t *testing.T, c *cluster, meta map[string]any) string {
	t.Helper()
	body, _ := json.Marshal(meta)
	res, err := http.Post(c.url+"/oauth/register", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(res.Body).Decode(&out)
	if res.StatusCode != 201 || out.ClientID == "" {
		t.Fatalf("register: %d", res.StatusCode)
	}
	return out.ClientID
}

func oauthConfig(c *cluster, clientID string) *oauth2.Config {
	return &oauth2.Config{ClientID: clientID, RedirectURL: redirectURI, Scopes: []string{"vitrine:read", "vitrine:write"},
		Endpoint: oauth2.Endpoint{AuthURL: c.url + "/oauth/authorize", TokenURL: c.url + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}
}

// authorize runs a client's whole flow for a person, returning its tokens.
func authorize(t *testing.T, c *cluster, clientID, email, scope string) *oauth2.Token {
	t.Helper()
	return authorizeAsking(t, c, clientID, email, scope, nil, func(consent page) []string { return consent.checked("toolset") })
}

// authorizeAsking runs the flow of a client that asks for the scopes (nil:
// read and write), the person ticking the toolsets tick returns.
func authorizeAsking(t *testing.T, c *cluster, clientID, email, scope string, scopes []string, tick func(page) []string) *oauth2.Token {
	t.Helper()
	cfg := oauthConfig(c, clientID)
	if scopes != nil {
		cfg.Scopes = scopes
	}
	verifier := oauth2.GenerateVerifier()
	resource := oauth2.SetAuthURLParam("resource", c.url+"/mcp")
	b := newBrowser(t)
	consent := b.signIn(c, cfg.AuthCodeURL("state-123456", oauth2.S256ChallengeOption(verifier), resource), email, c.password(email))
	back := b.answerToolsets(c, consent, "approve", scope, tick(consent))
	if back.Query().Get("state") != "state-123456" {
		t.Fatalf("state: %s", back)
	}
	tok, err := cfg.Exchange(ctx, back.Query().Get("code"), oauth2.VerifierOption(verifier), resource)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// mcpCall calls a tool with an access token; it returns the HTTP status
// when the request is refused before any tool.
func mcpCall(t *testing.T, c *cluster, token, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: c.url + "/mcp", HTTPClient: testkit.BearerClient(token), MaxRetries: -1}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
}

// toolNames lists the tools an access token sees.
func toolNames(t *testing.T, c *cluster, token string) []string {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: c.url + "/mcp", HTTPClient: testkit.BearerClient(token), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func tenantID(c *cluster, slug string) string {
	for _, tn := range c.world.Tenants {
		if tn.Slug == slug {
			return tn.ID
		}
	}
	panic(slug)
}

func TestAuthorizationServer(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbURL string) {
		c := newCluster(t, dbURL)
		client := register(t, c, map[string]any{"client_name": "Test Agent", "redirect_uris": []string{redirectURI},
			"token_endpoint_auth_method": "none"})
		technova := tenantID(c, "technova")

		t.Run("a registered client connects and writes", func(t *testing.T) {
			tok := authorize(t, c, client, "ana@technova.example", "write")
			if !strings.HasPrefix(tok.AccessToken, "vtr_") || tok.RefreshToken == "" {
				t.Fatalf("tokens: %+v", tok)
			}
			res, err := mcpCall(t, c, tok.AccessToken, "create_product", map[string]any{"tenant_id": technova, "sku": "OAUTH-GO-1", "name": "Via OAuth", "price": "1.00"})
			if err != nil || res.IsError {
				t.Fatalf("create_product: %v %+v", err, res)
			}
		})

		t.Run("a read-only approval cannot write", func(t *testing.T) {
			tok := authorize(t, c, client, "ana@technova.example", "read")
			if res, err := mcpCall(t, c, tok.AccessToken, "list_tenants", nil); err != nil || res.IsError {
				t.Fatalf("list_tenants: %v %+v", err, res)
			}
			// Refused before it runs, so that the client asks for write.
			_, err := mcpCall(t, c, tok.AccessToken, "create_product", map[string]any{"tenant_id": technova, "sku": "OAUTH-GO-RO", "name": "No", "price": "1.00"})
			if err == nil || !strings.Contains(err.Error(), "Forbidden") {
				t.Fatalf("a read-only token wrote: %v", err)
			}
		})

		t.Run("toolsets are what the person ticks, the default ones ticked unless asked for others", func(t *testing.T) {
			var offered, asked []string
			tok := authorizeAsking(t, c, client, "ana@technova.example", "write", nil, func(p page) []string {
				offered = p.checked("toolset")
				return offered
			})
			if !slices.Equal(offered, []string{"tenants", "products"}) {
				t.Errorf("a client asking for read and write: the page ticks %v", offered)
			}
			if names := toolNames(t, c, tok.AccessToken); slices.Contains(names, "list_members") || !slices.Contains(names, "create_product") {
				t.Errorf("the default grant lists %v", names)
			}
			// A client stepping up asks for its grant and members.
			wider := []string{"vitrine:read", "vitrine:write", "vitrine:toolset:tenants", "vitrine:toolset:products", "vitrine:toolset:members"}
			tok = authorizeAsking(t, c, client, "ana@technova.example", "write", wider, func(p page) []string {
				asked = p.checked("toolset")
				return asked
			})
			if !slices.Equal(asked, []string{"tenants", "products", "members"}) {
				t.Errorf("a client asking for members: the page ticks %v", asked)
			}
			if names := toolNames(t, c, tok.AccessToken); !slices.Contains(names, "list_members") || slices.Contains(names, "list_roles") {
				t.Errorf("a grant of members lists %v", names)
			}
			// The person may grant fewer than asked.
			tok = authorizeAsking(t, c, client, "ana@technova.example", "read", wider, func(page) []string { return []string{"audit"} })
			if names := toolNames(t, c, tok.AccessToken); !slices.Equal(names, []string{"list_audit_events", "request_toolset"}) {
				t.Errorf("a read-only grant of audit alone lists %v", names)
			}
		})

		t.Run("a refresh token used twice revokes the whole grant", func(t *testing.T) {
			tok := authorize(t, c, client, "carla@technova.example", "write")
			cfg := oauthConfig(c, client)
			fresh, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
			if err != nil || fresh.RefreshToken == tok.RefreshToken {
				t.Fatalf("refresh: %v", err)
			}
			if _, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token(); err == nil {
				t.Fatal("a used refresh token refreshed again")
			}
			for name, at := range map[string]string{"the first access token": tok.AccessToken, "the refreshed one": fresh.AccessToken} {
				if _, err := mcpCall(t, c, at, "list_tenants", nil); !refused(err) {
					t.Errorf("%s after reuse: %v", name, err)
				}
			}
			if _, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: fresh.RefreshToken}).Token(); err == nil {
				t.Error("the refreshed refresh token still works after reuse")
			}
		})

		t.Run("a disconnected app is refused at its next request", func(t *testing.T) {
			tok := authorize(t, c, client, "diego@technova.example", "write")
			if _, err := mcpCall(t, c, tok.AccessToken, "list_tenants", nil); err != nil {
				t.Fatal(err)
			}
			b := newBrowser(t)
			p := b.do("GET", c.url+"/login?next=/account", nil)
			form := p.fields()
			form.Set("email", "diego@technova.example")
			form.Set("password", c.password("diego@technova.example"))
			b.do("POST", c.url+"/login", form)
			account := b.do("GET", c.url+"/account", nil)
			m := regexp.MustCompile(`action="/account/apps/([^/]+)/revoke"`).FindStringSubmatch(account.body)
			if m == nil || !strings.Contains(account.body, "Test Agent") {
				t.Fatalf("the account page lists no app: %s", account.body)
			}
			// Its token form speaks of a token's client, not of an app.
			if !strings.Contains(account.body, "A client using this token lists and calls only the tools of what you tick.") || strings.Contains(account.body, "The app lists") {
				t.Errorf("the account page's token form: %s", account.body)
			}
			if p := b.do("POST", c.url+"/account/apps/"+m[1]+"/revoke", account.fields()); p.status != 303 {
				t.Fatalf("disconnect: %d", p.status)
			}
			if _, err := mcpCall(t, c, tok.AccessToken, "list_tenants", nil); !refused(err) {
				t.Errorf("a disconnected app's token: %v", err)
			}
			if _, err := oauthConfig(c, client).TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token(); err == nil {
				t.Error("a disconnected app refreshed its token")
			}
		})

		t.Run("denial returns access_denied", func(t *testing.T) {
			cfg := oauthConfig(c, client)
			b := newBrowser(t)
			consent := b.signIn(c, cfg.AuthCodeURL("state-denied", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), "ana@technova.example", c.password("ana@technova.example"))
			back := b.answer(c, consent, "deny", "write")
			if back.Query().Get("error") != "access_denied" || back.Query().Get("code") != "" || back.Query().Get("state") != "state-denied" {
				t.Errorf("denied: %s", back)
			}
		})

		t.Run("a wrong password shows the page again and issues nothing", func(t *testing.T) {
			b := newBrowser(t)
			p := b.do("GET", c.url+"/login?next=/account", nil)
			form := p.fields()
			form.Set("email", "ana@technova.example")
			form.Set("password", "not the password")
			p = b.do("POST", c.url+"/login", form)
			if p.status != 401 || !strings.Contains(p.body, "The email or the password is wrong.") || strings.Contains(p.header.Get("Set-Cookie"), "vitrine_session") {
				t.Errorf("wrong password: %d %q %s", p.status, p.header.Get("Set-Cookie"), p.body)
			}
			form.Set("email", "nobody@nowhere.example")
			if q := b.do("POST", c.url+"/login", form); q.status != 401 || !strings.Contains(q.body, "The email or the password is wrong.") {
				t.Errorf("unknown email: %d", q.status)
			}
		})

		t.Run("a forged CSRF token is refused", func(t *testing.T) {
			b := newBrowser(t)
			p := b.do("GET", c.url+"/login", nil)
			form := p.fields()
			form.Set("email", "ana@technova.example")
			form.Set("password", c.password("ana@technova.example"))
			form.Set("csrf", "forged"+form.Get("csrf"))
			if p := b.do("POST", c.url+"/login", form); p.status != 403 {
				t.Errorf("a forged CSRF token: %d", p.status)
			}
			other := newBrowser(t) // another browser's token is no good here either
			form.Set("csrf", other.do("GET", c.url+"/login", nil).fields().Get("csrf"))
			if p := b.do("POST", c.url+"/login", form); p.status != 403 {
				t.Errorf("another browser's CSRF token: %d", p.status)
			}
		})

		t.Run("a client known by its metadata document", func(t *testing.T) {
			var docURL string
			doc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				json.NewEncoder(w).Encode(map[string]any{"client_id": docURL, "client_name": "Metadata Agent",
					"redirect_uris": []string{redirectURI}, "token_endpoint_auth_method": "none"})
			}))
			defer doc.Close()
			docURL = doc.URL + "/client.json"
			tok := authorize(t, c, docURL, "ana@technova.example", "write")
			if res, err := mcpCall(t, c, tok.AccessToken, "list_tenants", nil); err != nil || res.IsError {
				t.Fatalf("a metadata-document client: %v", err)
			}
		})

		t.Run("a redirect URI that was not registered is refused", func(t *testing.T) {
			cfg := oauthConfig(c, client)
			cfg.RedirectURL = "https://evil.example/callback"
			p := newBrowser(t).do("GET", cfg.AuthCodeURL("state-123456", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), nil)
			if p.status == 303 && strings.HasPrefix(p.location, "https://evil.example") {
				t.Errorf("redirected to an unregistered URI: %s", p.location)
			}
		})

		t.Run("state may be left out, but not be short", func(t *testing.T) {
			cfg := oauthConfig(c, client)
			verifier := oauth2.GenerateVerifier()
			b := newBrowser(t)
			consent := b.signIn(c, cfg.AuthCodeURL("", oauth2.S256ChallengeOption(verifier)), "ana@technova.example", c.password("ana@technova.example"))
			back := b.answer(c, consent, "approve", "read")
			if back.Query().Get("code") == "" || back.Query().Get("state") != "" {
				t.Errorf("no state: %s", back)
			}
			consent = b.do("GET", cfg.AuthCodeURL("", oauth2.S256ChallengeOption(verifier)), nil)
			if denied := b.answer(c, consent, "deny", "read"); denied.Query().Get("error") != "access_denied" || strings.Contains(denied.RawQuery, "no-state") {
				t.Errorf("no state, denied: %s", denied)
			}
			p := newBrowser(t).do("GET", cfg.AuthCodeURL("short", oauth2.S256ChallengeOption(verifier)), nil)
			if !refusedHere(p, "invalid_state") || !strings.Contains(p.body, "must be at least 8 characters") {
				t.Errorf("a short state: %d %s %s", p.status, p.location, p.body)
			}
		})

		t.Run("PKCE is required", func(t *testing.T) {
			p := newBrowser(t).do("GET", oauthConfig(c, client).AuthCodeURL("state-123456"), nil)
			if !refusedHere(p, "invalid_request") || !strings.Contains(p.body, "PKCE is required") {
				t.Errorf("no PKCE: %d %s", p.status, p.location)
			}
		})

		t.Run("tokens for another resource are refused", func(t *testing.T) {
			u := oauthConfig(c, client).AuthCodeURL("state-123456", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()),
				oauth2.SetAuthURLParam("resource", "https://elsewhere.example/mcp"))
			if p := newBrowser(t).do("GET", u, nil); !refusedHere(p, "invalid_request") {
				t.Errorf("another resource: %d %s", p.status, p.location)
			}
		})

		t.Run("the resource's metadata names this server", func(t *testing.T) {
			res, err := http.Get(c.url + "/.well-known/oauth-protected-resource/mcp")
			if err != nil {
				t.Fatal(err)
			}
			var meta struct {
				AuthorizationServers []string `json:"authorization_servers"`
			}
			json.NewDecoder(res.Body).Decode(&meta)
			res.Body.Close()
			if fmt.Sprint(meta.AuthorizationServers) != "["+c.url+"]" {
				t.Errorf("authorization_servers: %v", meta.AuthorizationServers)
			}
		})
	})
}

// refusedHere reports whether an authorization request was answered with
// a page of this server naming the error code, not a redirect anywhere.
func refusedHere(p page, code string) bool {
	return p.status == http.StatusBadRequest && p.location == "" && strings.Contains(p.body, code) &&
		strings.Contains(p.header.Get("Content-Type"), "text/html")
}

// refused reports whether a call was refused for its token (HTTP 401).
func refused(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "Unauthorized"))
}

// Anyone may register a client, but not without end: an address that
// registers many gets 429, and nothing more is stored.
func TestRegistrationIsLimited(t *testing.T) {
	c := newCluster(t, dbtest.SQLiteURL(t))
	body := `{"client_name":"Flood","redirect_uris":["` + redirectURI + `"],"token_endpoint_auth_method":"none"}`
	var codes []int
	for range 45 {
		res, err := http.Post(c.url+"/oauth/register", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		codes = append(codes, res.StatusCode)
	}
	// Two instances behind the proxy: each allows 20 from one address
	// (limits are per instance, as every limit of the server).
	created := 0
	for _, code := range codes {
		if code == 201 {
			created++
		} else if code != 429 {
			t.Fatalf("registration answered %d", code)
		}
	}
	if created != 40 {
		t.Errorf("%d of 45 registrations from one address went through, want 40", created)
	}
}
