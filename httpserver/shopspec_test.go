package httpserver_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/feed"
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

// filters.categories is an OR of every category named, each with those
// under it, as UCP says: "Camisetas" and "Teclados" find the shirts and
// the keyboards, "Vestuário" and "Monitores" every garment and the
// monitors; a name no category has adds nothing, and names only of that
// kind find nothing.
func TestShopWindowCategoriesAreOR(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		sw := newShopWorld(t, url, nil)
		sw.open("technova")
		search := func(categories string) []string {
			t.Helper()
			res := sw.rest("technova", "search", `{"filters":{"categories":`+categories+`},"pagination":{"limit":50}}`)
			if res.status != 200 {
				t.Fatalf("%s: %d %s", categories, res.status, res.body)
			}
			return titles(productsOf(t, res.json(t)))
		}
		one, other := search(`["Camisetas"]`), search(`["Teclados"]`)
		if len(one) == 0 || len(other) == 0 {
			t.Fatalf("Camisetas %v, Teclados %v", one, other)
		}
		both := search(`["Camisetas","Teclados","Nenhuma"]`)
		if len(both) != len(one)+len(other) {
			t.Errorf("Camisetas or Teclados: %v; want %v and %v", both, one, other)
		}
		for _, want := range append(one, other...) {
			if !slices.Contains(both, want) {
				t.Errorf("Camisetas or Teclados lacks %s: %v", want, both)
			}
		}
		garments, monitors := search(`["Vestuário"]`), search(`["Informática > Monitores"]`)
		if got := search(`["vestuario","Monitores"]`); len(got) != len(garments)+len(monitors) || len(garments) < 2 {
			t.Errorf("Vestuário or Monitores: %v; want %v and %v", got, garments, monitors)
		}
		if got := search(`["Nenhuma"]`); len(got) != 0 {
			t.Errorf("a category no one has: %v", got)
		}
	})
}

// Readiness and serving follow one rule: a product check_shop reports
// blocked for UCP (no description) is not served by the window, by search,
// lookup or get_product; given a description, it is.
func TestShopWindowServesWhatUCPReadinessAllows(t *testing.T) {
	sw := newShopWorld(t, dbtest.SQLiteURL(t), nil)
	sw.open("technova")
	mouse := sw.productID("technova", "MS-LOGI-MX3S")
	describe := func(d string) {
		u, _ := sw.db.UserByEmail(ctx, owner)
		call := vitrine.Call{RequestID: vitrine.NewID(), Tool: "update_product", At: vitrine.Now()}
		if _, err := sw.db.UpdateProduct(ctx, vitrine.Change{UserID: u.ID, Call: call}, sw.tenants["technova"], mouse, func(p *vitrine.Product) error {
			p.Description = d
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	served := func() (search, lookup, product bool) {
		search = len(productsOf(t, sw.rest("technova", "search", `{"query":"logitech"}`).json(t))) == 1
		lookup = len(productsOf(t, sw.rest("technova", "lookup", `{"ids":["`+mouse+`"]}`).json(t))) == 1
		product = sw.rest("technova", "product", `{"id":"`+mouse+`"}`).json(t)["product"] != nil
		return
	}
	describe("")
	p, _ := sw.db.ProductByID(ctx, sw.tenants["technova"], mouse)
	win := &feed.Window{Shop: vitrine.NewShop(p.TenantID)}
	if len(feed.Problems(vitrine.ChannelUCP, win, p)) == 0 {
		t.Fatal("check_shop's rule takes a product without a description for UCP")
	}
	if s, l, g := served(); s || l || g {
		t.Errorf("a product UCP's readiness blocks is served: search %v, lookup %v, get_product %v", s, l, g)
	}
	describe("<p>Sem fio, <b>silencioso</b>.</p>")
	if s, l, g := served(); !s || !l || !g {
		t.Errorf("a ready product: search %v, lookup %v, get_product %v", s, l, g)
	}
}
