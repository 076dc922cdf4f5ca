package mcpserver_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// Issue 31, finding 4: a Shopify CSV through import_products holds at most
// 1,000 products, as rows do; past it the call is refused, naming the
// bound and the line, and writes nothing.
func TestShopifyImportIsCappedPerCall(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		cs := w.session("memory", member)
		var b strings.Builder
		b.WriteString("Handle,Title,Variant Price\n")
		for i := range 1001 {
			fmt.Fprintf(&b, "cap-%d,Cap %d,1.00\n", i, i)
		}
		testkit.Fails(t, cs, "import_products", map[string]any{"tenant_id": technova, "format": "shopify", "csv": b.String()},
			`{"error":true,"type":"ValidationError","message":"csv holds more than 1000 products, the most one call imports; line 1002 starts product 1001 (vitrine product import reads a file of any size)","field":"csv"}`)
		// Nothing of it was written: not its first product, not its last.
		for _, handle := range []string{"cap-0", "cap-999"} {
			testkit.Fails(t, cs, "get_product", map[string]any{"tenant_id": technova, "handle": handle},
				`{"error":true,"type":"NotFoundError","message":"Product not found"}`)
		}
	})
}
