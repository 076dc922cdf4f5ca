package httpserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
)

// rpcAnswer is a JSON-RPC answer of the window's MCP endpoint.
type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// rpc posts one body to TechNova's window's MCP endpoint, with accept.
func (sw *shopWorld) rpc(t *testing.T, accept, body string) (answer, rpcAnswer) {
	t.Helper()
	h := map[string]string{"Mcp-Protocol-Version": "2025-11-25"}
	if accept != "" {
		h["Accept"] = accept
	}
	res := sw.do("POST", "", "/shops/technova/ucp/mcp", body, h)
	var a rpcAnswer
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") || json.Unmarshal(res.body, &a) != nil || a.JSONRPC != "2.0" {
		t.Fatalf("%s: not a JSON-RPC answer in JSON: %d %s %s", body, res.status, ct, res.body)
	}
	return res, a
}

func toolCall(name, profile, catalog string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `","arguments":{"meta":{"ucp-agent":{"profile":"` +
		profile + `"}},"catalog":` + catalog + `}}}`
}

// The window's MCP endpoint answers JSON-RPC as JSON-RPC: a client that
// accepts only application/json (Shopify's ucp-cli) gets JSON; a body
// that is not JSON is -32700 with id null; an unknown method -32601; a
// request that is not JSON-RPC -32600; arguments off the schema (limit 0:
// UCP's minimum is 1) -32602; and a profile the window cannot fetch is
// UCP's -32001 with UCP's HTTP status, 424, as over REST.
func TestShopWindowJSONRPC(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		sw := newShopWorld(t, url, nil)
		sw.open("technova")
		for _, accept := range []string{"application/json", "", "*/*", "application/json, text/event-stream"} {
			res, a := sw.rpc(t, accept, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
			if res.status != 200 || a.Error != nil || !strings.Contains(string(a.Result), "search_catalog") || string(a.ID) != "1" {
				t.Errorf("tools/list accepting %q: %d %s", accept, res.status, res.body)
			}
			res, a = sw.rpc(t, accept, toolCall("search_catalog", sw.profile, `{"query":"camiseta"}`))
			if res.status != 200 || a.Error != nil || !strings.Contains(string(a.Result), "Camiseta") {
				t.Errorf("search_catalog accepting %q: %d %s", accept, res.status, res.body)
			}
		}
		for _, c := range []struct {
			body   string
			status int
			code   int
			id     string
		}{
			{`{not json`, 400, -32700, "null"},
			{``, 400, -32700, "null"},
			{`{"jsonrpc":"2.0","id":3,"method":"catalog/purge"}`, 200, -32601, "3"},
			{`{"jsonrpc":"2.0","id":"x","method":"resources/read","params":{"uri":"ui://x"}}`, 200, -32601, `"x"`},
			{`{"jsonrpc":"1.0","id":4,"method":"tools/list"}`, 400, -32600, "4"},
			{`{"jsonrpc":"2.0","id":5}`, 400, -32600, "5"},
			{`"tools/list"`, 400, -32600, "null"},
			{toolCall("search_catalog", sw.profile, `{"query":"camiseta","pagination":{"limit":0}}`), 200, -32602, "7"},
			{toolCall("search_catalog", sw.profile, `{"query":"camiseta","pagination":{"limit":-1}}`), 200, -32602, "7"},
			{toolCall("search_catalog", sw.profile, `{"query":7}`), 200, -32602, "7"},
			{toolCall("lookup_catalog", sw.profile, `{"ids":[]}`), 200, -32602, "7"},
			{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_catalog","arguments":{"meta":{"ucp-agent":{"profile":"` + sw.profile + `"}},"query":"camiseta"}}}`, 200, -32602, "7"},
			{toolCall("search_catalog", sw.agent.URL+"/gone.json", `{"query":"camiseta"}`), 424, -32001, "7"},
			{toolCall("search_catalog", sw.agent.URL+"/malformed.json", `{"query":"camiseta"}`), 422, -32001, "7"},
			{toolCall("search_catalog", "not a url", `{"query":"camiseta"}`), 400, -32001, "7"},
		} {
			res, a := sw.rpc(t, "application/json", c.body)
			if res.status != c.status || a.Error == nil || a.Error.Code != c.code || string(a.ID) != c.id {
				t.Errorf("%s: %d %s; want %d, code %d, id %s", c.body, res.status, res.body, c.status, c.code, c.id)
			}
		}
		// A request written at the top level is told where it goes.
		if _, a := sw.rpc(t, "application/json", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"search_catalog","arguments":{"meta":{"ucp-agent":{"profile":"`+sw.profile+`"}},"query":"camiseta"}}}`); a.Error == nil || !strings.Contains(string(a.Error.Data), `goes under \"catalog\"`) {
			t.Errorf("query at the top level: %+v", a.Error)
		}
		// A notification of a method the window does not have is taken,
		// unanswered.
		if res := sw.do("POST", "", "/shops/technova/ucp/mcp", `{"jsonrpc":"2.0","method":"notifications/whatever"}`,
			map[string]string{"Accept": "application/json"}); res.status != 202 || len(res.body) != 0 {
			t.Errorf("an unknown notification: %d %s", res.status, res.body)
		}
		// REST: the same profile errors, the same statuses.
		for path, status := range map[string]int{"/gone.json": 424, "/malformed.json": 422} {
			res := sw.do("POST", "", "/shops/technova/ucp/catalog/search", `{"query":"camiseta"}`,
				map[string]string{"UCP-Agent": `profile="` + sw.agent.URL + path + `"`})
			if res.status != status {
				t.Errorf("REST with %s: %d %s", path, res.status, res.body)
			}
		}
		if res := sw.rest("technova", "search", `{"query":"camiseta","pagination":{"limit":0}}`); res.status != 400 ||
			!strings.Contains(string(res.body), "limit") {
			t.Errorf("REST limit 0: %d %s", res.status, res.body)
		}
	})
}
