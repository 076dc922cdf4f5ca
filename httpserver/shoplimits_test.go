package httpserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/shopwindow"
)

// The shop window's limits against what goes around them (issue 45),
// through the handler stack `vitrine serve` mounts.

// searchCall is a tools/call of search_catalog naming profile, with id.
func searchCall(id int, profile string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"search_catalog","arguments":{"meta":{"ucp-agent":{"profile":"` +
		profile + `"}},"catalog":{"query":"mouse"}}}}`
}

// A JSON-RPC batch is refused whole with a JSON-RPC error object (-32600,
// id null), whatever MCP-Protocol-Version says or leaves out: the window
// speaks 2025-11-25 and later, which have no batches, and 40 calls in one
// POST would otherwise pass the per-address and per-profile limits as one.
func TestShopWindowRefusesBatches(t *testing.T) {
	sw := newShopWorld(t, dbtest.SQLiteURL(t), &shopwindow.Limits{AddrRate: 1, AddrBurst: 10, ProfileRate: 1, ProfileBurst: 5, MaxBodyBytes: 64 << 10})
	sw.open("technova")
	calls := make([]string, 40)
	for i := range calls {
		calls[i] = searchCall(i+1, sw.profile)
	}
	batch := "[" + strings.Join(calls, ",") + "]"
	for _, header := range []map[string]string{
		{"Accept": "application/json, text/event-stream"}, // the SDK takes 2025-03-26, where batches exist
		{"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-11-25"},
		{"Accept": "application/json"},
	} {
		for _, body := range []string{batch, " \n\t" + batch, "[" + calls[0] + "]"} {
			res := sw.do("POST", "", "/shops/technova/ucp/mcp", body, header)
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(res.body, &m); err != nil || res.status != 400 || m.JSONRPC != "2.0" || string(m.ID) != "null" ||
				m.Error.Code != -32600 || !strings.Contains(m.Error.Message, "Batches are not supported") || m.Result != nil ||
				!strings.HasPrefix(res.header.Get("Content-Type"), "application/json") {
				t.Errorf("a batch of %d bytes with %v: %d %s", len(body), header, res.status, res.body)
			}
		}
	}
	if n := sw.fetches.Load(); n != 0 {
		t.Errorf("refused batches fetched the agent's profile %d times", n)
	}
	// One call per POST still goes through.
	res := sw.do("POST", "", "/shops/technova/ucp/mcp", searchCall(1, sw.profile), map[string]string{"Accept": "application/json, text/event-stream"})
	if res.status != 200 || !strings.Contains(string(res.body), `"structuredContent"`) {
		t.Errorf("a single call: %d %s", res.status, res.body)
	}
}

// The per-profile limit counts the profile the tool uses, wherever the
// call names it: with the profile's burst spent, a call that names it in
// MCP's params._meta instead of UCP's arguments.meta is refused too.
func TestShopWindowLimitsTheProfileUsed(t *testing.T) {
	sw := newShopWorld(t, dbtest.SQLiteURL(t), &shopwindow.Limits{ProfileRate: 0.001, ProfileBurst: 2, MaxBodyBytes: 64 << 10})
	sw.open("technova")
	for range 2 {
		if res := sw.rest("technova", "search", `{"query":"mouse"}`); res.status != 200 {
			t.Fatalf("within the profile's burst: %d %s", res.status, res.body)
		}
	}
	inMeta := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_catalog","_meta":{"ucp-agent":{"profile":"` +
		sw.profile + `"}},"arguments":{"catalog":{"query":"mouse"}}}}`
	for range 3 {
		res := sw.do("POST", "", "/shops/technova/ucp/mcp", inMeta, map[string]string{"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-11-25"})
		if res.status != 429 || res.header.Get("Retry-After") == "" || !strings.Contains(string(res.body), `"code":-32000`) ||
			!strings.Contains(string(res.body), `"id":3`) || strings.Contains(string(res.body), "structuredContent") {
			t.Errorf("the spent profile named in params._meta: %d %s", res.status, res.body)
		}
	}
	// Another profile, named the same way, still goes through, and is
	// used.
	other := strings.Replace(inMeta, sw.profile, sw.agent.URL+"/search-only.json", 1)
	res := sw.do("POST", "", "/shops/technova/ucp/mcp", other, map[string]string{"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-11-25"})
	if res.status != 200 || !strings.Contains(string(res.body), "structuredContent") {
		t.Errorf("another profile in params._meta: %d %s", res.status, res.body)
	}
}

// One address rotating agent profiles meets its own fetch quota (10, then
// one every 6 s), well before the budget every window shares (50): the
// first request of an agent at another address, for another company's
// window, still has its profile fetched.
func TestShopWindowProfileFetchesPerAddress(t *testing.T) {
	sw := &shopWorld{world: newWorld(t, dbtest.SQLiteURL(t)), metrics: prometheus.NewRegistry()}
	sw.agent = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/rot/") {
			r.URL.Path = "/agent.json"
		}
		sw.agentProfiles(w, r)
	}))
	t.Cleanup(sw.agent.Close)
	sw.profile = sw.agent.URL + "/agent.json"
	limits := httpserver.DefaultLimits
	limits.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	h := serveHTTP(t, sw.svc, sw.server(mcpserver.Options{}), httpserver.Options{PublicURL: "http://vitrine.test", Limits: limits,
		Shop: &httpserver.Shop{Options: shopwindow.Options{InsecureProfiles: true}}})
	sw.hs = httptest.NewServer(h)
	t.Cleanup(sw.hs.Close)
	sw.open("technova")
	sw.open("mercado-verde")

	from := func(addr, slug, profile string) answer {
		return sw.do("POST", "", "/shops/"+slug+"/ucp/catalog/search", `{"query":"c"}`,
			map[string]string{"UCP-Agent": `profile="` + profile + `"`, "X-Forwarded-For": addr})
	}
	var codes []int
	for i := range 60 {
		codes = append(codes, from("203.0.113.7", "technova", fmt.Sprintf("%s/rot/%d.json", sw.agent.URL, i)).status)
		if i == 50 {
			// Another agent, at another address, at another company's
			// window, while the first address is still rotating.
			if res := from("198.51.100.9", "mercado-verde", sw.profile); res.status != 200 {
				t.Errorf("another address's first request: %d %s", res.status, res.body)
			}
		}
	}
	if n := sw.fetches.Load(); n != 11 {
		t.Errorf("one address rotating profiles and another's request caused %d fetches, want the quota of 10 and 1", n)
	}
	want := slices.Repeat([]int{200}, 10)
	want = append(want, slices.Repeat([]int{429}, 50)...)
	if !slices.Equal(codes, want) {
		t.Errorf("statuses of one address rotating profiles: %v", codes)
	}
	res := from("203.0.113.7", "technova", sw.agent.URL+"/rot/x.json")
	if m := res.json(t); res.status != 429 || m["code"] != "rate_limited" || res.header.Get("Retry-After") == "" {
		t.Errorf("past the address's quota: %d %v %s", res.status, res.header, res.body)
	}
	// What the address fetched before stays usable.
	if res := from("203.0.113.7", "technova", sw.agent.URL+"/rot/0.json"); res.status != 200 {
		t.Errorf("a profile the address fetched before: %d %s", res.status, res.body)
	}
	// Over MCP, the same quota answers UCP's -32000 with retry_after.
	rpc := searchCall(9, sw.agent.URL+"/rot/mcp.json")
	res = sw.do("POST", "", "/shops/technova/ucp/mcp", rpc, map[string]string{"Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2025-11-25", "X-Forwarded-For": "203.0.113.7"})
	if !strings.Contains(string(res.body), `"code":-32000`) || !strings.Contains(string(res.body), `"retry_after"`) || !strings.Contains(string(res.body), "rate_limited") {
		t.Errorf("past the address's quota over MCP: %d %s", res.status, res.body)
	}
}

// What reads a window's whole catalog (its two feeds, its sitemap) has a
// quota of its own per address, far below the window's: each costs up to a
// second of a core at 20,000 products, and the window's 20 requests a
// second from one address would keep both cores busy. The cheap routes
// stay open to that address.
func TestShopWindowBoundsWholeCatalogReads(t *testing.T) {
	limits := shopwindow.DefaultLimits
	limits.WholeRate, limits.WholeBurst = 0.001, 3
	sw := newShopWorld(t, dbtest.SQLiteURL(t), &limits)
	sw.open("technova")
	for _, path := range []string{"/feeds/google.xml", "/feeds/openai.jsonl.gz", "/sitemap.xml"} {
		if res := sw.do("GET", "", "/shops/technova"+path, "", nil); res.status != 200 {
			t.Fatalf("%s within the quota: %d %s", path, res.status, res.body)
		}
	}
	for _, path := range []string{"/shops/technova/feeds/google.xml", "/shops/technova/sitemap.xml", "/shops/nobody/sitemap.xml"} {
		res := sw.do("GET", "", path, "", nil)
		if m := res.json(t); res.status != 429 || m["code"] != "rate_limited" || res.header.Get("Retry-After") == "" {
			t.Errorf("%s past the quota: %d %v %s", path, res.status, res.header, res.body)
		}
	}
	if res := sw.do("POST", "", "/shops/technova/ucp/catalog/search", `{"query":"mouse"}`, map[string]string{"UCP-Agent": `profile="` + sw.profile + `"`}); res.status != 200 {
		t.Errorf("a search from the same address: %d %s", res.status, res.body)
	}
	if res := sw.do("GET", "", "/shops/technova/", "", nil); res.status != 200 {
		t.Errorf("the home page from the same address: %d", res.status)
	}
}
