package mcpserver_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// Text search ranks the same way on both databases: the product whose SKU
// is the query, then the products whose name holds every word, then those
// holding them elsewhere; by name within each. Case and accents never
// matter, and a word matches the start of a word.
func TestSearchRelevance(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		cs := w.session("memory", owner)
		for _, p := range []map[string]any{
			{"sku": "BP-NOTE-01", "name": "Mochila para Notebook", "description": "Cabe notebooks de até 15,6\"."},
			{"sku": "ST-ALU-02", "name": "Suporte de Alumínio", "description": "Ergonômico, para notebook Dell ou Lenovo."},
			{"sku": "DELL", "name": "Cabo HDMI", "description": "Compatível com monitores."},
			{"sku": "FR-MACA-GALA", "name": "Maca Gala (kg)", "description": ""},
		} {
			p["tenant_id"], p["price"] = technova, "10.00"
			testkit.OK[product](t, cs, "create_product", p)
		}
		for query, want := range map[string][]string{
			"notebook":                {"BP-NOTE-01", "NB-DELL-5440", "ST-ALU-02"},
			"NOTE":                    {"BP-NOTE-01", "NB-DELL-5440", "ST-ALU-02"},
			"dell":                    {"DELL", "NB-DELL-5440", "ST-ALU-02"},
			"nb-dell-5440":            {"NB-DELL-5440"},
			"dell note":               {"NB-DELL-5440", "ST-ALU-02"},
			"maçã":                    {"FR-MACA-GALA"},
			"Alumínio":                {"ST-ALU-02"},
			"aluminio erg":            {"ST-ALU-02"},
			"insp 15":                 {"NB-DELL-5440"},
			"xyz":                     nil,
			"note NOTE notebook Note": {"BP-NOTE-01", "NB-DELL-5440", "ST-ALU-02"},
		} {
			var got []string
			args := map[string]any{"tenant_id": technova, "query": query, "limit": 1}
			for {
				page := testkit.OK[productList](t, cs, "list_products", args)
				for _, p := range page.Products {
					got = append(got, p.SKU)
				}
				if page.NextCursor == "" {
					break
				}
				args["cursor"] = page.NextCursor
			}
			if !slices.Equal(got, want) {
				t.Errorf("query %q: %v, want %v", query, got, want)
			}
		}
		// In the other company, the apple matches both spellings.
		for _, q := range []string{"MAÇÃ", "maca", "Maca fuji"} {
			list := testkit.OK[productList](t, w.session("memory", verde), "list_products", map[string]any{"tenant_id": w.tenants["mercado-verde"], "query": q})
			if len(list.Products) != 1 || list.Products[0].SKU != "FR-MACA-FUJI" {
				t.Errorf("query %q in mercado-verde: %+v", q, list.Products)
			}
		}
		// A query sorts by relevance unless told otherwise.
		byPrice := testkit.OK[productList](t, cs, "list_products", map[string]any{"tenant_id": technova, "query": "notebook", "sort": "-price"})
		if len(byPrice.Products) != 3 || byPrice.Products[0].SKU != "NB-DELL-5440" {
			t.Errorf("notebook by price: %+v", byPrice.Products)
		}
		// Repeated words are one; past ten different ones, a query is refused.
		if got := testkit.OK[productList](t, cs, "list_products", map[string]any{"tenant_id": technova, "query": strings.Repeat("c ", 100)}); len(got.Products) == 0 {
			t.Error(`100 × "c" found nothing`)
		}
		testkit.Fails(t, cs, "list_products", map[string]any{"tenant_id": technova, "query": "b c d f g h j k l m n"},
			`{"error":true,"type":"ValidationError","message":"query holds 11 different words; the limit is 10","field":"query"}`)
		testkit.Fails(t, cs, "list_products", map[string]any{"tenant_id": technova, "sort": "relevance"},
			`{"error":true,"type":"ValidationError","message":"sort \"relevance\" needs a query","field":"sort"}`)
		testkit.Fails(t, cs, "list_products", map[string]any{"tenant_id": technova, "query": "%_"},
			`{"error":true,"type":"ValidationError","message":"query must hold at least one letter or digit","field":"query"}`)
	})
}

func TestProductFilters(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		cs := w.session("memory", owner)
		skus := func(args map[string]any) []string {
			args["tenant_id"], args["limit"] = technova, 100
			var out []string
			for _, p := range testkit.OK[productList](t, cs, "list_products", args).Products {
				out = append(out, p.SKU)
			}
			slices.Sort(out)
			return out
		}
		// Demo: NB 4599.90 (12), MS 649.90 (40), MN 1299.00 (7), KB 799.00 (0), HS 299.90 (25), CH 1899.00 (3, archived),
		// the shirt CAM-DEV-AZ-P 49.90–69.90 (32), the hoodie MOL-TN-CZ-P 179.90–199.90 (15), the mousepad MP-RD-M 39.90–99.90 (42),
		// the cap BONE-TN 69.90 (15, draft).
		for name, c := range map[string]struct {
			args map[string]any
			want []string
		}{
			"out of stock": {map[string]any{"in_stock": false}, []string{"KB-KEYC-K2"}},
			"in stock": {map[string]any{"in_stock": true, "status": "active"}, []string{"CAM-DEV-AZ-P", "HS-JBL-T520", "MN-LG-29WQ600", "MOL-TN-CZ-P",
				"MP-RD-M", "MS-LOGI-MX3S", "NB-DELL-5440"}},
			"price range": {map[string]any{"min_price": "649.90", "max_price": "1299"}, []string{"KB-KEYC-K2", "MN-LG-29WQ600", "MS-LOGI-MX3S"}},
			"min price":   {map[string]any{"min_price": "1500"}, []string{"CH-ERGO-01", "NB-DELL-5440"}},
			"archived":    {map[string]any{"status": "archived"}, []string{"CH-ERGO-01"}},
			"updated":     {map[string]any{"updated_since": "2999-01-01T00:00:00Z"}, nil},
			"since ever":  {map[string]any{"updated_since": "2000-01-01T00:00:00-03:00", "query": "mouse"}, []string{"MP-RD-M", "MS-LOGI-MX3S"}},
		} {
			if got := skus(c.args); !slices.Equal(got, c.want) {
				t.Errorf("%s: %v, want %v", name, got, c.want)
			}
		}
		testkit.Fails(t, cs, "list_products", map[string]any{"tenant_id": technova, "min_price": "10", "max_price": "5"},
			`{"error":true,"type":"ValidationError","message":"max_price must not be below min_price","field":"max_price"}`)
		// A price filter in a currency no product is priced in says so.
		testkit.Fails(t, cs, "list_products", map[string]any{"tenant_id": technova, "min_price": "1", "currency": "USD"},
			`{"error":true,"type":"ValidationError","message":"no product here is priced in USD, the currency of min_price and max_price; they are priced in BRL: give currency \"BRL\"","field":"currency"}`)
		testkit.Fails(t, cs, "list_products", map[string]any{"tenant_id": technova, "currency": "USD"},
			`{"error":true,"type":"ValidationError","message":"currency applies to min_price and max_price; give one of them too","field":"currency"}`)
	})
}

// A list row's price and compare-at price are one variant's, the cheapest
// the filter keeps: README's "blue shirt in size M under R$70" costs 59.90,
// with no compare-at price, though a black shirt costs 49.90 (was 59.90)
// and a black GG was 69.90. price_max stays the product's highest price.
func TestListRowPriceIsOneVariants(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		cs := w.session("memory", owner)
		type row struct {
			SKU            string
			Price          string
			PriceMax       string `json:"price_max"`
			CompareAtPrice string `json:"compare_at_price"`
		}
		shirt := func(args map[string]any) row {
			t.Helper()
			args["tenant_id"], args["query"] = w.tenants["technova"], "camiseta technova"
			page := testkit.OK[struct{ Products []row }](t, cs, "list_products", args)
			if len(page.Products) != 1 {
				t.Fatalf("%v: %+v, want the shirt", args, page.Products)
			}
			return page.Products[0]
		}
		if got := shirt(map[string]any{"options": map[string]any{"Cor": "Azul", "Tamanho": "M"}, "max_price": "70"}); got != (row{SKU: "CAM-DEV-AZ-P", Price: "59.90", PriceMax: "69.90"}) {
			t.Errorf("the blue M under 70: %+v, want price 59.90 without compare_at_price", got)
		}
		if got := shirt(map[string]any{}); got != (row{SKU: "CAM-DEV-AZ-P", Price: "49.90", PriceMax: "69.90", CompareAtPrice: "59.90"}) {
			t.Errorf("no filter: %+v, want the black P's 49.90, was 59.90", got)
		}
	})
}
