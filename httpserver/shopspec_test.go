package httpserver_test

import (
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
)

// What a window features is what the shopper asked for: a search for
// "camiseta preta" shows the black shirt, one for a SKU the variant of
// that SKU; and get_product says its selection whenever the product has
// options, after every selection asked was relaxed too (UCP: MUST).
func TestShopWindowFeaturesWhatIsAsked(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		sw := newShopWorld(t, url, nil)
		sw.open("technova")
		featured := func(query string) map[string]any {
			t.Helper()
			res := sw.rest("technova", "search", `{"query":"`+query+`"}`)
			for _, p := range productsOf(t, res.json(t)) {
				if p["title"] == "Camiseta TechNova Dev" {
					return p["variants"].([]any)[0].(map[string]any)
				}
			}
			t.Fatalf("%q: no shirt in %s", query, res.body)
			return nil
		}
		if v := featured("camiseta preta"); !strings.HasPrefix(v["title"].(string), "Preta") {
			t.Errorf("camiseta preta features %v", v["title"])
		}
		if v := featured("CAM-DEV-AZ-GG"); v["sku"] != "CAM-DEV-AZ-GG" {
			t.Errorf("CAM-DEV-AZ-GG features %v", v["sku"])
		}
		shirt := sw.productID("technova", "CAM-DEV-PR-M")
		for _, body := range []string{
			`{"id":"` + shirt + `","selected":[{"name":"Cor","label":"Roxa"}]}`,
			`{"id":"` + shirt + `","selected":[{"name":"Cor","label":"Roxa"},{"name":"Tamanho","label":"XXL"}],"preferences":["Tamanho"]}`,
			`{"id":"` + shirt + `"}`,
		} {
			p := sw.rest("technova", "product", body).json(t)["product"].(map[string]any)
			sel, _ := p["selected"].([]any)
			first := p["variants"].([]any)[0].(map[string]any)
			if len(sel) != 2 || first["title"] != sel[0].(map[string]any)["label"].(string)+" / "+sel[1].(map[string]any)["label"].(string) {
				t.Errorf("%s: selected %v, first variant %v", body, p["selected"], first["title"])
			}
		}
	})
}
