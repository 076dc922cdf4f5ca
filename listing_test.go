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
		return ProductFilter{Words: []string{"blue", "shirt"}, SKU: "blue shirt", Status: ProductActive, Tags: []QueryText{"garden"},
			Vendor: "Acme", Options: map[string]string{"Size": "M", "Color": "Blue"}, Attributes: map[string]any{"material": "wool", "organic": "true"},
			InStock: &yes, Currency: "BRL", MinMinor: &min, Since: &since, Sort: SortRelevance}
	}
	want := base().Canonical()
	for range 20 { // maps iterate in another order each time
		f := base()
		if got := f.Canonical(); !bytes.Equal(got, want) {
			t.Fatalf("the same filter reads\n%s\nand\n%s", got, want)
		}
	}
	page := base()
	page.Limit, page.After, page.Facets = 21, &ProductKey{ID: NewID()}, []FacetName{FacetVendor}
	if !bytes.Equal(page.Canonical(), want) {
		t.Error("the page or the facets change the filter's form")
	}
	no, other := false, int64(1001)
	for name, change := range map[string]func(*ProductFilter){
		"words":         func(f *ProductFilter) { f.Words = []string{"blue"} },
		"words split":   func(f *ProductFilter) { f.Words = []string{"blue shirt"} },
		"sku":           func(f *ProductFilter) { f.SKU = "blue" },
		"status":        func(f *ProductFilter) { f.Status = "" },
		"tags":          func(f *ProductFilter) { f.Tags = append(f.Tags, "summer") },
		"vendor":        func(f *ProductFilter) { f.Vendor = "Zeta" },
		"product type":  func(f *ProductFilter) { f.ProductType = "Acme" },
		"category":      func(f *ProductFilter) { f.CategoryID = NewID() },
		"option value":  func(f *ProductFilter) { f.Options["Size"] = "L" },
		"option moved":  func(f *ProductFilter) { f.Options = map[string]string{"Size": "M Color", "": "Blue"} },
		"attribute":     func(f *ProductFilter) { f.Attributes["organic"] = "false" },
		"on sale":       func(f *ProductFilter) { f.OnSale = &yes },
		"out of stock":  func(f *ProductFilter) { f.InStock = &no },
		"currency":      func(f *ProductFilter) { f.Currency = "USD" },
		"min price":     func(f *ProductFilter) { f.MinMinor = &other },
		"max price":     func(f *ProductFilter) { f.MaxMinor, f.MinMinor = f.MinMinor, nil },
		"updated since": func(f *ProductFilter) { later := since.Add(time.Second); f.Since = &later },
		"sort":          func(f *ProductFilter) { f.Sort = SortName },
	} {
		f := base()
		change(&f)
		if bytes.Equal(f.Canonical(), want) {
			t.Errorf("%s: another filter has the same form", name)
		}
	}
}
