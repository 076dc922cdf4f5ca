package httpserver_test

import (
	"bytes"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

// A product's handle translated in a locale names it in the window read in
// that locale, at its page and in a UCP lookup, on the company's window
// (?locale=, context.language) and in a market's (whose first locale it
// is), through the handler stack vitrine serve mounts; its own handle
// names it there still; the translated handle names nothing in the
// company's default locale, nor another company's window.
func TestShopWindowTranslatedHandle(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		sw := newShopWorld(t, url, nil)
		sw.openPages("technova")
		sw.openPages("mercado-verde")
		tn := sw.tenants["technova"]
		ten, err := sw.db.TenantByID(ctx, tn)
		if err != nil {
			t.Fatal(err)
		}
		ten.Locales = []string{"pt-BR", "es", "en"}
		call := func(tool string) vitrine.Change {
			return vitrine.Change{UserID: vitrine.NewID(), Call: vitrine.Call{RequestID: vitrine.NewID(), Tool: tool, At: vitrine.Now()}}
		}
		if err := sw.db.UpdateTenant(ctx, call("update_tenant"), ten); err != nil {
			t.Fatal(err)
		}
		mouse, err := sw.db.ProductBySKU(ctx, tn, "MS-LOGI-MX3S")
		if err != nil {
			t.Fatal(err)
		}
		tr := func(locale, handle string) *vitrine.Translation {
			return &vitrine.Translation{Resource: vitrine.TranslateProduct, ResourceID: mouse.ID, Locale: locale, Field: vitrine.FieldHandle,
				Value: handle, Digest: vitrine.SourceDigest(mouse.Handle)}
		}
		if err := sw.db.SaveTranslations(ctx, call("translate_product"), tn, []*vitrine.Translation{tr("es", "raton-logitech"), tr("en", "logitech-mouse")}); err != nil {
			t.Fatal(err)
		}
		us := &vitrine.Market{TenantID: tn, Handle: "us", Name: "United States", Countries: []string{"US"}, Currency: "USD", Locales: []string{"en", "es"},
			ExchangeRate: "0.2", Rounding: vitrine.Rounding99, UpdatedAt: vitrine.Now()}
		if err := sw.db.SaveMarket(ctx, call("save_market"), us); err != nil {
			t.Fatal(err)
		}
		agent := map[string]string{"UCP-Agent": `profile="` + sw.profile + `"`}
		page := func(path string) int { return sw.do("GET", "", path, "", nil).status }
		lookup := func(root, id, language string) bool {
			t.Helper()
			body := `{"ids":["` + id + `"]`
			if language != "" {
				body += `,"context":{"language":"` + language + `"}`
			}
			res := sw.do("POST", "", root+"/ucp/catalog/lookup", body+`}`, agent)
			if res.status != 200 {
				t.Fatalf("lookup %s in %s: %d %s", id, root, res.status, res.body)
			}
			ps := productsOf(t, res.json(t))
			return len(ps) == 1 && bytes.Contains(res.body, []byte(mouse.ID))
		}
		const own, market = "/shops/technova", "/shops/technova/markets/us"
		for _, c := range []struct {
			path string
			want int
		}{
			{own + "/products/raton-logitech?locale=es", 200},
			{own + "/products/" + mouse.Handle + "?locale=es", 200},
			{own + "/products/raton-logitech", 404},
			{own + "/products/logitech-mouse?locale=es", 404},
			{market + "/products/logitech-mouse", 200},
			{market + "/products/" + mouse.Handle, 200},
			{market + "/products/raton-logitech?locale=es", 200},
			{market + "/products/raton-logitech", 404},
			{"/shops/mercado-verde/products/raton-logitech?locale=es", 404},
		} {
			if got := page(c.path); got != c.want {
				t.Errorf("GET %s: %d, want %d", c.path, got, c.want)
			}
		}
		for _, c := range []struct {
			root, id, language string
			want               bool
		}{
			{own, "raton-logitech", "es", true},
			{own, mouse.Handle, "es", true},
			{own, "raton-logitech", "", false},
			{market, "logitech-mouse", "", true},
			{market, "raton-logitech", "es", true},
			{market, mouse.Handle, "", true},
			{"/shops/mercado-verde", "raton-logitech", "es", false},
		} {
			if got := lookup(c.root, c.id, c.language); got != c.want {
				t.Errorf("lookup %s in %s (%q): %v, want %v", c.id, c.root, c.language, got, c.want)
			}
		}
	})
}
