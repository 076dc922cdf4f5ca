package shopwindow

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
)

// The UCP-Agent header is a dictionary structured field: its profile
// member's string, wherever it stands and whatever parameters follow; a
// token or a missing member names none.
func TestAgentHeader(t *testing.T) {
	for h, want := range map[string]string{
		`profile="https://agent.example/p.json"`:                   "https://agent.example/p.json",
		`version="2026-04-08", profile="https://a.example/x.json"`: "https://a.example/x.json",
		`profile="https://a.example/x,y.json";v=1`:                 "https://a.example/x,y.json",
		` profile = "https://a.example/q\"uote"`:                   `https://a.example/q"uote`,
		`profile=https://a.example/p.json`:                         "",
		`other="https://a.example/p.json"`:                         "",
		``:                                                         "",
	} {
		got, ok := agentHeader(h)
		if got != want || ok != (want != "") {
			t.Errorf("agentHeader(%q) = %q, %v; want %q", h, got, ok, want)
		}
	}
}

// A profile is kept for its max-age, never less than UCP's 60 s floor nor
// more than an hour, whatever else its Cache-Control says.
func TestProfileCacheTTL(t *testing.T) {
	for cc, want := range map[string]time.Duration{
		"":                       time.Minute,
		"no-store":               time.Minute,
		"public, max-age=10":     time.Minute,
		"public, max-age=600":    10 * time.Minute,
		"max-age=\"300\"":        5 * time.Minute,
		"public, max-age=999999": time.Hour,
	} {
		if got := cacheTTL(cc); got != want {
			t.Errorf("cacheTTL(%q) = %s, want %s", cc, got, want)
		}
	}
}

func shirt() *vitrine.Product {
	at := func(n int64) *int64 { return &n }
	p := &vitrine.Product{ID: vitrine.NewID(), TenantID: "t1", Handle: "camiseta", Name: "Camiseta", Status: vitrine.ProductActive,
		Description: "<p>Algodão <strong>penteado</strong></p>", Currency: "BRL", Vendor: "TechNova",
		Options:    []vitrine.Option{{Name: "Cor", Values: []string{"Azul", "Preto"}}, {Name: "Tamanho", Values: []string{"M", "G"}}},
		Media:      []vitrine.Media{{URL: "/demo/images/shirt.svg", Alt: "Camiseta"}},
		Attributes: map[string]any{"material": "algodão", "custo": 12.5},
		Variants: []*vitrine.Variant{
			{ID: "v1", SKU: "CAM-AZ-M", Options: map[string]string{"Cor": "Azul", "Tamanho": "M"}, Price: 5990, Stock: 0, Policy: vitrine.PolicyDeny},
			{ID: "v2", SKU: "CAM-AZ-G", Options: map[string]string{"Cor": "Azul", "Tamanho": "G"}, Price: 6990, CompareAtPrice: at(7990), Stock: 3, Barcode: "7891234567895"},
			{ID: "v3", SKU: "CAM-PR-M", Options: map[string]string{"Cor": "Preto", "Tamanho": "M"}, Price: 5990, Stock: 0, Policy: vitrine.PolicyContinue},
		}}
	p.Summarize()
	return p
}

// What the public sees of a product: prices in minor units with the
// currency, compare-at as list prices, availability but not stock unless
// the window discloses it, public attributes only, links from the
// template, relative media made absolute.
func TestProductOf(t *testing.T) {
	win := &Window{Tenant: &vitrine.Tenant{ID: "t1"}, Origin: "https://vitrine.example",
		Shop: &vitrine.Shop{ProductURL: "https://shop.example/p/{handle}", Stock: vitrine.StockAvailability}}
	v := &view{win: win, public: map[string]bool{"material": true}}
	b, _ := json.Marshal(v.productOf(shirt()))
	s := string(b)
	for _, want := range []string{
		`"price_range":{"min":{"amount":5990,"currency":"BRL"},"max":{"amount":6990,"currency":"BRL"}}`,
		`"list_price_range":{"min":{"amount":5990,"currency":"BRL"},"max":{"amount":7990,"currency":"BRL"}}`,
		`"url":"https://shop.example/p/camiseta"`, `"url":"https://shop.example/p/camiseta?variant=v2"`,
		`"url":"https://vitrine.example/demo/images/shirt.svg"`, `"attributes":{"material":"algodão"}`, `"brand":"TechNova"`,
		`"title":"Azul / G"`, `"list_price":{"amount":7990,"currency":"BRL"}`, `"barcodes":[{"type":"EAN","value":"7891234567895"}]`,
		`"availability":{"available":false,"status":"out_of_stock"}`, `"availability":{"available":true,"status":"backorder"}`,
		`"description":{"plain":"Algodão penteado","html":"\u003cp\u003eAlgodão \u003cstrong\u003epenteado\u003c/strong\u003e\u003c/p\u003e"}`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s in\n%s", want, s)
		}
	}
	for _, never := range []string{"custo", "inventory_quantity", `"stock"`, "status\":\"active", "draft"} {
		if strings.Contains(s, never) {
			t.Errorf("%s shown in\n%s", never, s)
		}
	}
	// A product without a description still has one format of it, as
	// UCP's description asks (minProperties 1): never {}.
	bare := shirt()
	bare.Description = ""
	b, _ = json.Marshal(v.productOf(bare))
	if strings.Contains(string(b), `"description":{}`) || !strings.Contains(string(b), `"description":{"plain":""}`) {
		t.Errorf("a product without a description: %s", b)
	}
	win.Shop.Stock = vitrine.StockExact
	b, _ = json.Marshal(v.productOf(shirt()))
	if !strings.Contains(string(b), `"metadata":{"inventory_quantity":3}`) {
		t.Errorf("exact stock disclosed: %s", b)
	}
}

// Selections no variant matches are relaxed from the end of the
// preferences (those the preferences do not name first), and written in
// the product's order and spelling.
func TestRelax(t *testing.T) {
	p := shirt()
	for _, c := range []struct {
		selected []selectedOption
		prefs    []string
		want     string
	}{
		{[]selectedOption{{"cor", "preto"}, {"Tamanho", "M"}}, nil, "Cor=Preto Tamanho=M"},
		{[]selectedOption{{"Cor", "Preto"}, {"Tamanho", "G"}}, []string{"Cor", "Tamanho"}, "Cor=Preto"},
		{[]selectedOption{{"Cor", "Preto"}, {"Tamanho", "G"}}, []string{"Tamanho", "Cor"}, "Tamanho=G"},
		{[]selectedOption{{"Tamanho", "G"}, {"Cor", "Preto"}}, []string{"Tamanho"}, "Tamanho=G"},
		{[]selectedOption{{"Cor", "Verde"}}, nil, ""},
	} {
		var got []string
		for _, s := range relax(p, p.Variants, c.selected, c.prefs) {
			got = append(got, s.Name+"="+s.Label)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("relax(%v, %v) = %v, want %q", c.selected, c.prefs, got, c.want)
		}
	}
}

// A product's featured variant follows a list row's rule: the cheapest
// available within the price filter (the black M on backorder at 59.90,
// not the blue G at 69.90 listed before it), else the cheapest within it.
func TestFeaturedIsTheCheapestAvailable(t *testing.T) {
	p := shirt()
	at := func(n int64) *int64 { return &n }
	for _, c := range []struct {
		fl   filter
		want string
	}{
		{filter{}, "v3"},
		{filter{max: at(6500)}, "v3"},
		{filter{min: at(6000)}, "v2"},
		{filter{max: at(100)}, ""},
	} {
		if got := featured(p, &c.fl); got != c.want {
			t.Errorf("price %v–%v: featured %q, want %q", c.fl.min, c.fl.max, got, c.want)
		}
	}
	p.Variants[2].Policy = vitrine.PolicyDeny // none of the 59.90 available
	if got := featured(p, &filter{max: at(6000)}); got != "v1" {
		t.Errorf("none available under 60: featured %q, want the first at the lowest price, v1", got)
	}
}
