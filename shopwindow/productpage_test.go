package shopwindow

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
)

// A variant's gtin is its barcode only where that is a valid GTIN (the
// feeds' rule); a variant's options fill the properties a ProductGroup
// varies by, as the window maps them.
func TestProductLD(t *testing.T) {
	shop := vitrine.NewShop("t1")
	shop.ProductURL = "https://w.example/products/{handle}"
	win := &Window{Tenant: &vitrine.Tenant{ID: "t1", Currency: "EUR"}, Shop: shop, Base: "https://w.example", Origin: "https://w.example"}
	p := &vitrine.Product{ID: "p1", TenantID: "t1", Handle: "tee", Name: "Tee", Status: vitrine.ProductActive, Currency: "EUR",
		Options: []vitrine.Option{{Name: "Size", Values: []string{"S", "M"}}, {Name: "Fit", Values: []string{"Slim"}}},
		Variants: []*vitrine.Variant{
			{ID: "v1", SKU: "TEE-S", Options: map[string]string{"Size": "S", "Fit": "Slim"}, Price: 1990, Barcode: "4006381333931", Stock: 3},
			{ID: "v2", SKU: "TEE-M", Options: map[string]string{"Size": "M", "Fit": "Slim"}, Price: 1990, Barcode: "4006381333932"},
		}}
	v := &view{win: win, public: map[string]bool{}}
	b, err := json.Marshal(productLD(win, p, v.productOf(p)))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Type       string   `json:"@type"`
		VariesBy   []string `json:"variesBy"`
		HasVariant []struct {
			SKU, GTIN, Size string
			Offers          struct{ URL, Price, Availability string }
		} `json:"hasVariant"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if g.Type != "ProductGroup" || len(g.VariesBy) != 1 || g.VariesBy[0] != "https://schema.org/size" || len(g.HasVariant) != 2 {
		t.Fatalf("%s", b)
	}
	s, m := g.HasVariant[0], g.HasVariant[1]
	if s.GTIN != "4006381333931" || m.GTIN != "" || s.Size != "S" || s.Offers.Price != "19.90" ||
		s.Offers.URL != "https://w.example/products/tee?variant=v1" || m.Offers.Availability != "https://schema.org/OutOfStock" {
		t.Errorf("%s", b)
	}
	if strings.Contains(string(b), "Slim") && strings.Contains(string(b), `"fit"`) {
		t.Errorf("an option schema.org has no property for: %s", b)
	}
}

// A price says which currency it is in, in the page's language: a
// Portuguese page of dollars does not show a bare "$", a Canadian one in
// English tells its dollars from the United States'.
func TestMoneyNamesItsCurrency(t *testing.T) {
	for _, tc := range []struct{ country, lang, cur, want string }{
		{"BR", "", "BRL", "R$ 1.234,50"},
		{"BR", "pt-BR", "USD", "US$ 1.234,50"},
		{"BR", "en", "USD", "$ 1,234.50"},
		{"BR", "en", "CAD", "CA$ 1,234.50"},
		{"BR", "es", "EUR", "€ 1.234,50"},
		{"BR", "en", "XYZ", "1234.50 XYZ"},
	} {
		shop := &vitrine.Shop{Country: tc.country}
		l := localeOf(shop)
		if tc.lang != "" {
			l = localeOfLanguage(tc.lang, shop)
		}
		if got := strings.ReplaceAll(l.money(123450, tc.cur), "\u00a0", " "); got != tc.want {
			t.Errorf("%s in %q: %q, want %q", tc.cur, tc.lang, got, tc.want)
		}
	}
}
