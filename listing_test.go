package vitrine

import (
	"bytes"
	"testing"
	"time"
)

// A filter's canonical form is its own: the same bytes however its maps
// were filled, and other bytes for a filter that keeps or orders other
// products. The page and the facets are not the filter's.
func TestCanonicalFilter(t *testing.T) {
	yes, min, since := true, int64(1000), time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	base := func() ProductFilter {
		return ProductFilter{words: []string{"blue", "shirt"}, sku: "blue shirt", q: ProductQuery{Status: ProductActive, Tags: []QueryText{"garden"},
			Vendor: "Acme", Options: map[string]string{"Size": "M", "Color": "Blue"}, Attributes: map[string]any{"material": "wool", "organic": "true"},
			InStock: &yes, Currency: "BRL", Sort: SortRelevance}, min: &min, since: &since}
	}
	want := base().Canonical()
	for range 20 { // maps iterate in another order each time
		f := base()
		if got := f.Canonical(); !bytes.Equal(got, want) {
			t.Fatalf("the same filter reads\n%s\nand\n%s", got, want)
		}
	}
	page := base()
	page = page.Page(21, &ProductKey{ID: NewID()})
	page.q.Facets = []FacetName{FacetVendor}
	if !bytes.Equal(page.Canonical(), want) {
		t.Error("the page or the facets change the filter's form")
	}
	no, other := false, int64(1001)
	for name, change := range map[string]func(*ProductFilter){
		"words":         func(f *ProductFilter) { f.words = []string{"blue"} },
		"words split":   func(f *ProductFilter) { f.words = []string{"blue shirt"} },
		"sku":           func(f *ProductFilter) { f.sku = "blue" },
		"status":        func(f *ProductFilter) { f.q.Status = "" },
		"tags":          func(f *ProductFilter) { f.q.Tags = append(f.q.Tags, "summer") },
		"vendor":        func(f *ProductFilter) { f.q.Vendor = "Zeta" },
		"product type":  func(f *ProductFilter) { f.q.ProductType = "Acme" },
		"category":      func(f *ProductFilter) { f.q.CategoryID = NewID() },
		"option value":  func(f *ProductFilter) { f.q.Options["Size"] = "L" },
		"option moved":  func(f *ProductFilter) { f.q.Options = map[string]string{"Size": "M Color", "": "Blue"} },
		"attribute":     func(f *ProductFilter) { f.q.Attributes["organic"] = "false" },
		"on sale":       func(f *ProductFilter) { f.q.OnSale = &yes },
		"out of stock":  func(f *ProductFilter) { f.q.InStock = &no },
		"currency":      func(f *ProductFilter) { f.q.Currency = "USD" },
		"min price":     func(f *ProductFilter) { f.min = &other },
		"max price":     func(f *ProductFilter) { f.max, f.min = f.min, nil },
		"updated since": func(f *ProductFilter) { later := since.Add(time.Second); f.since = &later },
		"sort":          func(f *ProductFilter) { f.q.Sort = SortName },
	} {
		f := base()
		change(&f)
		if bytes.Equal(f.Canonical(), want) {
			t.Errorf("%s: another filter has the same form", name)
		}
	}
}
