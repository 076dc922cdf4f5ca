package httpserver_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/shopwindow"
)

// The shop windows as shoppers' agents meet them: through the handler
// stack `vitrine serve` mounts, anonymous, with an agent profile served by
// the test.

const shopDomain = "shops.test"

type shopWorld struct {
	*world
	hs *httptest.Server
	// profile is the URL of a valid agent profile; agent counts its
	// fetches.
	profile string
	agent   *httptest.Server
	fetches atomic.Int64
	metrics *prometheus.Registry
}

// agentProfiles serves agents' profiles: a valid one, and broken ones.
func (sw *shopWorld) agentProfiles(w http.ResponseWriter, r *http.Request) {
	sw.fetches.Add(1)
	caps := `{"dev.ucp.shopping.catalog.search":[{"version":"2026-04-08"}],"dev.ucp.shopping.catalog.lookup":[{"version":"2026-04-08"}]}`
	switch r.URL.Path {
	case "/agent.json":
		w.Header().Set("Cache-Control", "public, max-age=600")
		fmt.Fprintf(w, `{"ucp":{"version":"2026-04-08","services":{},"capabilities":%s,"payment_handlers":{}}}`, caps)
	case "/search-only.json":
		fmt.Fprint(w, `{"ucp":{"version":"2026-04-08","capabilities":{"dev.ucp.shopping.catalog.search":[{"version":"2026-04-08"}]}}}`)
	case "/old.json":
		fmt.Fprintf(w, `{"ucp":{"version":"2026-01-11","capabilities":%s}}`, caps)
	case "/malformed.json":
		fmt.Fprint(w, `<html>not a profile</html>`)
	default:
		http.Error(w, "gone", http.StatusInternalServerError)
	}
}

func newShopWorld(t *testing.T, url string, limits *shopwindow.Limits) *shopWorld {
	t.Helper()
	sw := &shopWorld{world: newWorld(t, url), metrics: prometheus.NewRegistry()}
	sw.agent = httptest.NewServer(http.HandlerFunc(sw.agentProfiles))
	t.Cleanup(sw.agent.Close)
	sw.profile = sw.agent.URL + "/agent.json"
	srv := sw.server(mcpserver.Options{})
	h := serveHTTP(t, sw.svc, srv, httpserver.Options{Logger: slog.New(slog.NewTextHandler(sw.log, nil)), PublicURL: "http://vitrine.test", Metrics: sw.metrics,
		Shop: &httpserver.Shop{Options: shopwindow.Options{ShopDomain: shopDomain, InsecureProfiles: true, Limits: limits}}})
	sw.hs = httptest.NewServer(h)
	t.Cleanup(sw.hs.Close)
	// The demo opens TechNova's window: each test opens what it needs.
	sw.setShop("technova", func(s *vitrine.Shop) { s.Open = false })
	return sw
}

// setShop changes a company's window as update_shop would.
func (sw *shopWorld) setShop(slug string, change func(*vitrine.Shop)) {
	sw.t.Helper()
	s, err := sw.db.Shop(ctx, sw.tenants[slug])
	if err != nil {
		sw.t.Fatal(err)
	}
	change(s)
	u, err := sw.db.UserByEmail(ctx, owner)
	if err != nil {
		sw.t.Fatal(err)
	}
	call := vitrine.Call{RequestID: vitrine.NewID(), Tool: "update_shop", At: vitrine.Now(), Reason: "update_shop"}
	s.UpdatedAt, s.UpdatedBy = vitrine.Now(), u.ID
	if err := sw.db.SaveShop(ctx, vitrine.Change{UserID: u.ID, Call: call, Reason: call.Reason}, s); err != nil {
		sw.t.Fatal(err)
	}
}

func (sw *shopWorld) open(slug string) {
	sw.setShop(slug, func(s *vitrine.Shop) { s.Open, s.ProductURL = true, "https://"+slug+".example/products/{handle}" })
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("not JSON (%d): %s", a.status, a.body)
	}
	return m
}

// do sends a request to the server, at host when given.
func (sw *shopWorld) do(method, host, path, body string, header map[string]string) answer {
	sw.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, sw.hs.URL+path, rd)
	if err != nil {
		sw.t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		sw.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, res.Header, b}
}

// rest calls a REST operation of a window with the valid profile.
func (sw *shopWorld) rest(slug, op, body string) answer {
	sw.t.Helper()
	return sw.do("POST", "", "/shops/"+slug+"/ucp/catalog/"+op, body, map[string]string{"UCP-Agent": `profile="` + sw.profile + `"`})
}

// ids are the ids and handles of a window's products in the answer.
func productsOf(t *testing.T, m map[string]any) []map[string]any {
	t.Helper()
	ps, _ := m["products"].([]any)
	out := make([]map[string]any, len(ps))
	for i, p := range ps {
		out[i] = p.(map[string]any)
	}
	return out
}

func titles(ps []map[string]any) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p["title"].(string))
	}
	return out
}

// A window is found only while open; closed or absent, every URL of it
// answers the same 404, which says nothing of whether the company exists.
func TestShopWindowOpenAndClosed(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		sw := newShopWorld(t, url, nil)
		paths := []string{"/.well-known/ucp", "/ucp/catalog/search", "/ucp/mcp", "/feeds/google.xml", "/", "/products/mouse-logitech-mx-master-3s", "/sitemap.xml", "/robots.txt"}
		notFound := sw.do("GET", "", "/shops/nobody/.well-known/ucp", "", nil)
		if notFound.status != 404 {
			t.Fatalf("an absent window: %d %s", notFound.status, notFound.body)
		}
		same := func(what string, a answer) {
			t.Helper()
			if a.status != 404 || !bytes.Equal(a.body, notFound.body) || a.header.Get("Content-Type") != notFound.header.Get("Content-Type") {
				t.Errorf("%s: %d %q, want the absent window's %q", what, a.status, a.body, notFound.body)
			}
		}
		for _, p := range paths {
			same("closed "+p, sw.do("GET", "", "/shops/technova"+p, "", nil))
			same("closed POST "+p, sw.do("POST", "", "/shops/technova"+p, `{}`, nil))
			same("absent "+p, sw.do("GET", "", "/shops/nobody"+p, "", nil))
		}
		// Saved with settings but closed: still absent.
		sw.setShop("technova", func(s *vitrine.Shop) { s.ProductURL = "https://technova.example/p/{handle}" })
		same("saved closed", sw.do("GET", "", "/shops/technova/.well-known/ucp", "", nil))

		sw.open("technova")
		res := sw.do("GET", "", "/shops/technova/.well-known/ucp", "", nil)
		if res.status != 200 || !strings.Contains(res.header.Get("Cache-Control"), "public") || res.header.Get("ETag") == "" {
			t.Fatalf("the open window's profile: %d %v %s", res.status, res.header, res.body)
		}
		var profile struct {
			UCP struct {
				Version  string
				Services map[string][]struct {
					Transport, Endpoint, Version string
				}
				Capabilities map[string][]struct{ Version string }
			}
		}
		json.Unmarshal(res.body, &profile)
		svc := profile.UCP.Services["dev.ucp.shopping"]
		if profile.UCP.Version != "2026-08-25" || len(svc) != 2 || svc[0].Endpoint != "http://vitrine.test/shops/technova/ucp/mcp" ||
			svc[1].Endpoint != "http://vitrine.test/shops/technova/ucp" || len(profile.UCP.Capabilities["dev.ucp.shopping.catalog.search"]) != 1 ||
			len(profile.UCP.Capabilities["dev.ucp.shopping.catalog.lookup"]) != 1 || len(profile.UCP.Capabilities) != 2 {
			t.Errorf("the profile: %s", res.body)
		}
		if again := sw.do("GET", "", "/shops/technova/.well-known/ucp", "", map[string]string{"If-None-Match": res.header.Get("ETag")}); again.status != 304 {
			t.Errorf("the profile again with its ETag: %d", again.status)
		}
		// Another company's stays closed.
		same("the other company", sw.do("GET", "", "/shops/mercado-verde/.well-known/ucp", "", nil))

		// Closed again: gone at once.
		sw.setShop("technova", func(s *vitrine.Shop) { s.Open = false })
		same("closed again", sw.do("GET", "", "/shops/technova/.well-known/ucp", "", nil))
	})
}

// Only active products of the window's company, and only their public
// fields: drafts, archived products and another company's products are
// never found, by search, by any identifier in a lookup, or by
// get_product; private attributes and exact stock stay out unless the
// company makes them public.
func TestShopWindowShowsOnlyWhatIsPublic(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		sw := newShopWorld(t, url, nil)
		sw.open("technova")
		sw.open("mercado-verde")

		search := sw.rest("technova", "search", `{"query":"cadeira"}`)
		if search.status != 200 || len(productsOf(t, search.json(t))) != 0 {
			t.Errorf("an archived product searched: %d %s", search.status, search.body)
		}
		search = sw.rest("technova", "search", `{"query":"bone"}`)
		if len(productsOf(t, search.json(t))) != 0 {
			t.Errorf("a draft searched: %s", search.body)
		}
		// Plurals and stop words as a shopper says them: the stems find the
		// published products, never the draft cap ("bonés").
		for q, want := range map[string]string{"camisetas": "Camiseta TechNova Dev", "teclados mecânicos": "Teclado Mecânico Keychron K2",
			"os fones de ouvido": "Fone de Ouvido JBL Tune 520BT", "bonés": "", "um boné para o sol": ""} {
			if got := titles(productsOf(t, sw.rest("technova", "search", `{"query":"`+q+`"}`).json(t))); strings.Join(got, ",") != want {
				t.Errorf("search %q: %v, want %q", q, got, want)
			}
		}
		if res := sw.rest("technova", "search", `{"query":"para o"}`); res.status != 400 || !strings.Contains(string(res.body), "only stop words") {
			t.Errorf("a query of stop words: %d %s", res.status, res.body)
		}
		search = sw.rest("technova", "search", `{"query":"logitech"}`)
		m := search.json(t)
		if got := titles(productsOf(t, m)); len(got) != 1 || got[0] != "Mouse Logitech MX Master 3S" {
			t.Errorf("search mouse: %v", got)
		}
		if search.header.Get("ETag") == "" || !strings.Contains(search.header.Get("Cache-Control"), "public") {
			t.Errorf("a search's cache headers: %v", search.header)
		}
		ucp := m["ucp"].(map[string]any)
		if ucp["version"] != "2026-04-08" || ucp["capabilities"].(map[string]any)["dev.ucp.shopping.catalog.search"] == nil {
			t.Errorf("the envelope: %v", ucp)
		}
		// Another company's products by their words: not in this window.
		if got := titles(productsOf(t, sw.rest("technova", "search", `{"query":"mel"}`).json(t))); len(got) != 0 {
			t.Errorf("mercado-verde's honey in technova's window: %v", got)
		}

		draft := sw.productID("technova", "BONE-TN")
		archived := sw.productID("technova", "CH-ERGO-01")
		other := sw.productID("mercado-verde", "FR-MACA-FUJI")
		otherDraft := sw.productID("mercado-verde", "KOMB-GENG")
		mouse := sw.productID("technova", "MS-LOGI-MX3S")
		otherVariant := func() string {
			p, _ := sw.db.ProductByID(ctx, sw.tenants["mercado-verde"], other)
			return p.Variants[0].ID
		}()
		ids := []string{draft, archived, other, otherDraft, otherVariant, "BONE-TN", "CH-ERGO-01", "FR-MACA-FUJI", "fr-maca-fuji",
			"maca-fuji-kg", "kombucha-de-gengibre-500-ml", "bone-technova-aba-curva", mouse, "../../mcp"}
		body, _ := json.Marshal(map[string]any{"ids": ids})
		look := sw.rest("technova", "lookup", string(body))
		m = look.json(t)
		ps := productsOf(t, m)
		if look.status != 200 || len(ps) != 1 || ps[0]["id"] != mouse {
			t.Errorf("lookup of hidden ids: %d %s", look.status, look.body)
		}
		if msgs, _ := m["messages"].([]any); len(msgs) != len(ids)-1 {
			t.Errorf("not_found messages: %d for %d hidden ids", len(msgs), len(ids)-1)
		}
		for _, id := range []string{draft, archived, other, otherVariant, "FR-MACA-FUJI", "maca-fuji-kg"} {
			res := sw.rest("technova", "product", `{"id":"`+id+`"}`)
			m := res.json(t)
			if res.status != 200 || m["product"] != nil || m["ucp"].(map[string]any)["status"] != "error" {
				t.Errorf("get_product %s: %d %s", id, res.status, res.body)
			}
		}

		// Private attributes stay out; a public one shows; exact stock only
		// when the window discloses it.
		res := sw.rest("technova", "product", `{"id":"`+mouse+`"}`)
		if strings.Contains(string(res.body), "garantia_meses") || strings.Contains(string(res.body), "inventory_quantity") {
			t.Errorf("private attribute or stock shown: %s", res.body)
		}
		attrs, _ := sw.db.Attributes(ctx, sw.tenants["technova"])
		for _, a := range attrs {
			if a.Key == "garantia_meses" {
				a.Public = true
				u, _ := sw.db.UserByEmail(ctx, owner)
				call := vitrine.Call{RequestID: vitrine.NewID(), Tool: "save_attribute", At: vitrine.Now()}
				if err := sw.db.SaveAttribute(ctx, vitrine.Change{UserID: u.ID, Call: call}, a, true); err != nil {
					t.Fatal(err)
				}
			}
		}
		sw.setShop("technova", func(s *vitrine.Shop) { s.Stock = vitrine.StockExact })
		res = sw.rest("technova", "product", `{"id":"`+mouse+`"}`)
		if !strings.Contains(string(res.body), `"garantia_meses":12`) || strings.Contains(string(res.body), "sem_fio") ||
			!strings.Contains(string(res.body), `"inventory_quantity"`) {
			t.Errorf("public attribute and exact stock: %s", res.body)
		}
	})
}

// Nothing of the admin side is reachable under a window's URLs: not the
// MCP endpoint's admin tools, nor OAuth, nor the demo's pages, nor by
// path traversal; /mcp stays as it was (a token needed).
func TestShopWindowReachesNoAdmin(t *testing.T) {
	sw := newShopWorld(t, dbtest.SQLiteURL(t), nil)
	sw.open("technova")
	absent := sw.do("GET", "", "/shops/nobody/x", "", nil)
	for _, p := range []string{"/mcp", "/oauth/authorize", "/authorize", "/token", "/account", "/.well-known/oauth-protected-resource",
		"/.well-known/oauth-authorization-server", "/metrics", "/healthz", "/icons/x.svg", "/ucp/mcp/../../mcp", "/ucp/../mcp",
		"/%2e%2e/mcp", "/ucp/catalog/../../../mcp", "/ucp/catalog", "/ucp/catalog/list_products", "/feeds/../../mcp", "/ucp/mcp/x"} {
		for _, method := range []string{"GET", "POST"} {
			res := sw.do(method, "", "/shops/technova"+p, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
				map[string]string{"Authorization": "Bearer " + sw.tokens[owner], "Accept": "application/json, text/event-stream"})
			if res.status != 404 || !bytes.Equal(res.body, absent.body) {
				t.Errorf("%s /shops/technova%s: %d %s", method, p, res.status, res.body)
			}
		}
	}
	// The window's MCP endpoint lists the three catalog tools, whatever
	// token comes with the request.
	res := sw.do("POST", "", "/shops/technova/ucp/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
		map[string]string{"Authorization": "Bearer " + sw.tokens[owner], "Accept": "application/json, text/event-stream",
			"Mcp-Protocol-Version": "2025-11-25"})
	var list struct {
		Result struct {
			Tools      []struct{ Name string }
			TTLMs      int    `json:"ttlMs"`
			CacheScope string `json:"cacheScope"`
		}
	}
	json.Unmarshal(res.body, &list)
	var names []string
	for _, tl := range list.Result.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "get_product,lookup_catalog,search_catalog" || list.Result.CacheScope != "public" || list.Result.TTLMs <= 0 {
		t.Errorf("the window's tools/list: %d %s", res.status, res.body)
	}
	// /mcp unchanged: no token, 401.
	if res := sw.do("POST", "", "/mcp", initialize, map[string]string{"Accept": "application/json, text/event-stream"}); res.status != 401 {
		t.Errorf("/mcp without a token: %d", res.status)
	}
}

// The Host header decides: {slug}.{shop domain} and a company's own
// domain serve its window at their root; a host that is neither the
// server's own nor a known domain is not found.
func TestShopWindowHosts(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		sw := newShopWorld(t, url, nil)
		sw.open("technova")
		sw.setShop("technova", func(s *vitrine.Shop) { s.Domain = "loja.technova.example" })
		for host, root := range map[string]string{
			"technova." + shopDomain:       "http://technova." + shopDomain,
			"TechNova." + shopDomain + ".": "http://technova." + shopDomain,
			"loja.technova.example":        "http://loja.technova.example",
			// The scheme and port are the public URL's, never the
			// Host's: the profile is cacheable by anyone.
			"loja.technova.example:8443":    "http://loja.technova.example",
			"technova." + shopDomain + ":1": "http://technova." + shopDomain,
		} {
			res := sw.do("GET", host, "/.well-known/ucp", "", nil)
			if res.status != 200 {
				t.Errorf("%s: %d %s", host, res.status, res.body)
				continue
			}
			if strings.Contains(string(res.body), ":8443") || strings.Contains(string(res.body), ":1/") || res.header.Get("Vary") != "" {
				t.Errorf("%s's profile echoes the Host's port: %v %s", host, res.header, res.body)
			}
			if !strings.Contains(string(res.body), `"endpoint":"`+root+`/ucp/mcp"`) || !strings.Contains(string(res.body), `"endpoint":"`+root+`/ucp"`) {
				t.Errorf("%s's profile names: %s", host, res.body)
			}
		}
		// Its MCP endpoint at those hosts, on this loopback listener too.
		for _, host := range []string{"technova." + shopDomain, "loja.technova.example"} {
			res := sw.do("POST", host, "/ucp/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
				map[string]string{"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-11-25"})
			if res.status != 200 || !strings.Contains(string(res.body), "search_catalog") {
				t.Errorf("MCP at %s: %d %s", host, res.status, res.body)
			}
		}
		// By path, the window's root names the company's slug as stored.
		if res := sw.do("GET", "", "/shops/technova/.well-known/ucp", "", nil); !strings.Contains(string(res.body), `"endpoint":"http://vitrine.test/shops/technova/ucp"`) {
			t.Errorf("the profile by path: %s", res.body)
		}
		absent := sw.do("GET", "", "/shops/nobody/.well-known/ucp", "", nil)
		for _, c := range []struct{ host, path string }{
			{"mercado-verde." + shopDomain, "/.well-known/ucp"}, // closed
			{"nobody." + shopDomain, "/.well-known/ucp"},
			{"a.technova." + shopDomain, "/.well-known/ucp"},
			{"unknown.example", "/.well-known/ucp"},
			{"unknown.example", "/mcp"},
			{"unknown.example", "/healthz"},
			{"loja.technova.example", "/mcp"},
			{"technova." + shopDomain, "/mcp"},
			{"technova." + shopDomain, "/shops/technova/.well-known/ucp"},
		} {
			if res := sw.do("GET", c.host, c.path, "", nil); res.status != 404 || !bytes.Equal(res.body, absent.body) {
				t.Errorf("%s%s: %d %s", c.host, c.path, res.status, res.body)
			}
		}
		// The server's own host and an address still serve the rest.
		for _, host := range []string{"vitrine.test", ""} {
			if res := sw.do("GET", host, "/healthz", "", nil); res.status != 200 {
				t.Errorf("/healthz at %q: %d", host, res.status)
			}
		}
	})
}

// A window's URLs take their scheme and port from --public-url, whatever
// port the Host names; without a public URL they are the request's own,
// and every answer that names them varies by Host.
func TestShopWindowURLsFromConfiguration(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	serve := func(publicURL string) *httptest.Server {
		hs := httptest.NewServer(serveHTTP(t, w.svc, w.server(mcpserver.Options{}), httpserver.Options{PublicURL: publicURL,
			Shop: &httpserver.Shop{Options: shopwindow.Options{ShopDomain: shopDomain, InsecureProfiles: true}}}))
		t.Cleanup(hs.Close)
		return hs
	}
	get := func(hs *httptest.Server, host, path string) answer {
		req, _ := http.NewRequest("GET", hs.URL+path, nil)
		req.Host = host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return answer{res.StatusCode, res.Header, b}
	}
	// The demo opens TechNova's window.
	withPort := serve("https://vitrine.example:8443")
	for _, host := range []string{"technova." + shopDomain, "technova." + shopDomain + ":1", "technova." + shopDomain + ":443"} {
		res := get(withPort, host, "/.well-known/ucp")
		if res.status != 200 || !strings.Contains(string(res.body), `"endpoint":"https://technova.`+shopDomain+`:8443/ucp/mcp"`) || res.header.Get("Vary") != "" {
			t.Errorf("Host %s, public URL with a port: %d %v %s", host, res.status, res.header, res.body)
		}
	}
	if res := get(withPort, "vitrine.example:1", "/shops/technova/.well-known/ucp"); !strings.Contains(string(res.body), `"endpoint":"https://vitrine.example:8443/shops/technova/ucp/mcp"`) {
		t.Errorf("by path, Host with another port: %s", res.body)
	}
	// Without a public URL (beyond loopback, no --public-url), the URLs
	// are the request's: a cache keeps them apart by the whole Host.
	bare := serve("")
	for _, path := range []string{"/shops/technova/.well-known/ucp", "/shops/technova/feeds/google.xml"} {
		res := get(bare, "198.51.100.1:1", path)
		if res.status != 200 || !slices.Contains(res.header.Values("Vary"), "Host") {
			t.Errorf("%s without a public URL: %d, Vary %q", path, res.status, res.header.Values("Vary"))
		}
	}
	res := get(bare, "198.51.100.1:1", "/shops/technova/.well-known/ucp")
	if !strings.Contains(string(res.body), `"endpoint":"http://198.51.100.1:1/shops/technova/ucp/mcp"`) {
		t.Errorf("the profile without a public URL: %s", res.body)
	}
}

// Agents' profiles are negotiated as UCP says: none, a bad URL, one that
// cannot be fetched, one that is not a profile, another version, each
// refused with its code and status (REST) or -32001 (MCP); an agent
// without the capability gets the incompatible outcome; a good profile is
// fetched once and kept.
func TestShopWindowAgentProfiles(t *testing.T) {
	sw := newShopWorld(t, dbtest.SQLiteURL(t), nil)
	sw.open("technova")
	for _, c := range []struct {
		header string
		status int
		code   string
	}{
		{"", 400, "invalid_profile_url"},
		{`profile="ftp://agent.example/p.json"`, 400, "invalid_profile_url"},
		{`profile=nonsense`, 400, "invalid_profile_url"},
		{`profile="` + sw.agent.URL + `/gone.json"`, 424, "profile_unreachable"},
		{`profile="` + sw.agent.URL + `/malformed.json"`, 422, "profile_malformed"},
		{`profile="` + sw.agent.URL + `/old.json"`, 422, "version_unsupported"},
	} {
		res := sw.do("POST", "", "/shops/technova/ucp/catalog/search", `{"query":"mouse"}`, map[string]string{"UCP-Agent": c.header})
		m := res.json(t)
		if res.status != c.status || m["code"] != c.code {
			t.Errorf("UCP-Agent %q: %d %s", c.header, res.status, res.body)
		}
		// Where the buyer may go on, as UCP asks of a failed negotiation:
		// the storefront's home page.
		if m["continue_url"] != "https://technova.example/" {
			t.Errorf("UCP-Agent %q: continue_url in %s", c.header, res.body)
		}
	}
	res := sw.do("POST", "", "/shops/technova/ucp/catalog/lookup", `{"ids":["x"]}`, map[string]string{"UCP-Agent": `profile="` + sw.agent.URL + `/search-only.json"`})
	if m := res.json(t); res.status != 200 || m["ucp"].(map[string]any)["status"] != "error" || !strings.Contains(string(res.body), "capabilities_incompatible") {
		t.Errorf("an agent without lookup: %d %s", res.status, res.body)
	}
	if !strings.Contains(string(res.body), `"continue_url":"https://technova.example/"`) {
		t.Errorf("an agent without lookup is not told where to go on: %s", res.body)
	}
	before := sw.fetches.Load()
	for range 3 {
		sw.rest("technova", "search", `{"query":"mouse"}`)
	}
	if n := sw.fetches.Load() - before; n != 1 {
		t.Errorf("a good profile fetched %d times for 3 requests", n)
	}
	// Over MCP: -32001, UCP's code in the error's data.
	rpc := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_catalog","arguments":{"meta":{"ucp-agent":{"profile":"` +
		sw.agent.URL + `/malformed.json"}},"catalog":{"query":"mouse"}}}}`
	res = sw.do("POST", "", "/shops/technova/ucp/mcp", rpc, map[string]string{"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-11-25"})
	if !strings.Contains(string(res.body), `"code":-32001`) || !strings.Contains(string(res.body), "profile_malformed") {
		t.Errorf("MCP with a malformed profile: %d %s", res.status, res.body)
	}
	if !strings.Contains(string(res.body), `continue_url`) {
		t.Errorf("MCP with a malformed profile is not told where to go on: %s", res.body)
	}
}

// A scraper sending requests as fast as it can from one address is held
// back with 429 and Retry-After; the profile's own limit likewise.
func TestShopWindowRateLimits(t *testing.T) {
	sw := newShopWorld(t, dbtest.SQLiteURL(t), &shopwindow.Limits{AddrRate: 1, AddrBurst: 5, MaxBodyBytes: 64 << 10})
	sw.open("technova")
	var codes []int
	for range 8 {
		codes = append(codes, sw.rest("technova", "search", `{"query":"mouse"}`).status)
	}
	if codes[0] != 200 || codes[len(codes)-1] != 429 {
		t.Errorf("statuses of a burst past the limit: %v", codes)
	}
	res := sw.rest("technova", "search", `{"query":"mouse"}`)
	if res.status != 429 || res.header.Get("Retry-After") == "" {
		t.Errorf("past the limit: %d %v", res.status, res.header)
	}

	sw2 := newShopWorld(t, dbtest.SQLiteURL(t), &shopwindow.Limits{ProfileRate: 1, ProfileBurst: 2, MaxBodyBytes: 64 << 10})
	sw2.open("technova")
	codes = nil
	for range 4 {
		codes = append(codes, sw2.rest("technova", "search", `{"query":"mouse"}`).status)
	}
	if fmt.Sprint(codes) != "[200 200 429 429]" {
		t.Errorf("statuses past a profile's limit: %v", codes)
	}
	// Over MCP too: 429, UCP's -32000 with retry_after, before the SDK.
	rpc := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_catalog","arguments":{"meta":{"ucp-agent":{"profile":"` +
		sw2.profile + `"}},"catalog":{"query":"mouse"}}}}`
	res = sw2.do("POST", "", "/shops/technova/ucp/mcp", rpc, map[string]string{"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-11-25"})
	if res.status != 429 || res.header.Get("Retry-After") == "" || !strings.Contains(string(res.body), `"code":-32000`) ||
		!strings.Contains(string(res.body), `"id":7`) || !strings.Contains(string(res.body), `"retry_after"`) {
		t.Errorf("MCP past a profile's limit: %d %s", res.status, res.body)
	}
}

// The official Go SDK client, anonymous, on both revisions: the three
// tools, structured answers with the text mirror, pagination, lookup of
// many ids with inputs, get_product with selections, a missing product as
// UCP's application outcome.
func TestShopWindowOverMCP(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		sw := newShopWorld(t, url, nil)
		sw.open("technova")
		for _, rev := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(rev, func(t *testing.T) {
				client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
				cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: sw.hs.URL + "/shops/technova/ucp/mcp"},
					&mcp.ClientSessionOptions{ProtocolVersion: rev})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				tools, err := cs.ListTools(ctx, nil)
				if err != nil || len(tools.Tools) != 3 {
					t.Fatalf("tools: %v %v", tools, err)
				}
				call := func(name string, catalog map[string]any) map[string]any {
					t.Helper()
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{
						"meta": map[string]any{"ucp-agent": map[string]any{"profile": sw.profile}}, "catalog": catalog}})
					if err != nil || res.IsError {
						t.Fatalf("%s: %v %v", name, res, err)
					}
					var m map[string]any
					b, _ := json.Marshal(res.StructuredContent)
					json.Unmarshal(b, &m)
					if text := res.Content[0].(*mcp.TextContent).Text; !bytesJSONEqual([]byte(text), b) {
						t.Errorf("%s: the text mirror differs from structuredContent", name)
					}
					return m
				}
				page := call("search_catalog", map[string]any{"query": "technova", "pagination": map[string]any{"limit": 1}})
				pg := page["pagination"].(map[string]any)
				if len(productsOf(t, page)) != 1 || pg["has_next_page"] != true || pg["cursor"] == "" {
					t.Fatalf("first page: %v", page)
				}
				next := call("search_catalog", map[string]any{"query": "technova", "pagination": map[string]any{"limit": 1, "cursor": pg["cursor"]}})
				if ps := productsOf(t, next); len(ps) != 1 || ps[0]["id"] == productsOf(t, page)[0]["id"] {
					t.Errorf("second page: %v", next)
				}
				// Price filter, in minor units.
				cheap := call("search_catalog", map[string]any{"filters": map[string]any{"price": map[string]any{"max": 10000}}})
				for _, p := range productsOf(t, cheap) {
					if min := p["price_range"].(map[string]any)["min"].(map[string]any)["amount"].(float64); min > 10000 {
						t.Errorf("a product above the filter: %v", p["title"])
					}
				}

				ids := []string{"NB-DELL-5440", "MS-LOGI-MX3S", "MN-LG-29WQ600", "KB-KEYC-K2", "HS-JBL-T520", "MP-RD-M", "MP-RD-G", "MP-RD-XG"}
				ids = append(ids, sw.productID("technova", "NB-DELL-5440"), "mousepad-speed-redragon", "camiseta-technova-dev", "missing-one")
				look := call("lookup_catalog", map[string]any{"ids": ids})
				ps := productsOf(t, look)
				if len(ps) != 7 {
					t.Errorf("lookup of %d ids: %d products: %v", len(ids), len(ps), titles(ps))
				}
				for _, p := range ps {
					for _, v := range p["variants"].([]any) {
						if len(v.(map[string]any)["inputs"].([]any)) == 0 {
							t.Errorf("a variant without inputs: %v", v)
						}
					}
					if p["title"] == "Mousepad Speed Redragon" && len(p["variants"].([]any)) != 3 {
						t.Errorf("the mousepad's variants by SKU: %v", p["variants"])
					}
				}
				var many []string
				for i := range 51 {
					many = append(many, fmt.Sprintf("id-%d", i))
				}
				_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup_catalog", Arguments: map[string]any{
					"meta": map[string]any{"ucp-agent": map[string]any{"profile": sw.profile}}, "catalog": map[string]any{"ids": many}}})
				if err == nil || !strings.Contains(err.Error(), "at most 50") {
					t.Errorf("a batch past the limit: %v", err)
				}

				pad := sw.productID("technova", "MP-RD-M")
				got := call("get_product", map[string]any{"id": pad, "selected": []any{map[string]any{"name": "Tamanho", "label": "XG (90 × 42 cm)"}}})
				prod := got["product"].(map[string]any)
				vs := prod["variants"].([]any)
				first := vs[0].(map[string]any)
				if first["sku"] != "MP-RD-XG" || first["availability"].(map[string]any)["available"] != false {
					t.Errorf("get_product with XG selected: %v", first)
				}
				if sel := prod["selected"].([]any); len(sel) != 1 {
					t.Errorf("selected: %v", sel)
				}
				missing := call("get_product", map[string]any{"id": vitrine.NewID()})
				if missing["ucp"].(map[string]any)["status"] != "error" || missing["product"] != nil {
					t.Errorf("a missing product: %v", missing)
				}
			})
		}
	})
}

func bytesJSONEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// The feeds are served under each open window: parsed as what they say
// they are, drafts and another company's products never in them, 304
// when unchanged, and gone when the window closes.
func TestShopWindowFeeds(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		sw := newShopWorld(t, url, nil)
		sw.open("technova")
		google := sw.do("GET", "", "/shops/technova/feeds/google.xml", "", nil)
		if google.status != 200 || google.header.Get("ETag") == "" {
			t.Fatalf("google feed: %d %v", google.status, google.header)
		}
		var rss struct {
			Items []struct {
				ID    string `xml:"http://base.google.com/ns/1.0 id"`
				Group string `xml:"http://base.google.com/ns/1.0 item_group_id"`
			} `xml:"channel>item"`
		}
		if err := xml.Unmarshal(google.body, &rss); err != nil || len(rss.Items) == 0 {
			t.Fatalf("google feed parsed: %v, %d items", err, len(rss.Items))
		}
		hidden := map[string]bool{sw.productID("technova", "BONE-TN"): true, sw.productID("technova", "CH-ERGO-01"): true,
			sw.productID("mercado-verde", "FR-MACA-FUJI"): true}
		for _, it := range rss.Items {
			if hidden[it.Group] {
				t.Errorf("a hidden product in the feed: %s", it.Group)
			}
		}
		// Never a date after the answer's own (RFC 9110, 8.8.2.1).
		notAfterDate := func(what string, h http.Header) {
			t.Helper()
			date, err := http.ParseTime(h.Get("Date"))
			if err != nil {
				t.Fatalf("%s: Date %q: %v", what, h.Get("Date"), err)
			}
			if lm := h.Get("Last-Modified"); lm != "" {
				if m, err := http.ParseTime(lm); err != nil || m.After(date) {
					t.Errorf("%s: Last-Modified %s after Date %s", what, lm, h.Get("Date"))
				}
			}
		}
		notAfterDate("the first feed", google.header)
		if again := sw.do("GET", "", "/shops/technova/feeds/google.xml", "", map[string]string{"If-None-Match": google.header.Get("ETag")}); again.status != 304 {
			t.Errorf("the unchanged feed again: %d", again.status)
		}
		modified := google.header.Get("Last-Modified")
		if again := sw.do("GET", "", "/shops/technova/feeds/google.xml", "", map[string]string{"If-Modified-Since": modified}); modified == "" || again.status != 304 {
			t.Errorf("the unchanged feed since %q: %d", modified, again.status)
		}
		// A change moves the stamp: the feed is sent again, with a later date.
		sw.setShop("technova", func(s *vitrine.Shop) { s.Country = "PT" })
		changed := sw.do("GET", "", "/shops/technova/feeds/google.xml", "", map[string]string{"If-None-Match": google.header.Get("ETag"), "If-Modified-Since": modified})
		if changed.status != 200 || changed.header.Get("ETag") == google.header.Get("ETag") {
			t.Errorf("the feed after a change: %d, ETag %s", changed.status, changed.header.Get("ETag"))
		}
		notAfterDate("the changed feed", changed.header)
		if again := sw.do("GET", "", "/shops/technova/feeds/google.xml", "", map[string]string{"If-Modified-Since": modified}); again.status != 200 {
			t.Errorf("the changed feed since the old date %q: %d", modified, again.status)
		}
		openai := sw.do("GET", "", "/shops/technova/feeds/openai.jsonl.gz", "", nil)
		zr, err := gzip.NewReader(bytes.NewReader(openai.body))
		if openai.status != 200 || err != nil {
			t.Fatalf("openai feed: %d %v", openai.status, err)
		}
		lines, _ := io.ReadAll(zr)
		for _, line := range bytes.Split(bytes.TrimSpace(lines), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var item map[string]any
			if err := json.Unmarshal(line, &item); err != nil {
				t.Fatalf("openai feed line %q: %v", line, err)
			}
			for _, id := range []string{"item_group_id", "group_id", "id"} {
				if g, _ := item[id].(string); hidden[g] {
					t.Errorf("a hidden product in openai's feed: %s", line)
				}
			}
		}
		sw.setShop("technova", func(s *vitrine.Shop) { s.Open = false })
		if res := sw.do("GET", "", "/shops/technova/feeds/google.xml", "", nil); res.status != 404 {
			t.Errorf("the feed of a closed window: %d", res.status)
		}
	})
}

// Public reads are counted by company, operation and outcome, and not
// written to the audit log one by one.
func TestShopWindowCountsReads(t *testing.T) {
	sw := newShopWorld(t, dbtest.SQLiteURL(t), nil)
	sw.open("technova")
	before, err := sw.db.ListAudit(ctx, sw.tenants["technova"], vitrine.AuditFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	sw.rest("technova", "search", `{"query":"logitech"}`)
	sw.rest("technova", "search", `{"query":"dell"}`)
	sw.rest("technova", "product", `{"id":"no-such-product"}`)
	sw.rest("technova", "lookup", `{"ids":[]}`)
	want := `
# HELP vitrine_shop_requests_total Requests to shop windows, by company (slug), operation (profile, search, lookup, product, google, openai) and outcome (ok, not_found, not_modified, or a UCP error code).
# TYPE vitrine_shop_requests_total counter
vitrine_shop_requests_total{operation="lookup",outcome="invalid_request",shop="technova"} 1
vitrine_shop_requests_total{operation="product",outcome="not_found",shop="technova"} 1
vitrine_shop_requests_total{operation="search",outcome="ok",shop="technova"} 2
`
	if err := testutil.GatherAndCompare(sw.metrics, strings.NewReader(want), "vitrine_shop_requests_total"); err != nil {
		t.Error(err)
	}
	sw.svc.Audit().Flush(ctx)
	after, err := sw.db.ListAudit(ctx, sw.tenants["technova"], vitrine.AuditFilter{Limit: 100})
	if err != nil || len(after) != len(before) {
		t.Errorf("the audit log grew with public reads: %d events, then %d (%v)", len(before), len(after), err)
	}
}

// A window opened or closed through one instance is so at the next
// request of another: nothing about a window is kept between requests.
func TestShopWindowAcrossInstances(t *testing.T) {
	sw := newShopWorld(t, dbtest.SQLiteURL(t), nil)
	other := httptest.NewServer(serveHTTP(t, sw.svc, sw.server(mcpserver.Options{}), httpserver.Options{PublicURL: "http://vitrine.test",
		Shop: &httpserver.Shop{Options: shopwindow.Options{InsecureProfiles: true}}}))
	defer other.Close()
	status := func(base string) int {
		res, err := http.Get(base + "/shops/technova/.well-known/ucp")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, open := range []bool{true, false, true} {
		sw.setShop("technova", func(s *vitrine.Shop) { s.Open = open })
		want := map[bool]int{true: 200, false: 404}[open]
		if a, b := status(sw.hs.URL), status(other.URL); a != want || b != want {
			t.Errorf("open %v: %d and %d, want %d on both", open, a, b, want)
		}
	}
}

// Requests are bounded: a body past 64 KiB, a lookup of thousands of ids,
// a forged cursor are refused at once with UCP's codes; a page size past
// the maximum is clamped, as UCP allows.
func TestShopWindowBoundsRequests(t *testing.T) {
	sw := newShopWorld(t, dbtest.SQLiteURL(t), nil)
	sw.open("technova")
	big := `{"query":"` + strings.Repeat("a ", 40<<10) + `"}`
	if res := sw.rest("technova", "search", big); res.status != 413 || res.json(t)["code"] != "request_too_large" {
		t.Errorf("a body past the bound: %d %s", res.status, res.body)
	}
	ids := make([]string, 3000)
	for i := range ids {
		ids[i] = fmt.Sprintf("i%d", i)
	}
	body, _ := json.Marshal(map[string]any{"ids": ids})
	if res := sw.rest("technova", "lookup", string(body)); res.status != 400 || res.json(t)["code"] != "request_too_large" {
		t.Errorf("a lookup of 3,000 ids: %d %s", res.status, res.body)
	}
	if res := sw.rest("technova", "search", `{"query":"technova","pagination":{"cursor":"forged"}}`); res.status != 400 || res.json(t)["code"] != "invalid_request" {
		t.Errorf("a forged cursor: %d %s", res.status, res.body)
	}
	if res := sw.rest("technova", "search", `{"filters":{"price":{"min":0}},"pagination":{"limit":100000}}`); res.status != 200 {
		t.Errorf("a page size past the maximum: %d %s", res.status, res.body)
	} else if ps := productsOf(t, res.json(t)); len(ps) == 0 || len(ps) > 50 {
		t.Errorf("a clamped page: %d products", len(ps))
	}
	for _, bad := range []string{`{}`, `{"query":"   "}`, `{"query":42}`, `not json`, `{"filters":{"price":{"min":-1}}}`} {
		if res := sw.rest("technova", "search", bad); res.status != 400 || res.json(t)["code"] != "invalid_request" {
			t.Errorf("search %s: %d %s", bad, res.status, res.body)
		}
	}
}

// A description's HTML is bounded in the window's answers as its text is
// (5,000 characters of text, 10,000 of HTML in all), cut where an element
// or a word ends, still well-formed: by REST and MCP, one product and a
// lookup of several.
func TestShopWindowBoundsDescriptions(t *testing.T) {
	sw := newShopWorld(t, dbtest.SQLiteURL(t), nil)
	sw.open("technova")
	var html strings.Builder
	for i := 0; html.Len() < 62000; i++ {
		fmt.Fprintf(&html, `<h2>Parte %d</h2><p>Algodão <strong>penteado</strong> &amp; <em>fio 30</em>, <a href="https://technova.example/cuidados/%d">cuidados</a>.</p><ul><li>Lavar a frio</li><li>Não passar</li></ul>`, i, i)
	}
	mouse := sw.productID("technova", "MS-LOGI-MX3S")
	cs := connectTo(t, sw.hs.URL, sw.tokens[owner])
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "update_product", Arguments: map[string]any{
		"tenant_id": sw.tenants["technova"], "id": mouse, "description": html.String()}})
	if err != nil || res.IsError {
		t.Fatalf("update_product: %v %v", err, res)
	}
	check := func(what string, d map[string]any) {
		t.Helper()
		h, _ := d["html"].(string)
		plain, _ := d["plain"].(string)
		if n := utf8.RuneCountInString(h); n < 9000 || n > 10000 || !strings.Contains(h, "…") {
			t.Errorf("%s: description.html of %d characters ends %q", what, n, h[max(len(h)-60, 0):])
		}
		if n := utf8.RuneCountInString(plain); n == 0 || n > 5000 {
			t.Errorf("%s: description.plain of %d characters", what, n)
		}
		if strings.Count(h, "<ul>") != strings.Count(h, "</ul>") || strings.Count(h, "<p>") != strings.Count(h, "</p>") ||
			strings.Count(h, "<a ") != strings.Count(h, "</a>") {
			t.Errorf("%s: description.html is not well-formed: %q", what, h[max(len(h)-200, 0):])
		}
	}
	one := sw.rest("technova", "product", `{"id":"`+mouse+`"}`)
	// The JSON encoder writes <, > and & as \u003c and so on: 10,000
	// characters of HTML take up to 6 bytes each.
	if one.status != 200 || len(one.body) > 40000 {
		t.Fatalf("get_product by REST: %d, %d bytes", one.status, len(one.body))
	}
	check("REST get_product", one.json(t)["product"].(map[string]any)["description"].(map[string]any))
	look := sw.rest("technova", "lookup", `{"ids":["`+mouse+`","MS-LOGI-MX3S","`+mouse+`x"]}`)
	for _, p := range productsOf(t, look.json(t)) {
		check("REST lookup", p["description"].(map[string]any))
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	as, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: sw.hs.URL + "/shops/technova/ucp/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	got, err := as.CallTool(ctx, &mcp.CallToolParams{Name: "get_product", Arguments: map[string]any{
		"meta": map[string]any{"ucp-agent": map[string]any{"profile": sw.profile}}, "catalog": map[string]any{"id": mouse}}})
	if err != nil || got.IsError {
		t.Fatalf("get_product over MCP: %v %v", err, got)
	}
	var m struct {
		Product struct {
			Description map[string]any `json:"description"`
		} `json:"product"`
	}
	b, _ := json.Marshal(got.StructuredContent)
	json.Unmarshal(b, &m)
	check("MCP get_product", m.Product.Description)
	if text := got.Content[0].(*mcp.TextContent).Text; len(text) > 40000 {
		t.Errorf("MCP get_product's text: %d bytes", len(text))
	}
}
