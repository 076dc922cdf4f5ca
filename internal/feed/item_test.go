package feed_test

import (
	"slices"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/feed"
)

// An MPN is the manufacturer's part number: the feeds send one only from
// what the company maps to mpn (a public attribute, or an option), never
// its SKU (Google: "don't guess or make up a value"; OpenAI: "do not
// invent a value").
func TestMPNOnlyFromWhatTheCompanyMaps(t *testing.T) {
	p := shirt(shirtID)
	p.Variants[0].Barcode = ""
	src := &memSource{products: []*vitrine.Product{p}}
	win := window()
	for id, it := range parseGoogle(t, writeFeed(t, win, src, feed.Google)) {
		if it.MPN != "" || it.IdentifierExists != "no" {
			t.Errorf("unmapped: item %s has MPN %q, identifier_exists %q; want none, no", id, it.MPN, it.IdentifierExists)
		}
	}
	for id, it := range parseOpenAI(t, writeFeed(t, win, src, feed.OpenAI)) {
		if _, ok := it["mpn"]; ok {
			t.Errorf("unmapped: OpenAI's item %s has mpn %v", id, it["mpn"])
		}
	}

	// A public attribute mapped to mpn is every variant's.
	p.Attributes["part_number"] = "MS-CB-2026"
	win.Shop.Options = map[string]string{"part_number": "mpn"}
	for id, it := range parseGoogle(t, writeFeed(t, win, src, feed.Google)) {
		if it.MPN != "MS-CB-2026" || it.IdentifierExists != "" {
			t.Errorf("mapped attribute: item %s has MPN %q, identifier_exists %q", id, it.MPN, it.IdentifierExists)
		}
	}
	if it := parseOpenAI(t, writeFeed(t, win, src, feed.OpenAI))[shirtID+"-v1"]; it["mpn"] != "MS-CB-2026" {
		t.Errorf("mapped attribute: OpenAI's mpn %v", it["mpn"])
	}
	// A private attribute is never published, mapped or not.
	p.Attributes["supplier_code"] = "FORN-123"
	win.Shop.Options = map[string]string{"supplier_code": "mpn"}
	for id, it := range parseGoogle(t, writeFeed(t, win, src, feed.Google)) {
		if it.MPN != "" {
			t.Errorf("a private attribute mapped to mpn: item %s has MPN %q", id, it.MPN)
		}
	}
	// An option mapped to mpn is each variant's own, over the product's.
	p.Options = append(p.Options, vitrine.Option{Name: "Referência", Values: []string{"REF-M", "REF-G"}})
	p.Variants[0].Options["Referência"], p.Variants[1].Options["Referência"] = "REF-M", "REF-G"
	win.Shop.Options = map[string]string{"referencia": "mpn", "part_number": "mpn"}
	items := parseGoogle(t, writeFeed(t, win, src, feed.Google))
	if items[shirtID+"-v1"].MPN != "REF-M" || items[shirtID+"-v2"].MPN != "REF-G" {
		t.Errorf("an option mapped to mpn: %q, %q", items[shirtID+"-v1"].MPN, items[shirtID+"-v2"].MPN)
	}
}

// A barcode is sent as the GTIN only when it is one a product is traded
// under: GS1's check digit holds, and it is not of restricted circulation
// (a store's own codes, such as by-weight goods').
func TestGTINOnlyFromValidBarcodes(t *testing.T) {
	for barcode, want := range map[string]bool{
		"7891234567895":  true,  // GTIN-13
		"036000291452":   true,  // GTIN-12 (UPC-A)
		"96385074":       true,  // GTIN-8
		"17891234567892": true,  // GTIN-14
		"7891234567890":  false, // wrong check digit
		"2001234567893":  false, // restricted circulation (prefix 2)
		"0412345678903":  false, // restricted circulation (prefix 04)
		"212345678909":   false, // a UPC of restricted circulation (2)
		"0000000000000":  false,
		"789123456789X":  false,
		"CAM-AZ-M":       false,
		"":               false,
	} {
		p := mug(mugID)
		p.Variants[0].Barcode = barcode
		it := parseGoogle(t, writeFeed(t, window(), &memSource{products: []*vitrine.Product{p}}, feed.Google))[mugID+"-v1"]
		if got := it.GTIN != ""; got != want || (got && it.GTIN != barcode) {
			t.Errorf("barcode %q: GTIN %q; want sent %v", barcode, it.GTIN, want)
		}
	}
}

// Nothing is left out of OpenAI's feed for what its Products reference
// makes optional: no GTIN, no MPN, no country. target_countries holds the
// window's country only when it is one the reference takes.
func TestOpenAIKeepsWhatItsReferenceMakesOptional(t *testing.T) {
	p := mug(mugID) // no barcode, no SKU
	src := &memSource{products: []*vitrine.Product{p}}
	win := window()
	win.Shop.Country = ""
	it, ok := parseOpenAI(t, writeFeed(t, win, src, feed.OpenAI))[mugID+"-v1"]
	if !ok {
		t.Fatalf("a product without GTIN, MPN or country is left out of OpenAI's feed")
	}
	if _, ok := it["target_countries"]; ok {
		t.Errorf("no country: target_countries %v", it["target_countries"])
	}
	for _, ch := range []string{vitrine.ChannelOpenAI, vitrine.ChannelGoogle} {
		if ps := feed.Problems(ch, &win, p); ps != nil {
			t.Errorf("%s: %+v", ch, ps)
		}
	}
	for country, want := range map[string][]any{"BR": nil, "US": {"US"}, "MX": {"MX"}} {
		win.Shop.Country = country
		it := parseOpenAI(t, writeFeed(t, win, src, feed.OpenAI))[mugID+"-v1"]
		if got, _ := it["target_countries"].([]any); !slices.Equal(got, want) {
			t.Errorf("country %s: target_countries %v; want %v", country, got, want)
		}
	}
}

// A product's type on the feeds is each of its categories as its whole
// path ("Vestuário > Camisetas", as Google's product_type asks), up to
// Google's five; else its product type.
func TestProductTypeIsTheCategoryPath(t *testing.T) {
	p := shirt(shirtID)
	p.Categories = []vitrine.ProductCategory{{ID: shirtsID, Name: "Camisetas"}, {ID: kitchenID, Name: "Cozinha"}}
	src := &memSource{products: []*vitrine.Product{p}}
	win := window()
	it := parseGoogle(t, writeFeed(t, win, src, feed.Google))[shirtID+"-v1"]
	if want := []string{"Vestuário > Camisetas", "Cozinha"}; !slices.Equal(it.ProductTypes, want) {
		t.Errorf("product_type %q; want %q", it.ProductTypes, want)
	}
	if oi := parseOpenAI(t, writeFeed(t, win, src, feed.OpenAI))[shirtID+"-v1"]; oi["product_category"] != "Vestuário > Camisetas" {
		t.Errorf("OpenAI's product_category %v", oi["product_category"])
	}
	p.Categories = nil
	it = parseGoogle(t, writeFeed(t, win, src, feed.Google))[shirtID+"-v1"]
	if !slices.Equal(it.ProductTypes, []string{"Camisetas"}) {
		t.Errorf("without categories: product_type %q; want the product type", it.ProductTypes)
	}
	for i := range 7 {
		id := vitrine.NewID()
		win.Categories[id] = &vitrine.Category{ID: id, ParentID: apparelID, Name: "Linha " + string(rune('A'+i))}
		p.Categories = append(p.Categories, vitrine.ProductCategory{ID: id})
	}
	if it := parseGoogle(t, writeFeed(t, win, src, feed.Google))[shirtID+"-v1"]; len(it.ProductTypes) != 5 || it.ProductTypes[0] != "Vestuário > Linha A" {
		t.Errorf("seven categories: product_type %q; want Google's five at most", it.ProductTypes)
	}
}
