package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// BenchmarkGetProduct measures a get_product through the whole stack
// (HTTP, authentication, membership, permission, store, audit) against a
// tool that does nothing on the same transport. Run with -cpu 1,2,8 to see
// how it scales; vitrine-bench measures the same against real processes.
func BenchmarkGetProduct(b *testing.B) {
	w := newWorld(b, dbtest.SQLiteURL(b))
	technova := w.tenants["technova"]
	id := w.productID("technova", "NB-DELL-5440")
	b.Run("noop", func(b *testing.B) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "1"}, nil)
		srv.AddTool(&mcp.Tool{Name: "noop", InputSchema: &jsonschema.Schema{Type: "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
			})
		hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		b.Cleanup(hs.Close) // after the sessions close
		b.RunParallel(func(pb *testing.PB) {
			cs := benchSession(b, hs.URL, "x")
			for pb.Next() {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "noop", Arguments: map[string]any{}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("vitrine", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			cs := benchSession(b, w.http.URL, w.tokens[owner])
			for pb.Next() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_product", Arguments: map[string]any{"tenant_id": technova, "id": id}})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	})
}

func benchSession(b *testing.B, url, token string) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: strings.TrimSuffix(url, httpserver.MCPPath) + httpserver.MCPPath, HTTPClient: &http.Client{Transport: testkit.Bearer(token)}, MaxRetries: -1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}
