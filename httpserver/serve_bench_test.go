package httpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/auditlog"
)

// recordCall connects the go-sdk client (of the newest revision,
// 2026-07-28) to h with the token, calls the tool once, and returns the
// tools/call request exactly as the client sent it.
func recordCall(b *testing.B, h http.Handler, token, tool string, args map[string]any) (http.Header, []byte) {
	var (
		mu     sync.Mutex
		header http.Header
		body   []byte
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		if bytes.Contains(data, []byte(`"tools/call"`)) {
			mu.Lock()
			header, body = r.Header.Clone(), data
			mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(data))
		h.ServeHTTP(w, r)
	}))
	b.Cleanup(srv.Close)
	cs := benchSession(b, srv.URL, token)
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args}); err != nil {
		b.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return header, body
}

func benchSession(b *testing.B, url, token string) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url + httpserver.MCPPath, HTTPClient: &http.Client{Transport: bearerTransport(token)}, MaxRetries: -1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

type bearerTransport string

func (t bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(t))
	return http.DefaultTransport.RoundTrip(r)
}

// BenchmarkServeCall is what a tools/call of the sessionless revision
// costs the server alone, in process (no network, no client): the go-sdk
// client's own request, recorded once, served again and again by the
// handler vitrine serve mounts (get_product on SQLite, through the token
// check, the pipeline, the store and the audit log), and by a bare go-sdk
// server on the path the revision takes (the stateless handler) with a
// tool that does nothing, and by the same bare server with a tool that
// answers get_product's very result (the SDK's part of a get_product: it
// encodes and scans the answer's bytes, which the no-op's {} hardly has).
// With the GOGC of vitrine serve. -cpuprofile shows where Vitrine's own
// part goes: the difference between get_product and the bare answer.
func BenchmarkServeCall(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	w := newWorld(b, dbtest.SQLiteURL(b))
	noop := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "1"}, nil)
	noop.AddTool(&mcp.Tool{Name: "noop", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
		})
	mux := http.NewServeMux()
	mux.Handle(httpserver.MCPPath, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return noop }, &mcp.StreamableHTTPOptions{Stateless: true}))
	// The SDK's own messages from warn on, as vitrine serve logs them.
	quiet := slog.New(slog.DiscardHandler)
	vitrine := serveHTTP(b, w.svc, w.server(mcpserver.Options{SDKLogger: quiet}), httpserver.Options{})
	product := map[string]any{"tenant_id": w.tenants["technova"], "id": w.productID("technova", "NB-DELL-5440")}
	// The SDK's share of a get_product is more than the no-op's: its answer
	// is a product, not {}, and the SDK encodes and re-scans each byte of
	// it several times. A bare go-sdk tool that answers get_product's very
	// result (its text content and structured content, made once) costs
	// the SDK's part of a get_product alone.
	answer := answerOf(b, vitrine, w.tokens[owner], product)
	echo := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "1"}, nil)
	echo.AddTool(&mcp.Tool{Name: "get_product", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: answer.text}}, StructuredContent: answer.structured}, nil
		})
	echoMux := http.NewServeMux()
	echoMux.Handle(httpserver.MCPPath, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return echo }, &mcp.StreamableHTTPOptions{Stateless: true}))
	// Two options that would cut Vitrine's own part, for the decisions
	// they are (docs/benchmarks.md): no log line a call, and no audit
	// event for the calls that write nothing (--audit-reads off).
	unlogged, err := mcpserver.New(w.svc, mcpserver.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	unaudited := service.NewWithOptions(w.db, nil, service.Options{Audit: auditlog.Options{Reads: auditlog.Off}})
	notAudited, err := mcpserver.New(unaudited, mcpserver.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	// The same on PostgreSQL (one round trip a call: TestAReadIsOneRoundTrip).
	pg := newWorld(b, dbtest.PostgresURL(b))
	pgProduct := map[string]any{"tenant_id": pg.tenants["technova"], "id": pg.productID("technova", "NB-DELL-5440")}
	for _, c := range []struct {
		name, tool string
		h          http.Handler
		args       map[string]any
		token      string
	}{
		{"noop", "noop", mux, map[string]any{}, w.tokens[owner]},
		{"noop, get_product's answer", "get_product", echoMux, product, w.tokens[owner]},
		{"get_product", "get_product", vitrine, product, w.tokens[owner]},
		{"get_product, no log line", "get_product", serveHTTP(b, w.svc, unlogged, httpserver.Options{}), product, w.tokens[owner]},
		{"get_product, no log line, reads not audited", "get_product", serveHTTP(b, unaudited, notAudited, httpserver.Options{}), product, w.tokens[owner]},
		{"get_product, postgres", "get_product", serveHTTP(b, pg.svc, pg.server(mcpserver.Options{SDKLogger: quiet}), httpserver.Options{}), pgProduct, pg.tokens[owner]},
	} {
		b.Run(c.name, func(b *testing.B) {
			header, body := recordCall(b, c.h, c.token, c.tool, c.args)
			if header.Get("Mcp-Session-Id") != "" {
				b.Fatal("the client holds a session")
			}
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, httpserver.MCPPath, bytes.NewReader(body))
				r.Header = header.Clone()
				rec := httptest.NewRecorder()
				c.h.ServeHTTP(rec, r)
				if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"result"`)) || bytes.Contains(rec.Body.Bytes(), []byte(`"isError":true`)) {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
			// The process's CPU time a call, the background work it causes
			// (the audit log's flush, the collector) included: on a machine
			// others share, steadier than the time a call takes.
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// toolAnswer is a tool call's result as it went on the wire.
type toolAnswer struct {
	text       string
	structured json.RawMessage
}

// answerOf calls get_product through h once and returns its result.
func answerOf(b *testing.B, h http.Handler, token string, args map[string]any) toolAnswer {
	header, body := recordCall(b, h, token, "get_product", args)
	r := httptest.NewRequest(http.MethodPost, httpserver.MCPPath, bytes.NewReader(body))
	r.Header = header
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	msg := rec.Body.Bytes()
	if i := bytes.Index(msg, []byte("data: ")); i >= 0 { // an event stream's one message
		msg = bytes.TrimSpace(msg[i+len("data: "):])
	}
	var m struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(msg, &m); err != nil || len(m.Result.Content) != 1 || m.Result.StructuredContent == nil {
		b.Fatalf("get_product's answer: %v %s", err, rec.Body)
	}
	return toolAnswer{m.Result.Content[0].Text, m.Result.StructuredContent}
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkServeSessionCall is what a tools/call of a 2025-11-25 session
// costs the server alone, in process, as BenchmarkServeCall is for the
// sessionless revision: a session opened over HTTP (initialize, then
// notifications/initialized), its tools/call served again and again,
// with no other session open and with 5,000 idle ones (clients that
// initialized and went quiet): what a session's request costs must not
// grow with the sessions the instance holds. Beside get_product, the bare
// go-sdk server in a session of its default handler, with as many idle
// sessions of its own, its tool doing nothing and answering
// get_product's very result. Compare the sub-benchmarks' cpu-ns/op (go
// test ./httpserver -run '^$' -bench ServeSessionCall).
func BenchmarkServeSessionCall(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	w := newWorld(b, dbtest.SQLiteURL(b))
	quiet := slog.New(slog.DiscardHandler)
	vitrine := serveHTTP(b, w.svc, w.server(mcpserver.Options{SDKLogger: quiet}), httpserver.Options{})
	product := map[string]any{"tenant_id": w.tenants["technova"], "id": w.productID("technova", "NB-DELL-5440")}
	answer := answerOf(b, vitrine, w.tokens[owner], product)
	bare := func() http.Handler {
		srv := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "1"}, &mcp.ServerOptions{Logger: quiet})
		for _, name := range []string{"noop", "get_product"} {
			srv.AddTool(&mcp.Tool{Name: name, InputSchema: &jsonschema.Schema{Type: "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					if name == "noop" {
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: answer.text}}, StructuredContent: answer.structured}, nil
				})
		}
		mux := http.NewServeMux()
		mux.Handle(httpserver.MCPPath, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Logger: quiet}))
		return mux
	}
	post := func(h http.Handler, session, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, httpserver.MCPPath, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+w.tokens[owner])
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			r.Header.Set("Mcp-Session-Id", session)
			r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}
	open := func(h http.Handler) string {
		rec := post(h, "", initialize)
		id := rec.Header().Get("Mcp-Session-Id")
		if rec.Code != http.StatusOK || id == "" {
			b.Fatalf("initialize: %d %s", rec.Code, rec.Body)
		}
		if rec := post(h, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); rec.Code != http.StatusAccepted {
			b.Fatalf("initialized: %d %s", rec.Code, rec.Body)
		}
		return id
	}
	args, err := json.Marshal(product)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, tool string
		h          http.Handler
		args       string
	}{
		{"noop", "noop", bare(), "{}"},
		{"noop, get_product's answer", "get_product", bare(), string(args)},
		{"get_product", "get_product", vitrine, string(args)},
	} {
		call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + c.tool + `","arguments":` + c.args + `}}`
		var idle []string
		for _, others := range []int{0, 5000} {
			for len(idle) < others {
				idle = append(idle, open(c.h))
			}
			b.Run(fmt.Sprintf("%s, %d idle sessions", c.name, others), func(b *testing.B) {
				id := open(c.h)
				b.ReportAllocs()
				start := cpuTime()
				for b.Loop() {
					rec := post(c.h, id, call)
					if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"result"`)) || bytes.Contains(rec.Body.Bytes(), []byte(`"isError":true`)) {
						b.Fatalf("%d %s", rec.Code, rec.Body)
					}
				}
				b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
			})
		}
		// The next server's calls in a process without these sessions:
		// the collector would mark them at each cycle.
		for _, id := range idle {
			r := httptest.NewRequest(http.MethodDelete, httpserver.MCPPath, nil)
			r.Header.Set("Authorization", "Bearer "+w.tokens[owner])
			r.Header.Set("Mcp-Session-Id", id)
			r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			c.h.ServeHTTP(httptest.NewRecorder(), r)
		}
		runtime.GC()
	}
}

// BenchmarkOpenSession is what opening a 2025-11-25 session costs the
// server (initialize, then notifications/initialized, in process), with
// no other session open and with 5,000 idle ones: the instance finds the
// session it just opened by its id, and must not walk the others to hold
// it, nor, with the sessions a user may hold capped, walk every user's
// sessions to count the user's own. The idle sessions are other users'.
// Beside Vitrine, the bare go-sdk server (its default handler, a no-op
// tool) with as many idle sessions of its own: what grows with the
// sessions there is the SDK's and the runtime's. Each session opened is
// closed before the next, outside the CPU counted. Compare the
// sub-benchmarks' cpu-ns/op (go test ./httpserver -run '^$' -bench
// OpenSession).
func BenchmarkOpenSession(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	w := newWorld(b, dbtest.SQLiteURL(b))
	quiet := slog.New(slog.DiscardHandler)
	bare := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "1"}, &mcp.ServerOptions{Logger: quiet})
	bare.AddTool(&mcp.Tool{Name: "noop", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
		})
	bareMux := http.NewServeMux()
	bareMux.Handle(httpserver.MCPPath, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return bare }, &mcp.StreamableHTTPOptions{Logger: quiet}))
	for _, c := range []struct {
		name string
		h    http.Handler
	}{
		{"bare go-sdk", bareMux},
		{"vitrine", serveHTTP(b, w.svc, w.server(mcpserver.Options{SDKLogger: quiet}), httpserver.Options{})},
		{"vitrine, 2,000 sessions a user", serveHTTP(b, w.svc, w.server(mcpserver.Options{SDKLogger: quiet}),
			httpserver.Options{Limits: httpserver.Limits{SessionsPerUser: 2000}})},
	} {
		var others []string // the tokens of every user but the owner
		for email, token := range w.tokens {
			if email != owner {
				others = append(others, token)
			}
		}
		send := func(token, method, session, body string) *httptest.ResponseRecorder {
			r := httptest.NewRequest(method, httpserver.MCPPath, strings.NewReader(body))
			r.Header.Set("Authorization", "Bearer "+token)
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			if session != "" {
				r.Header.Set("Mcp-Session-Id", session)
				r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			}
			rec := httptest.NewRecorder()
			c.h.ServeHTTP(rec, r)
			return rec
		}
		open := func(token string) string {
			rec := send(token, http.MethodPost, "", initialize)
			id := rec.Header().Get("Mcp-Session-Id")
			if rec.Code != http.StatusOK || id == "" {
				b.Fatalf("initialize: %d %s", rec.Code, rec.Body)
			}
			if rec := send(token, http.MethodPost, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); rec.Code != http.StatusAccepted {
				b.Fatalf("initialized: %d %s", rec.Code, rec.Body)
			}
			return id
		}
		closeSession := func(token, id string) {
			if rec := send(token, http.MethodDelete, id, ""); rec.Code/100 != 2 {
				b.Fatalf("DELETE: %d %s", rec.Code, rec.Body)
			}
		}
		var idle [][2]string // token, session id
		for _, n := range []int{0, 5000} {
			for len(idle) < n {
				token := others[len(idle)%len(others)]
				idle = append(idle, [2]string{token, open(token)})
			}
			b.Run(fmt.Sprintf("%s, %d idle sessions", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				var cpu time.Duration
				for b.Loop() {
					start := cpuTime()
					id := open(w.tokens[owner])
					cpu += cpuTime() - start
					b.StopTimer()
					closeSession(w.tokens[owner], id)
					b.StartTimer()
				}
				b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
			})
		}
		// The next server's sessions in a process without these: the
		// collector would mark them at each cycle.
		for _, s := range idle {
			closeSession(s[0], s[1])
		}
		runtime.GC()
	}
}
