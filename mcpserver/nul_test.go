package mcpserver_test

import (
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// A NUL character in a text argument is a ValidationError naming the
// argument on both databases (PostgreSQL's text cannot hold one, which was
// an untyped internal error).
func TestNULInTextIsAValidationError(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		cs := w.session("memory", owner)
		mouse := w.productID("technova", "MS-LOGI-MX3S")
		for _, c := range []struct {
			tool  string
			args  map[string]any
			field string
		}{
			{"create_product", map[string]any{"sku": "NUL-1", "name": "Nul", "price": "1", "description": "a\x00b"}, "description"},
			{"update_product", map[string]any{"id": mouse, "description": "\x00"}, "description"},
			{"adjust_stock", map[string]any{"id": mouse, "delta": 1, "reason": "x\x00"}, "reason"},
			{"list_products", map[string]any{"query": "mouse\x00"}, "query"},
			{"import_products", map[string]any{"products": []any{map[string]any{"sku": "NUL-2", "name": "N", "price": "1", "description": "\x00"}}}, "products[0].description"},
		} {
			c.args["tenant_id"] = technova
			testkit.Fails(t, cs, c.tool, c.args, `{"error":true,"type":"ValidationError","message":"`+c.field+` must not contain the NUL character (\\u0000)","field":"`+c.field+`"}`)
		}
	})
}
