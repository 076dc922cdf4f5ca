package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionlessProtocol is the first protocol revision without sessions.
const sessionlessProtocol = "2026-07-28"

// NoopServerCmd serves the protocol ceiling on --addr until interrupted.
type NoopServerCmd struct {
	Addr      string `default:"127.0.0.1:8090" help:"Address to serve MCP on, at /mcp."`
	PprofAddr string `placeholder:"ADDR" help:"Also serve Go's profiler (/debug/pprof/) on this address, as vitrine serve --pprof-addr does."`
}

// Run serves until the context ends.
func (c *NoopServerCmd) Run(e *env) error {
	if c.PprofAddr != "" {
		ln, err := net.Listen("tcp", c.PprofAddr)
		if err != nil {
			return err
		}
		// http.DefaultServeMux holds the profiler, from the import below.
		go http.Serve(ln, nil)
	}
	return serveNoop(e.ctx, c.Addr)
}

// serveNoop serves the protocol ceiling: the same SDK and transport as
// vitrine serve, and one tool that does nothing.
func serveNoop(ctx context.Context, addr string) error {
	srv := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "noop", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
		})
	// The page ceiling: a tool that returns a payload (list_products' page,
	// which the benchmark hands over with set_page) as a bare go-sdk tool
	// would, as text and as structured content.
	var page atomic.Pointer[json.RawMessage]
	srv.AddTool(&mcp.Tool{Name: "set_page", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Page json.RawMessage }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			page.Store(&in.Page)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "page", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			p := page.Load()
			if p == nil {
				return nil, errors.New("no page set")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(*p)}}, StructuredContent: *p}, nil
		})
	mux := http.NewServeMux()
	getServer := func(*http.Request) *mcp.Server { return srv }
	sessions := mcp.NewStreamableHTTPHandler(getServer, nil)
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true})
	// The protocol ceiling serves each revision as the protocol requires,
	// as vitrine serve does: the sessionless revision (2026-07-28 and
	// later) on the SDK's stateless handler, no session living on the
	// server; the earlier ones in sessions.
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= sessionlessProtocol {
			stateless.ServeHTTP(w, r)
			return
		}
		sessions.ServeHTTP(w, r)
	})
	// The session ceiling, reported beside it: the SDK's default handler,
	// which hands even a client of the sessionless revision a session (the
	// go-sdk client echoes it) and serves its calls in it, a server that
	// revision does not allow.
	mux.Handle("/sessions/mcp", sessions)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: mux}
	go func() { <-ctx.Done(); hs.Close() }()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
