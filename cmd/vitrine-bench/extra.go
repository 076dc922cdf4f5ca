package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/cmd/vitrine-bench/internal/harness"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/pgtrace"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/store"
)

// countRoundTrips serves the database in this process, with the same
// service and MCP server as vitrine serve (default audit) and a tracer on
// its pool, and returns the round trips to PostgreSQL per get_product and
// per create_product, the buffered audit's writes and the token's
// last-use bookkeeping included.
func countRoundTrips(ctx context.Context, url string, w *benchWorld) (get, create float64, err error) {
	rt := &pgtrace.RoundTrips{}
	db, err := store.Open(ctx, url, store.Options{Tracer: rt, NoMigrate: true})
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	svc := service.NewWithOptions(db, nil, service.Options{})
	defer svc.Close(ctx)
	srv, err := mcpserver.New(svc, mcpserver.Options{})
	if err != nil {
		return 0, 0, err
	}
	web, err := httpserver.New(srv, svc, httpserver.Options{})
	if err != nil {
		return 0, 0, err
	}
	hs := httptest.NewServer(web.Handler())
	defer hs.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: hs.URL + httpserver.MCPPath, HTTPClient: &http.Client{Transport: harness.Bearer(w.token)}, MaxRetries: -1}, nil)
	if err != nil {
		return 0, 0, err
	}
	defer cs.Close()
	big := w.tenants[0]
	per := func(n int, args func(i int) (string, map[string]any)) (float64, error) {
		for i := range 20 { // warm: statements prepared, access cached
			tool, a := args(-1 - i)
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: a}); err != nil {
				return 0, err
			}
		}
		if err := svc.Audit().Flush(ctx); err != nil {
			return 0, err
		}
		before := rt.N()
		for i := range n {
			tool, a := args(i)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: a})
			if err != nil {
				return 0, err
			}
			if res.IsError {
				return 0, errors.New(res.Content[0].(*mcp.TextContent).Text)
			}
		}
		if err := svc.Audit().Flush(ctx); err != nil {
			return 0, err
		}
		return float64(rt.N()-before) / float64(n), nil
	}
	get, err = per(500, func(i int) (string, map[string]any) {
		return "get_product", map[string]any{"tenant_id": big, "id": w.sample[(i+len(w.sample))%len(w.sample)]}
	})
	if err != nil {
		return 0, 0, err
	}
	stamp := time.Now().UnixNano()
	create, err = per(200, func(i int) (string, map[string]any) {
		sku := fmt.Sprintf("RT-%d-%d", stamp, i)
		return "create_product", map[string]any{"tenant_id": big, "sku": sku, "name": "Contagem " + sku, "price": "1.00", "stock": 1}
	})
	return get, create, err
}

// stdioStartups times, 10 times each, `vitrine stdio` and a bare go-sdk
// stdio server (vitrine-bench noop-stdio) from exec to an answered
// initialize, and returns the medians.
func stdioStartups(ctx context.Context, server, db, token string) (vitrine, bare time.Duration, err error) {
	self, err := os.Executable()
	if err != nil {
		return 0, 0, err
	}
	var vs, bs []time.Duration
	for range 10 {
		v, err := timeInitialize(ctx, exec.CommandContext(ctx, server, "stdio", "--db", db), "VITRINE_TOKEN="+token)
		if err != nil {
			return 0, 0, fmt.Errorf("vitrine stdio: %w", err)
		}
		b, err := timeInitialize(ctx, exec.CommandContext(ctx, self, "noop-stdio"))
		if err != nil {
			return 0, 0, fmt.Errorf("noop-stdio: %w", err)
		}
		vs, bs = append(vs, v), append(bs, b)
	}
	slices.Sort(vs)
	slices.Sort(bs)
	return vs[len(vs)/2], bs[len(bs)/2], nil
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n"

func timeInitialize(_ context.Context, cmd *exec.Cmd, env ...string) (time.Duration, error) {
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	cmd.Stderr = io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() }()
	if _, err := io.WriteString(stdin, initialize); err != nil {
		return 0, err
	}
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	took := time.Since(start)
	if err != nil {
		return 0, err
	}
	var res struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(line, &res) != nil || res.Result == nil {
		return 0, fmt.Errorf("initialize answered %q", line)
	}
	return took, nil
}

// NoopStdioCmd serves the stdio ceiling: a bare go-sdk server with one
// tool that does nothing, on standard input and output.
type NoopStdioCmd struct{}

// Run serves until standard input ends.
func (NoopStdioCmd) Run(e *env) error {
	srv := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "noop", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
		})
	return srv.Run(e.ctx, &mcp.StdioTransport{})
}

// pagePayload returns list_products' first page of 50 as the server sends
// it in structuredContent, for the bare tool that returns the same.
func pagePayload(ctx context.Context, cs *mcp.ClientSession, tenant string) (json.RawMessage, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_products", Arguments: map[string]any{"tenant_id": tenant, "limit": 50}})
	if err != nil {
		return nil, err
	}
	return json.Marshal(res.StructuredContent)
}

// errNoTS says that the TypeScript ceiling's packages are not installed.
var errNoTS = errors.New("the TypeScript ceiling needs its packages")

// tsServer starts the TypeScript ceiling (ts/server.mjs, on the Node.js of
// its node_modules) on the database, if its packages are installed
// (cd DIR && npm ci).
func tsServer(ctx context.Context, dir, db string) (string, *exec.Cmd, error) {
	node := filepath.Join(dir, "node_modules", "node", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		return "", nil, fmt.Errorf("%w: cd %s && npm ci", errNoTS, dir)
	}
	return harness.StartProcess(ctx, node, db, "", filepath.Join(dir, "server.mjs"))
}
