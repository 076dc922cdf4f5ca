package mcpserver_test

import (
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// A product by its handle; list rows carry it; a company by its slug,
// among the caller's own companies only.
func TestLookups(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		cs := w.session("memory", owner)
		made := testkit.OK[struct{ ID, Handle string }](t, cs, "create_product", map[string]any{"tenant_id": "technova", "name": "Blue Shirt",
			"options": []map[string]any{{"name": "Size", "values": []string{"M", "L"}}},
			"variants": []map[string]any{{"sku": "BS-M", "options": map[string]string{"Size": "M"}, "price": "10.00"},
				{"sku": "BS-L", "options": map[string]string{"Size": "L"}, "price": "12.00"}}})
		if made.Handle != "blue-shirt" {
			t.Fatalf("create_product by slug: %+v", made)
		}
		got := testkit.OK[struct{ ID string }](t, cs, "get_product", map[string]any{"tenant_id": w.tenants["technova"], "handle": "Blue-Shirt"})
		if got.ID != made.ID {
			t.Errorf("by handle: %+v", got)
		}
		testkit.Fails(t, cs, "get_product", map[string]any{"tenant_id": "technova", "handle": "no-such-thing"},
			`{"error":true,"type":"NotFoundError","message":"Product not found"}`)
		if e := testkit.ErrorOf(t, cs, "get_product", map[string]any{"tenant_id": "technova", "handle": "blue-shirt", "sku": "BS-M"}); e["type"] != "ValidationError" {
			t.Errorf("handle and sku: %v", e)
		}
		list := testkit.OK[struct{ Products []struct{ ID, Handle string } }](t, cs, "list_products", map[string]any{"tenant_id": "technova", "query": "blue shirt"})
		if len(list.Products) != 1 || list.Products[0].Handle != "blue-shirt" {
			t.Errorf("list rows: %+v", list)
		}
		// Options in any case, as vendor and tags.
		list = testkit.OK[struct{ Products []struct{ ID, Handle string } }](t, cs, "list_products", map[string]any{"tenant_id": "technova", "options": map[string]string{"size": "m"}})
		if len(list.Products) != 1 || list.Products[0].ID != made.ID {
			t.Errorf("options in another case: %+v", list)
		}
		// Another company's slug answers as an unknown id does.
		const none = `{"error":true,"type":"Error","message":"Membership not found or inactive"}`
		other := w.session("memory", verde)
		for _, tenant := range []string{"technova", "no-such-company", w.tenants["technova"]} {
			testkit.Fails(t, other, "list_products", map[string]any{"tenant_id": tenant}, none)
		}
		testkit.OK[map[string]any](t, other, "list_products", map[string]any{"tenant_id": "mercado-verde"})
	})
}
