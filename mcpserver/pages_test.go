package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// pageText calls list_products and returns its text content.
func pageText(t *testing.T, cs *mcp.ClientSession, args map[string]any) string {
	t.Helper()
	text, isErr := testkit.Call(t, cs, "list_products", args)
	if isErr {
		t.Fatalf("list_products(%v): %s", args, text)
	}
	return text
}

// A page of 50 products costs the agent at most half of what it cost when
// each product carried its whole record; detail "full" still gives the
// whole record, the same as get_product's.
// go test -v -run TestLeanProductPage ./mcpserver prints both figures.
func TestLeanProductPage(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	cs := w.session("memory", owner)
	tenant := testkit.OK[struct{ ID string }](t, cs, "create_tenant", map[string]any{"name": "Loja Cinquenta"}).ID
	rows := make([]map[string]any, 50)
	for i := range rows {
		rows[i] = map[string]any{"sku": fmt.Sprintf("SKU-%03d", i), "name": fmt.Sprintf("Produto de teste %d", i),
			"price": "129.90", "stock": i, "description": fmt.Sprintf("Produto %d do catálogo de teste, com uma descrição curta.", i)}
	}
	testkit.OK[map[string]any](t, cs, "import_products", map[string]any{"tenant_id": tenant, "products": rows})

	lean := pageText(t, cs, map[string]any{"tenant_id": tenant, "limit": 50})
	full := pageText(t, cs, map[string]any{"tenant_id": tenant, "limit": 50, "detail": "full"})
	t.Logf("a page of 50 products: %d bytes of text with every field (as before), %d bytes lean (now)", len(full), len(lean))
	if 2*len(lean) > len(full) {
		t.Errorf("a lean page is %d bytes, more than half of the full page's %d", len(lean), len(full))
	}

	var leanPage, fullPage struct{ Products []map[string]any }
	if err := json.Unmarshal([]byte(lean), &leanPage); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(full), &fullPage); err != nil {
		t.Fatal(err)
	}
	if len(leanPage.Products) != 50 || len(fullPage.Products) != 50 {
		t.Fatalf("pages of %d and %d products", len(leanPage.Products), len(fullPage.Products))
	}
	want := []string{"currency", "handle", "id", "name", "price", "sku", "status", "stock", "updated_at", "variant_count", "version"}
	if got := slices.Sorted(maps.Keys(leanPage.Products[0])); !slices.Equal(got, want) {
		t.Errorf("a lean row has %v, want %v", got, want)
	}
	for _, p := range fullPage.Products {
		got, _ := json.Marshal(p)
		whole, _ := json.Marshal(testkit.OK[map[string]any](t, cs, "get_product", map[string]any{"tenant_id": tenant, "id": p["id"]}))
		if !testkit.JSONEqual(got, whole) {
			t.Errorf("detail full gives %s, get_product %s", got, whole)
		}
	}
}
