package feed_test

import (
	"bytes"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/feed"
	"github.com/vitrine/vitrine/service"
	catalogs "github.com/vitrine/vitrine/service/catalog"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/ from what the feeds write")

// A market's Google feed, as vitrine serve streams it through the window's
// Shopper (its assortment, its prices, explicit or converted, its locale's
// text with the default's where untranslated), is byte for byte the
// golden file, on both databases: what the feed writes of a catalog moves
// only when a change means it to (a faster writer or reader changes no
// byte). Made with -update from the code of 2026-12-07, before the feed's
// writer was written by hand.
func TestMarketFeedGolden(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		db := dbtest.Open(t, url)
		tn, owner := newCompany(t, db, "golden")
		tn.Locales = []string{"pt-BR", "es", "en"}
		if err := db.UpdateTenant(ctx, change, tn); err != nil {
			t.Fatal(err)
		}
		now := vitrine.Now()
		apparel := &vitrine.Category{ID: "0190a1b2-0000-7000-8000-0000000c1001", TenantID: tn.ID, Name: "Vestuário", Handle: "vestuario", CreatedAt: now, UpdatedAt: now}
		shirts := &vitrine.Category{ID: "0190a1b2-0000-7000-8000-0000000c1002", TenantID: tn.ID, ParentID: apparel.ID, Name: "Camisetas & <Regatas>", Handle: "camisetas", CreatedAt: now, UpdatedAt: now}
		for _, c := range []*vitrine.Category{apparel, shirts} {
			if err := db.SaveCategory(ctx, change, c, false); err != nil {
				t.Fatal(err)
			}
		}
		var ps []*vitrine.Product
		add := func(p *vitrine.Product, status vitrine.ProductStatus, tags ...string) *vitrine.Product {
			p.TenantID, p.Status, p.Tags = tn.ID, status, tags
			p.Version, p.CreatedAt, p.UpdatedAt, p.CreatedBy, p.UpdatedBy = 1, now, now, owner, owner
			p.Summarize()
			ps = append(ps, p)
			return p
		}
		id := func(i int) string { return fmt.Sprintf("0190a1b2-0000-7000-8000-00000000b%03d", i) }
		// Variants' ids are uuids too (PostgreSQL's columns are).
		fix := func(p *vitrine.Product) *vitrine.Product {
			for j, v := range p.Variants {
				v.ID = p.ID[:24] + fmt.Sprintf("%08x", 0xd0+j) + p.ID[32:]
			}
			return p
		}
		// Translated into en (name, description, options and their values),
		// in the market's categories, explicit prices on one variant.
		s1 := fix(shirt(id(1)))
		s1.Categories = []vitrine.ProductCategory{{ID: shirts.ID, Name: shirts.Name}}
		s1.Name = "Camiseta \"Básica\" <Algodão> & 'Cia'\tnova"
		add(s1, vitrine.ProductActive)
		// Untranslated: the default's text; converted prices only.
		s2 := fix(shirt(id(2)))
		s2.Categories = []vitrine.ProductCategory{{ID: apparel.ID, Name: apparel.Name}}
		s2.Description = "<h2>Ficha</h2><ul><li>Malha 30.1</li><li>Gola &lt;careca&gt;</li></ul><script>x()</script>\r\nFim"
		add(s2, vitrine.ProductActive)
		// In the assortment by its tag; partly translated; no options.
		m3 := fix(mug(id(3)))
		m3.Name, m3.Vendor = "Caneca ]]> Térmica", "Louças & Cia"
		m3.Variants[0].CompareAtPrice = ptr[int64](3990)
		add(m3, vitrine.ProductActive, "Cozinha")
		// Outside the market's assortment, a draft: in no market's feed.
		add(fix(mug(id(4))), vitrine.ProductActive, "outra")
		d5 := fix(shirt(id(5)))
		d5.Categories = []vitrine.ProductCategory{{ID: shirts.ID, Name: shirts.Name}}
		add(d5, vitrine.ProductDraft)
		writes := make([]vitrine.ProductWrite, len(ps))
		for i, p := range ps {
			writes[i] = vitrine.ProductWrite{Create: p}
		}
		if _, err := db.WriteProducts(ctx, change, tn.ID, writes, true, nil); err != nil {
			t.Fatal(err)
		}
		tr := func(r vitrine.TranslationResource, id, field, value, source string) *vitrine.Translation {
			return &vitrine.Translation{Resource: r, ResourceID: id, Locale: "en", Field: field, Value: value, Digest: vitrine.SourceDigest(source)}
		}
		if err := db.SaveTranslations(ctx, change, tn.ID, []*vitrine.Translation{
			tr(vitrine.TranslateProduct, s1.ID, vitrine.FieldName, "Basic \"T-shirt\" <Cotton> & 'Co'", s1.Name),
			tr(vitrine.TranslateProduct, s1.ID, vitrine.FieldDescription, "<p>Soft <b>cotton</b> &amp; cool</p>", s1.Description),
			tr(vitrine.TranslateProduct, s1.ID, vitrine.OptionNameField("Tamanho"), "Size", "Tamanho"),
			tr(vitrine.TranslateProduct, s1.ID, vitrine.OptionNameField("Cor"), "Color", "Cor"),
			tr(vitrine.TranslateProduct, s1.ID, vitrine.OptionValueField("Cor", "Azul"), "Blue", "Azul"),
			tr(vitrine.TranslateProduct, s1.ID, vitrine.OptionValueField("Tamanho", "G"), "L", "G"),
			tr(vitrine.TranslateProduct, m3.ID, vitrine.FieldName, "Thermal mug ]]>", m3.Name),
			tr(vitrine.TranslateCategory, shirts.ID, vitrine.FieldName, "T-shirts & <Tanks>", shirts.Name),
		}); err != nil {
			t.Fatal(err)
		}
		market := &vitrine.Market{TenantID: tn.ID, Handle: "us", Name: "United States", Countries: []string{"US"}, Currency: "USD",
			Locales: []string{"en", "es"}, ExchangeRate: "0.2", Rounding: vitrine.Rounding99, UpdatedAt: now,
			Include: vitrine.MarketInclude{CategoryIDs: []string{apparel.ID}, Tags: []string{"cozinha"}}}
		if err := db.SaveMarket(ctx, change, market); err != nil {
			t.Fatal(err)
		}
		if err := db.SetMarketPrices(ctx, change, tn.ID, market.ID, []vitrine.MarketPrice{
			{VariantID: s1.Variants[1].ID, Price: 1250, CompareAtPrice: ptr[int64](1500)},
			{VariantID: m3.Variants[0].ID, Price: 700},
		}, nil); err != nil {
			t.Fatal(err)
		}
		s := vitrine.NewShop(tn.ID)
		s.Open, s.ProductURL, s.Country, s.UpdatedAt = true, "https://shop.example/products/{handle}", "BR", now
		if err := db.SaveShop(ctx, change, s); err != nil {
			t.Fatal(err)
		}
		own, err := catalogs.New(service.New(db, nil)).OpenWindowBySlug(ctx, "golden")
		if err != nil {
			t.Fatal(err)
		}
		us, err := own.Market(ctx, "us")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			sh   *catalogs.Shopper
		}{{"market-us-en", us.InLocale("en")}, {"market-us-es", us.InLocale("es")}, {"own", own}} {
			defs, err := c.sh.PublicAttributes(ctx)
			if err != nil {
				t.Fatal(err)
			}
			cats, err := c.sh.Categories(ctx)
			if err != nil {
				t.Fatal(err)
			}
			win := feed.NewWindow(c.sh.Shop(), defs, cats)
			win.Tenant, win.BaseURL, win.Origin = c.sh.Tenant(), "https://vitrine.example/shops/golden", "https://vitrine.example"
			rec := httptest.NewRecorder()
			feed.Serve(rec, httptest.NewRequest(http.MethodGet, "/feeds/google.xml", nil), *win, c.sh, feed.Google, "stamp-1", now)
			if rec.Code != http.StatusOK {
				t.Fatalf("%s: %d %s", c.name, rec.Code, rec.Body)
			}
			parseGoogle(t, rec.Body.Bytes())
			golden(t, filepath.Join("testdata", "google-"+c.name+".xml"), rec.Body.Bytes())
		}
	})
}

// golden compares got with the file at path, or writes it there under
// -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (make it with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the feed writes:\n got %s\nwant %s", path, got, want)
	}
}
