package httpserver_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
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
