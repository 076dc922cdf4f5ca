package httpserver_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
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
// tool that does nothing. With the GOGC of vitrine serve. -cpuprofile
// shows where Vitrine's own part goes: the difference between the two.
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
	// Two options that would cut Vitrine's own part, for the decisions
	// they are (docs/performance.md): no log line a call, and no audit
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
	product := map[string]any{"tenant_id": w.tenants["technova"], "id": w.productID("technova", "NB-DELL-5440")}
	for _, c := range []struct {
		name, tool string
		h          http.Handler
		args       map[string]any
	}{
		{"noop", "noop", mux, map[string]any{}},
		{"get_product", "get_product", vitrine, product},
		{"get_product, no log line", "get_product", serveHTTP(b, w.svc, unlogged, httpserver.Options{}), product},
		{"get_product, no log line, reads not audited", "get_product", serveHTTP(b, unaudited, notAudited, httpserver.Options{}), product},
	} {
		b.Run(c.name, func(b *testing.B) {
			header, body := recordCall(b, c.h, w.tokens[owner], c.tool, c.args)
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

// cpuTime is the process's CPU time so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkServeSessionCall is a tools/call of a 2025-11-25 session, in
// process, with no other session open and with 5,000 idle ones (clients
// that initialized and went quiet): what a session's request costs must
// not grow with the sessions the instance holds. Compare the two
// sub-benchmarks' cpu-ns/op (go test ./httpserver -run '^$' -bench
// ServeSessionCall).
func BenchmarkServeSessionCall(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	w := newWorld(b, dbtest.SQLiteURL(b))
	quiet := slog.New(slog.DiscardHandler)
	h := serveHTTP(b, w.svc, w.server(mcpserver.Options{SDKLogger: quiet}), httpserver.Options{})
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	product := map[string]any{"tenant_id": w.tenants["technova"], "id": w.productID("technova", "NB-DELL-5440")}
	open := func() string {
		r := httptest.NewRequest(http.MethodPost, httpserver.MCPPath, strings.NewReader(initialize))
		r.Header.Set("Authorization", "Bearer "+w.tokens[owner])
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		id := rec.Header().Get("Mcp-Session-Id")
		if rec.Code != http.StatusOK || id == "" {
			b.Fatalf("initialize: %d %s", rec.Code, rec.Body)
		}
		return id
	}
	idle := 0
	for _, others := range []int{0, 5000} {
		for ; idle < others; idle++ {
			open()
		}
		b.Run(fmt.Sprintf("%d idle sessions", others), func(b *testing.B) {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: srv.URL + httpserver.MCPPath, HTTPClient: &http.Client{Transport: bearerTransport(w.tokens[owner])}, MaxRetries: -1},
				&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_product", Arguments: product})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
