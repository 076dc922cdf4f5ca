package mcpserver_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
)

// Whatever arguments an agent sends to whatever tool, the answer is a
// result or a typed tool error: never a panic, a hang, or an internal
// error.
func FuzzToolArguments(f *testing.F) {
	w := newWorld(f, dbtest.SQLiteURL(f))
	technova := w.tenants["technova"]
	tools := mcpserver.AllTools(service.New(nil, nil), mcpserver.Options{})
	for i, seed := range []string{
		`{}`, `null`, `[]`, `"x"`, `{"tenant_id":"` + technova + `"}`,
		`{"tenant_id":"` + technova + `","id":"id-invalido","sku":1}`,
		`{"tenant_id":"` + technova + `","query":"maçã","limit":1e2,"cursor":"%%"}`,
		`{"tenant_id":"` + technova + `","sku":"F-1","name":"x","price":"1.999","stock":-1}`,
		`{"tenant_id":"` + technova + `","products":[{"sku":"a","name":"b","price":"1"},{}]}`,
		`{"tenant_id":"` + technova + `","permissions":["tenants:read",7],"name":"r"}`,
		`{"tenant_id":{"$ne":null}}`, `{"tenant_id":"` + technova + `","delta":9223372036854775807,"reason":"x"}`,
	} {
		f.Add(uint8(i), seed)
	}
	cs := w.session("memory", owner)
	f.Fuzz(func(t *testing.T, which uint8, args string) {
		tool := tools[int(which)%len(tools)]
		raw := json.RawMessage(args)
		if !json.Valid(raw) {
			raw, _ = json.Marshal(args) // a string: not an object
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: raw})
		if err != nil {
			t.Fatalf("%s(%s): protocol error %v", tool.Name, args, err)
		}
		if len(res.Content) != 1 {
			t.Fatalf("%s(%s): %d contents", tool.Name, args, len(res.Content))
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError {
			return
		}
		var e struct {
			Type, Message string
			RequestID     string `json:"request_id"`
		}
		if err := json.Unmarshal([]byte(text), &e); err != nil {
			t.Fatalf("%s(%s): error is not JSON: %s", tool.Name, args, text)
		}
		switch e.Type {
		case "PermissionError", "NotFoundError", "ConflictError", "ValidationError":
		case "Error":
			if e.RequestID != "" {
				t.Fatalf("%s(%s): internal error: %s\n%s", tool.Name, args, text, w.log.String())
			}
		default:
			t.Fatalf("%s(%s): error of type %q", tool.Name, args, e.Type)
		}
	})
}

// Whatever bytes reach the HTTP endpoint, the server answers with a
// client error or a JSON-RPC message, never a server error, and keeps
// serving.
func FuzzJSONRPC(f *testing.F) {
	w := newWorld(f, dbtest.SQLiteURL(f))
	for _, seed := range []string{
		initialize, `{}`, `[]`, `null`, `{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_products","arguments":{"tenant_id":1}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "\x00\xff{", `{"jsonrpc":"1.0","id":1,"method":"ping","params":[]}`,
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, body string, sessionless bool) {
		headers := []string{}
		if sessionless {
			headers = []string{"Mcp-Protocol-Version", "2026-07-28"}
		}
		res := rawPost(t, w, body, headers...)
		if res.code >= 500 {
			t.Fatalf("%q: HTTP %d: %s", body, res.code, res.body)
		}
		for _, msg := range res.messages {
			if !json.Valid([]byte(msg)) {
				t.Fatalf("%q: answered %q", body, msg)
			}
		}
		if ping := rawPost(t, w, initialize); ping.code != 200 {
			t.Fatalf("after %q the server answers %d", body, ping.code)
		}
	})
}

type rawAnswer struct {
	code     int
	body     string
	messages []string
}

func rawPost(t *testing.T, w *world, body string, headers ...string) rawAnswer {
	req, _ := http.NewRequest("POST", w.http.URL+httpserver.MCPPath, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+w.tokens[owner])
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	a := rawAnswer{code: res.StatusCode, body: string(data)}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				a.messages = append(a.messages, d)
			}
		}
	} else if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		a.messages = append(a.messages, string(data))
	}
	return a
}
