package httpserver_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
)

// rpc2026 sends one request of the sessionless revision (2026-07-28) and
// returns the HTTP status and the JSON-RPC messages of the answer, in
// order (an event stream's, or the one JSON body).
func rpc2026(t *testing.T, url, token, method, params string) (int, []map[string]any) {
	t.Helper()
	if params == "" {
		params = "{}"
	}
	// Params with a _meta of their own (other capabilities) keep it.
	if !strings.Contains(params, `"_meta":`) {
		params = strings.TrimSuffix(params, "}")
		if params != "{" {
			params += ","
		}
		params += `"_meta":` + meta2026 + `}`
	}
	req, _ := http.NewRequest("POST", url+httpserver.MCPPath, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"`+method+`","params":`+params+`}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	var named struct{ Name, URI string }
	json.Unmarshal([]byte(params), &named)
	if n := named.Name + named.URI; n != "" {
		req.Header.Set("Mcp-Name", n)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	// A stream that never ends is a hang, not a measure: the client gives up.
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var msgs []map[string]any
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if err := json.Unmarshal([]byte(data), &m); err != nil {
					t.Fatalf("%s: %v in %s", method, err, data)
				}
				msgs = append(msgs, m)
			}
		}
		return res.StatusCode, msgs
	}
	var m map[string]any
	if json.NewDecoder(res.Body).Decode(&m) == nil {
		msgs = append(msgs, m)
	}
	return res.StatusCode, msgs
}

// result returns the result of the last message, the answer.
func result(t *testing.T, method string, msgs []map[string]any) map[string]any {
	t.Helper()
	if len(msgs) == 0 {
		t.Fatalf("%s: no answer", method)
	}
	r, ok := msgs[len(msgs)-1]["result"].(map[string]any)
	if !ok {
		t.Fatalf("%s: answered %v", method, msgs[len(msgs)-1])
	}
	return r
}

// No list changes while a server runs (a deploy brings a new server, a
// grant a new token), so no capability says one may: the capabilities are
// those of what the server answers (prompts/list included, empty), and
// each list says how long, and for whom, it may be kept: public for an
// hour what is the same for everyone (templates, prompts, the discovery
// answer), private and at once stale what varies by the token (tools/list)
// or by the data (a product).
func TestCapabilitiesAndCaching(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	hs := httptest.NewServer(serveHTTP(t, w.svc, w.server(mcpserver.Options{}), httpserver.Options{}))
	defer hs.Close()
	token := w.tokens[owner]
	_, msgs := rpc2026(t, hs.URL, token, "server/discover", "")
	discover := result(t, "server/discover", msgs)
	caps, _ := json.Marshal(discover["capabilities"])
	if string(caps) != `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}},"logging":{},"prompts":{},"resources":{},"tools":{}}` {
		t.Errorf("capabilities %s", caps)
	}
	_, msgs = rpc2026(t, hs.URL, token, "prompts/list", "")
	if prompts, ok := result(t, "prompts/list", msgs)["prompts"].([]any); !ok || len(prompts) != 0 {
		t.Errorf("prompts/list: %v", msgs)
	}
	product := mcpserver.ProductURI(w.tenants["technova"], w.productID("technova", "NB-DELL-5440"))
	for _, c := range []struct{ method, params, scope string }{
		{"server/discover", "", "public 3600000"},
		{"prompts/list", "", "public 3600000"},
		{"resources/list", "", "public 3600000"},
		{"resources/templates/list", "", "public 3600000"},
		{"tools/list", "", "private 3600000"},
		{"resources/read", `{"uri":"` + product + `"}`, "private 0"},
	} {
		_, msgs := rpc2026(t, hs.URL, token, c.method, c.params)
		r := result(t, c.method, msgs)
		if got := strings.TrimSpace(strings.Join([]string{str(r["cacheScope"]), str(r["ttlMs"])}, " ")); got != c.scope {
			t.Errorf("%s: cacheScope and ttlMs %q, want %q", c.method, got, c.scope)
		}
	}
}

func str(v any) string {
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

// A subscriptions/listen stream (2026-07-28) of lists that never change
// while the server runs ends at once, with its acknowledgment (that it
// agreed to nothing) and its completion result: it holds no slot of the
// token's calls in flight, and nothing for a shutdown to wait for.
func TestListenStreamsEndWithTheirResult(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	hs := limitedServer(t, w, httpserver.Limits{TokenConcurrency: 1}, nil)
	token := w.tokens[owner]
	for range 3 {
		status, msgs := rpc2026(t, hs.URL, token, "subscriptions/listen", `{"notifications":{"toolsListChanged":true,"resourcesListChanged":true,"promptsListChanged":true}}`)
		if status != 200 || len(msgs) != 2 || msgs[0]["method"] != "notifications/subscriptions/acknowledged" {
			t.Fatalf("listen: %d %v", status, msgs)
		}
		if agreed, _ := json.Marshal(msgs[0]["params"].(map[string]any)["notifications"]); string(agreed) != `{}` {
			t.Errorf("listen agreed to %s", agreed)
		}
		meta, _ := result(t, "subscriptions/listen", msgs)["_meta"].(map[string]any)
		if meta["io.modelcontextprotocol/subscriptionId"] != float64(9) {
			t.Errorf("listen result %v", msgs[1])
		}
		// The next call is served, with a cap of one call in flight.
		if status, _, body := call(t, hs.URL, token, "whoami", `{}`); status != 200 || !strings.Contains(body, owner) {
			t.Errorf("a call after a listen stream: %d %s", status, body)
		}
	}
}

// The server names itself (a description, and an SVG icon of its own,
// which the binary serves) and each tool its toolset's icon; every icon
// named is served as an image.
func TestIcons(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	hs := httptest.NewUnstartedServer(nil)
	public := "http://" + hs.Listener.Addr().String()
	hs.Config.Handler = serveHTTP(t, w.svc, w.server(mcpserver.Options{IconsURL: httpserver.IconsURL(public)}), httpserver.Options{})
	hs.Start()
	defer hs.Close()
	_, msgs := rpc2026(t, hs.URL, w.tokens[owner], "server/discover", "")
	info, _ := result(t, "server/discover", msgs)["_meta"].(map[string]any)["io.modelcontextprotocol/serverInfo"].(map[string]any)
	icons, _ := json.Marshal(info["icons"])
	if info["description"] == "" || string(icons) != `[{"mimeType":"image/svg+xml","sizes":["any"],"src":"`+public+`/icons/vitrine.svg"}]` {
		t.Errorf("server info %v", info)
	}
	_, msgs = rpc2026(t, hs.URL, w.tokens[owner], "tools/list", "")
	named := map[string]bool{public + "/icons/vitrine.svg": true}
	for _, tool := range result(t, "tools/list", msgs)["tools"].([]any) {
		tool := tool.(map[string]any)
		icons, _ := tool["icons"].([]any)
		if len(icons) != 1 {
			t.Errorf("%s names icons %v", tool["name"], tool["icons"])
			continue
		}
		named[icons[0].(map[string]any)["src"].(string)] = true
	}
	if len(named) != len(vitrine.Toolsets)+1 {
		t.Errorf("icons named %v", named)
	}
	for src := range named {
		res, err := http.Get(src)
		if err != nil {
			t.Fatal(err)
		}
		var head [5]byte
		res.Body.Read(head[:])
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/svg+xml" || string(head[:]) != "<svg " {
			t.Errorf("%s: %d %s %q", src, res.StatusCode, res.Header.Get("Content-Type"), head)
		}
	}
	if res, _ := http.Get(public + "/icons/nothing.svg"); res.StatusCode != 404 {
		t.Errorf("an icon that does not exist: %d", res.StatusCode)
	}
}
