package mcpserver_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/internal/dbtest"
)

type exportAnswer struct {
	Format     string `json:"format"`
	Products   int    `json:"products"`
	Content    string `json:"content"`
	NextCursor string `json:"next_cursor"`
}

// export_products takes the catalog out in parts of at most 500 products,
// each a whole file that import_products reads back; a viewer may, another
// company's products never come, and the format is checked.
func TestExportProducts(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		cs := w.sessionWithToken("memory", w.token(owner, []string{"all"}))
		technova := w.tenants["technova"]
		var b strings.Builder
		b.WriteString("Handle,Title,Variant SKU,Variant Price\n")
		for i := range 1000 {
			b.WriteString("x-" + strconv.Itoa(i) + ",Extra " + strconv.Itoa(i) + ",X-" + strconv.Itoa(i) + ",9.90\n")
		}
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "import_products", Arguments: map[string]any{"tenant_id": technova, "format": "shopify", "csv": b.String()}}); err != nil || res.IsError {
			t.Fatalf("import: %v %+v", err, res)
		}
		call := func(cs *mcp.ClientSession, args map[string]any) (exportAnswer, *mcp.CallToolResult) {
			t.Helper()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "export_products", Arguments: args})
			if err != nil {
				t.Fatal(err)
			}
			var out exportAnswer
			if !res.IsError {
				if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
					t.Fatal(err)
				}
			}
			return out, res
		}
		for _, format := range []string{"jsonl", "shopify"} {
			total, calls, cursor := 0, 0, ""
			handles := map[string]bool{}
			for {
				args := map[string]any{"tenant_id": technova, "format": format}
				if cursor != "" {
					args["cursor"] = cursor
				}
				out, res := call(w.sessionWithToken("memory", w.token(viewer, []string{"all"})), args)
				if res.IsError {
					t.Fatalf("%s: %+v", format, res.Content[0])
				}
				calls++
				if out.Products > 500 || out.Format != format {
					t.Errorf("%s: a part of %d products", format, out.Products)
				}
				if format == "shopify" && !strings.HasPrefix(out.Content, "Handle,") {
					t.Errorf("a Shopify part without its header: %.80q", out.Content)
				}
				if strings.Contains(out.Content, "FR-MACA-FUJI") {
					t.Errorf("%s: another company's product", format)
				}
				for line := range strings.Lines(out.Content) {
					if format == "jsonl" {
						var p struct{ Handle string }
						if err := json.Unmarshal([]byte(line), &p); err != nil {
							t.Fatal(err)
						}
						handles[p.Handle] = true
					}
				}
				total += out.Products
				if cursor = out.NextCursor; cursor == "" {
					break
				}
			}
			if total < 1010 || calls < 3 {
				t.Errorf("%s: %d products in %d calls", format, total, calls)
			}
			if format == "jsonl" && len(handles) != total {
				t.Errorf("jsonl: %d handles for %d products", len(handles), total)
			}
		}
		_, res := call(cs, map[string]any{"tenant_id": technova, "format": "xml"})
		if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "ValidationError") {
			t.Errorf("format xml: %+v", res.Content[0])
		}
	})
}
