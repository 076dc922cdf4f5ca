package catalog_test

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/shopify"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// shop is a company of a world, and its owner's access, for the catalog's
// tests.
func shop(t *testing.T, w *world, slug string) *service.Access {
	t.Helper()
	if _, err := w.svc.Operator().CreateTenant(ctx, "Shop "+slug, slug, email("olga")); err != nil {
		t.Fatal(err)
	}
	a, err := w.svc.Operator().Actor(ctx, slug, "", "test")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func ptrTo[T any](v T) *T { return &v }

// shirt is a product of two options and four variants, with images.
func shirt(name string) catalog.NewProduct {
	return catalog.NewProduct{
		Name: name, Vendor: "Acme", ProductType: "Shirts", Tags: []string{"cotton", "Summer"},
		Description: `<p onclick="steal()">Soft <b>cotton</b> <script>alert(1)</script><a href="javascript:alert(1)">more</a><span style="color:red">red</span></p>`,
		Media:       []vitrine.Media{{URL: "https://cdn.example.com/blue.jpg", Alt: "Blue"}, {URL: "https://cdn.example.com/white.jpg", Alt: "White"}},
		Variants: []catalog.NewVariant{
			{SKU: "SH-BL-M", Options: map[string]string{"Color": "Blue", "Size": "M"}, Price: "59.90", CompareAtPrice: "79.90", Stock: 3, Image: "https://cdn.example.com/blue.jpg"},
			{SKU: "SH-BL-L", Options: map[string]string{"Color": "Blue", "Size": "L"}, Price: "64.90", Stock: 0},
			{SKU: "SH-WH-M", Options: map[string]string{"Color": "White", "Size": "M"}, Price: "74.90", Stock: 5},
			{Options: map[string]string{"Color": "White", "Size": "L"}, Price: "74.90", Stock: 1, Barcode: "4006381333931"},
		},
	}
}

func TestCatalogProduct(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		a := shop(t, w, "acme")
		p, err := w.cat.CreateProduct(ctx, a, shirt("Camisa Básica"), "")
		if err != nil {
			t.Fatal(err)
		}
		// The summary a list row shows, and the variants whole.
		if p.Handle != "camisa-basica" || p.SKU != "SH-BL-M" || p.Price != 5990 || p.PriceMax != 7490 || *p.CompareAtPrice != 7990 || p.Stock != 9 ||
			len(p.Variants) != 4 || p.Status != vitrine.ProductActive || !slices.Equal(p.Tags, []string{"cotton", "Summer"}) {
			t.Fatalf("created %+v", p)
		}
		if got := p.Options; len(got) != 2 || got[0].Name != "Color" || !slices.Equal(got[0].Values, []string{"Blue", "White"}) || !slices.Equal(got[1].Values, []string{"M", "L"}) {
			t.Errorf("options derived from the variants: %+v", got)
		}
		// The description keeps its formatting and loses what could run.
		if d := p.Description; strings.Contains(d, "script") || strings.Contains(d, "onclick") || strings.Contains(d, "javascript") ||
			strings.Contains(d, "style") || !strings.Contains(d, "<b>cotton</b>") {
			t.Errorf("description %q", d)
		}
		plain, err := w.cat.CreateProduct(ctx, a, catalog.NewProduct{SKU: "PLAIN-1", Name: "Plain", Price: "1.00", Description: `It's "plain" & simple`}, "")
		if err != nil || plain.Description != `It's "plain" & simple` || plain.Handle != "plain" || len(plain.Variants) != 1 || len(plain.Options) != 0 {
			t.Errorf("a product of the seed's fields: %+v %v", plain, err)
		}
		// By a variant's SKU, any case; the same name makes another handle.
		if got, err := w.cat.GetProduct(ctx, a, "", "sh-wh-m"); err != nil || got.ID != p.ID {
			t.Errorf("by a variant's SKU: %v %v", got, err)
		}
		again, err := w.cat.CreateProduct(ctx, a, catalog.NewProduct{SKU: "OTHER-1", Name: "Camisa Básica", Price: "1.00"}, "")
		if err != nil || again.Handle != "camisa-basica-2" {
			t.Errorf("the same name again: %+v %v", again, err)
		}
		// The text search reads tags, vendor, option values and the description's text.
		for _, q := range []string{"summer", "acme", "white", "soft", "4006381333931"} {
			page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{Query: vitrine.QueryText(q)}, 0, "")
			if err != nil || len(page.Products) != 1 || page.Products[0].ID != p.ID {
				t.Errorf("search %q: %v %v", q, page, err)
			}
		}
		if page, _ := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{Query: "alert"}, 0, ""); len(page.Products) != 0 {
			t.Errorf("a script's text is searchable: %v", page.Products)
		}
		// A draft is not active; publishing is a status change.
		d, err := w.cat.CreateProduct(ctx, a, catalog.NewProduct{SKU: "DRAFT-1", Name: "Soon", Price: "9.00", Status: "draft"}, "")
		if err != nil || d.Status != vitrine.ProductDraft {
			t.Fatalf("draft: %+v %v", d, err)
		}
		if page, _ := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{Status: "active"}, 0, ""); slices.ContainsFunc(page.Products, func(x *vitrine.Product) bool { return x.ID == d.ID }) {
			t.Error("a draft is listed as active")
		}
		if up, err := w.cat.UpdateProduct(ctx, a, d.ID, catalog.ProductChanges{Status: ptrTo("active")}); err != nil || up.Status != vitrine.ProductActive || up.Version != 2 {
			t.Errorf("publish: %+v %v", up, err)
		}
	})
}

// Bad input is a ValidationError naming the field and the value.
func TestCatalogValidation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		a := shop(t, w, "acme")
		if _, err := w.cat.CreateAttribute(ctx, a, catalog.AttributeFields{Key: "waterproof", Type: "boolean"}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.cat.CreateProduct(ctx, a, shirt("Taken"), ""); err != nil {
			t.Fatal(err)
		}
		change := func(f func(*catalog.NewProduct)) catalog.NewProduct {
			p := shirt("Another")
			for i := range p.Variants {
				p.Variants[i].SKU = ""
			}
			f(&p)
			return p
		}
		for _, c := range []struct {
			name  string
			in    catalog.NewProduct
			typ   vitrine.ErrorType
			field string
			says  string
		}{
			{"a combination twice", change(func(p *catalog.NewProduct) { p.Variants[1].Options = map[string]string{"Color": "Blue", "Size": "M"} }),
				vitrine.ValidationError, "variants[1].options", "same options as variants[0] (Blue / M)"},
			{"four options", change(func(p *catalog.NewProduct) {
				p.Options = []vitrine.Option{{Name: "A", Values: []string{"1"}}, {Name: "B", Values: []string{"1"}}, {Name: "C", Values: []string{"1"}}, {Name: "D", Values: []string{"1"}}}
			}), vitrine.ValidationError, "options", "at most 3 options"},
			{"an option value missing", change(func(p *catalog.NewProduct) { p.Variants[2].Options = map[string]string{"Color": "White"} }),
				vitrine.ValidationError, "variants[2].options", `no value for option "Size"`},
			{"an unknown attribute", change(func(p *catalog.NewProduct) { p.Attributes = map[string]any{"material": "cotton"} }),
				vitrine.ValidationError, "attributes.material", `no attribute "material"`},
			{"an attribute of the wrong type", change(func(p *catalog.NewProduct) { p.Attributes = map[string]any{"waterproof": "maybe"} }),
				vitrine.ValidationError, "attributes.waterproof", `true/false attribute; got "maybe"`},
			{"a barcode's check digit", change(func(p *catalog.NewProduct) { p.Variants[0].Barcode = "4006381333932" }),
				vitrine.ValidationError, "variants[0].barcode", "wrong check digit: a GTIN with these digits ends in 1"},
			{"a compare-at price in another currency", change(func(p *catalog.NewProduct) { p.Variants[0].Currency = "USD" }),
				vitrine.ValidationError, "variants[0].currency", "in BRL"},
			{"a price with too many decimals", change(func(p *catalog.NewProduct) { p.Variants[3].CompareAtPrice = "1.999" }),
				vitrine.ValidationError, "variants[3].compare_at_price", "1.999"},
			{"an image that is no URL", change(func(p *catalog.NewProduct) { p.Media[1].URL = "javascript:alert(1)" }),
				vitrine.ValidationError, "media[1].url", "http or https URL"},
			{"a variant image not among the media", change(func(p *catalog.NewProduct) { p.Variants[0].Image = "https://cdn.example.com/other.jpg" }),
				vitrine.ValidationError, "variants[0].image", "not one of the product's media"},
			{"a handle taken", change(func(p *catalog.NewProduct) { p.Handle = "taken" }), vitrine.ConflictError, "handle", `handle "taken"`},
			{"a SKU another product has", change(func(p *catalog.NewProduct) { p.Variants[2].SKU = "sh-bl-m" }), vitrine.ConflictError, "sku", `"sh-bl-m"`},
			{"a SKU twice in the product", change(func(p *catalog.NewProduct) { p.Variants[0].SKU, p.Variants[1].SKU = "X-1", "x-1" }),
				vitrine.ValidationError, "variants[1].sku", "variants[0] already"},
			{"a weight's unit", change(func(p *catalog.NewProduct) { p.Variants[0].Weight = &vitrine.Weight{Value: "1", Unit: "stone"} }),
				vitrine.ValidationError, "variants[0].weight.unit", `"stone"`},
		} {
			_, err := w.cat.CreateProduct(ctx, a, c.in, "")
			e := vitrine.AsError(err)
			if e == nil || e.Type != c.typ || e.Field != c.field || !strings.Contains(e.Message, c.says) {
				t.Errorf("%s: %v (field %q)", c.name, err, fieldOf(e))
			}
		}
	})
}

func fieldOf(e *vitrine.Error) string {
	if e == nil {
		return ""
	}
	return e.Field
}

// The questions shoppers and merchants ask, answered by one call, with
// the facets to narrow them by; another company's products never count.
func TestCatalogFilters(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		a := shop(t, w, "acme")
		other := shop(t, w, "other")
		clothing, err := w.cat.CreateCategory(ctx, a, catalog.CategoryFields{Name: ptrTo("Clothing")})
		if err != nil {
			t.Fatal(err)
		}
		jackets, err := w.cat.CreateCategory(ctx, a, catalog.CategoryFields{Name: ptrTo("Jackets"), ParentID: &clothing.ID})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.cat.CreateAttribute(ctx, a, catalog.AttributeFields{Key: "material", Type: "enum", Values: &[]string{"cotton", "wool"}}); err != nil {
			t.Fatal(err)
		}
		mk := func(a *service.Access, name, vendor string, tags []string, cats []string, material string, variants ...catalog.NewVariant) string {
			t.Helper()
			in := catalog.NewProduct{Name: name, Vendor: vendor, Tags: tags, CategoryIDs: cats, Variants: variants}
			if material != "" {
				in.Attributes = map[string]any{"material": material}
			}
			p, err := w.cat.CreateProduct(ctx, a, in, "")
			if err != nil {
				t.Fatal(err)
			}
			return p.ID
		}
		v := func(size, color, price string, stock int64, compareAt string) catalog.NewVariant {
			return catalog.NewVariant{Options: map[string]string{"Size": size, "Color": color}, Price: price, Stock: stock, CompareAtPrice: compareAt}
		}
		blueM := mk(a, "Blue shirt", "Acme", []string{"garden", "summer"}, nil, "cotton", v("M", "Blue", "59.90", 2, ""), v("L", "Blue", "59.90", 1, ""))
		blueDear := mk(a, "Blue silk shirt", "Acme", []string{"summer"}, nil, "", v("M", "Blue", "120.00", 4, ""), v("S", "Blue", "60.00", 1, ""))
		whiteM := mk(a, "White shirt", "Zeta", []string{"garden"}, nil, "", v("M", "White", "49.90", 3, "69.90"))
		parka := mk(a, "Parka", "Acme", []string{"winter", "garden"}, []string{jackets.ID}, "wool", v("M", "Green", "399.00", 0, ""))
		coat := mk(a, "Coat", "Zeta", nil, []string{clothing.ID}, "wool", v("L", "Black", "299.00", 2, "350.00"))
		// The other company's products match every filter.
		if _, err := w.cat.CreateAttribute(ctx, other, catalog.AttributeFields{Key: "material", Type: "text"}); err != nil {
			t.Fatal(err)
		}
		mk(other, "Blue shirt", "Acme", []string{"garden", "summer"}, nil, "cotton", v("M", "Blue", "10.00", 9, "20.00"))

		ids := func(q vitrine.ProductQuery) []string {
			t.Helper()
			page, err := w.cat.ListProducts(ctx, a, q, 0, "")
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			var out []string
			for _, p := range page.Products {
				out = append(out, p.ID)
			}
			slices.Sort(out)
			return out
		}
		sorted := func(ids ...string) []string { slices.Sort(ids); return ids }
		for _, c := range []struct {
			name string
			q    vitrine.ProductQuery
			want []string
		}{
			{"the blue shirts in size M under R$70", vitrine.ProductQuery{Options: map[string]string{"Color": "Blue", "size": "M"}, MaxPrice: "70.00"}, sorted(blueM)},
			{"size M in stock", vitrine.ProductQuery{Options: map[string]string{"Size": "M"}, InStock: ptrTo(true)}, sorted(blueM, blueDear, whiteM)},
			{"tagged garden from Acme", vitrine.ProductQuery{Tags: []vitrine.QueryText{"Garden"}, Vendor: "acme"}, sorted(blueM, parka)},
			{"in Clothing, with its sub-categories", vitrine.ProductQuery{CategoryID: clothing.ID}, sorted(parka, coat)},
			{"in Jackets", vitrine.ProductQuery{CategoryID: jackets.ID}, sorted(parka)},
			{"on sale", vitrine.ProductQuery{OnSale: ptrTo(true)}, sorted(whiteM, coat)},
			{"of wool", vitrine.ProductQuery{Attributes: map[string]any{"material": "wool"}}, sorted(parka, coat)},
			{"another company's category", vitrine.ProductQuery{CategoryID: vitrine.NewID()}, nil},
		} {
			if got := ids(c.q); !slices.Equal(got, c.want) {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
			}
		}
		// A product counts in its category and in those above it.
		if page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{Facets: []vitrine.FacetName{"categories"}}, 0, ""); err != nil ||
			fmt.Sprint(page.Facets.Values["categories"]) != fmt.Sprint([]vitrine.FacetValue{{Value: clothing.ID, Name: "Clothing", Count: 2}, {Value: jackets.ID, Name: "Jackets", Count: 1}}) {
			t.Errorf("categories facet: %v %v", page, err)
		}
		page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{Tags: []vitrine.QueryText{"garden"}, Facets: []vitrine.FacetName{"vendor", "tags", "options", "categories", "status", "product_type"}}, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		f := page.Facets
		got := fmt.Sprint(f.Values["vendor"], f.Values["tags"], f.Options["Size"], f.Options["Color"], f.Values["categories"], f.Values["status"])
		want := fmt.Sprint([]vitrine.FacetValue{{Value: "Acme", Count: 2}, {Value: "Zeta", Count: 1}},
			[]vitrine.FacetValue{{Value: "garden", Count: 3}, {Value: "summer", Count: 1}, {Value: "winter", Count: 1}},
			[]vitrine.FacetValue{{Value: "M", Count: 3}, {Value: "L", Count: 1}},
			[]vitrine.FacetValue{{Value: "Blue", Count: 1}, {Value: "Green", Count: 1}, {Value: "White", Count: 1}},
			[]vitrine.FacetValue{{Value: clothing.ID, Name: "Clothing", Count: 1}, {Value: jackets.ID, Name: "Jackets", Count: 1}},
			[]vitrine.FacetValue{{Value: "active", Count: 3}})
		if got != want {
			t.Errorf("facets of the garden products:\n got %s\nwant %s", got, want)
		}
		if len(f.Values["product_type"]) != 0 {
			t.Errorf("product types: %v", f.Values["product_type"])
		}
		for _, bad := range []vitrine.ProductQuery{{Facets: []vitrine.FacetName{"colour"}}, {Attributes: map[string]any{"colour": "x"}}, {Attributes: map[string]any{"material": "silk"}}, {CategoryID: "jackets"}} {
			if _, err := w.cat.ListProducts(ctx, a, bad, 0, ""); vitrine.TypeOf(err) != vitrine.ValidationError {
				t.Errorf("%+v: %v", bad, err)
			}
		}
		// Categories and attributes are each company's own.
		if cats, _ := w.cat.ListCategories(ctx, other); len(cats) != 0 {
			t.Errorf("another company lists %v", cats)
		}
		if _, err := w.cat.CreateProduct(ctx, other, catalog.NewProduct{SKU: "O-2", Name: "x", Price: "1", CategoryIDs: []string{jackets.ID}}, ""); vitrine.TypeOf(err) != vitrine.ValidationError {
			t.Errorf("a product in another company's category: %v", err)
		}
	})
}

// Concurrent sales of one variant all count, and its stock never goes
// below zero; each movement names the variant.
func TestVariantStockUnderConcurrency(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		a := shop(t, w, "acme")
		p, err := w.cat.CreateProduct(ctx, a, shirt("Shirt"), "")
		if err != nil {
			t.Fatal(err)
		}
		white := p.Variant("", "SH-WH-M") // stock 5
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			sold    int
			refused int
		)
		for range 12 {
			wg.Go(func() {
				_, err := w.cat.AdjustStock(ctx, a, catalog.VariantRef{VariantID: white.ID}, -1, "sale")
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					sold++
				case vitrine.TypeOf(err) == vitrine.ValidationError:
					refused++
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got, _ := w.cat.GetProduct(ctx, a, p.ID, "")
		if sold != 5 || refused != 7 || got.Variant(white.ID, "").Stock != 0 || got.Stock != 4 || got.Version != 6 {
			t.Errorf("sold %d, refused %d; product %+v", sold, refused, got)
		}
		moves, err := w.cat.ListStockMovements(ctx, a, p.ID, 50, "")
		if err != nil {
			t.Fatal(err)
		}
		sales := 0
		for _, m := range moves.Movements {
			if m.Reason == "sale" {
				sales++
				if m.VariantID != white.ID || m.Delta != -1 {
					t.Errorf("movement %+v", m)
				}
			}
		}
		if sales != 5 {
			t.Errorf("%d sales recorded", sales)
		}
		// A product of several variants is adjusted by one of them.
		if _, err := w.cat.AdjustStock(ctx, a, catalog.VariantRef{ProductID: p.ID}, 1, "count"); vitrine.TypeOf(err) != vitrine.ValidationError {
			t.Errorf("by the id of a product of four variants: %v", err)
		}
		if ch, err := w.cat.AdjustStock(ctx, a, catalog.VariantRef{SKU: "sh-bl-l"}, 2, "restock"); err != nil || ch.Variant.Stock != 2 || ch.Product.Stock != 6 {
			t.Errorf("by SKU: %+v %v", ch, err)
		}
	})
}

// A variant is added, changed or removed on its own; each bumps its
// product's version, and expected_version guards it.
func TestVariantEdits(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		a := shop(t, w, "acme")
		p, err := w.cat.CreateProduct(ctx, a, shirt("Shirt"), "")
		if err != nil {
			t.Fatal(err)
		}
		p, err = w.cat.AddVariant(ctx, a, p.ID, catalog.NewVariant{SKU: "SH-RD-M", Options: map[string]string{"Color": "Red", "Size": "M"}, Price: "59.90", Stock: 2}, &p.Version)
		if err != nil || len(p.Variants) != 5 || p.Version != 2 || !slices.Equal(p.Options[0].Values, []string{"Blue", "White", "Red"}) {
			t.Fatalf("add: %+v %v", p, err)
		}
		if _, err := w.cat.AddVariant(ctx, a, p.ID, catalog.NewVariant{Options: map[string]string{"Color": "Red", "Size": "M"}, Price: "1"}, nil); vitrine.TypeOf(err) != vitrine.ValidationError {
			t.Errorf("the same combination again: %v", err)
		}
		stale := int64(1)
		if _, err := w.cat.UpdateVariant(ctx, a, catalog.VariantRef{SKU: "SH-RD-M"}, catalog.VariantChanges{Price: ptrTo("9.90"), ExpectedVersion: &stale}); vitrine.TypeOf(err) != vitrine.ConflictError {
			t.Errorf("a stale version: %v", err)
		}
		p, err = w.cat.UpdateVariant(ctx, a, catalog.VariantRef{SKU: "sh-rd-m"}, catalog.VariantChanges{Price: ptrTo("9.90"), CompareAtPrice: ptrTo("19.90"), Barcode: ptrTo("96385074")})
		if v := p.Variant("", "SH-RD-M"); err != nil || v.Price != 990 || *v.CompareAtPrice != 1990 || v.Barcode != "96385074" || p.Price != 990 || p.Version != 3 || !p.OnSale() {
			t.Fatalf("update: %+v %v", p, err)
		}
		red := p.Variant("", "SH-RD-M").ID
		p, err = w.cat.DeleteVariant(ctx, a, catalog.VariantRef{VariantID: red}, nil)
		if err != nil || len(p.Variants) != 4 || slices.Contains(p.Options[0].Values, "Red") || p.Version != 4 {
			t.Fatalf("delete: %+v %v", p, err)
		}
		if _, err := w.cat.GetProduct(ctx, a, "", "SH-RD-M"); vitrine.TypeOf(err) != vitrine.NotFoundError {
			t.Errorf("the deleted variant's SKU: %v", err)
		}
		// Its SKU is free again, for another product.
		if _, err := w.cat.CreateProduct(ctx, a, catalog.NewProduct{SKU: "SH-RD-M", Name: "Red", Price: "1"}, ""); err != nil {
			t.Errorf("the freed SKU: %v", err)
		}
		one, _ := w.cat.CreateProduct(ctx, a, catalog.NewProduct{SKU: "ONE-1", Name: "One", Price: "1"}, "")
		if _, err := w.cat.DeleteVariant(ctx, a, catalog.VariantRef{SKU: "ONE-1"}, nil); vitrine.TypeOf(err) != vitrine.ValidationError {
			t.Errorf("a product's only variant: %v", err)
		}
		// update_product's sku, price and stock are a one-variant product's.
		if _, err := w.cat.UpdateProduct(ctx, a, p.ID, catalog.ProductChanges{Price: ptrTo("1.00")}); vitrine.TypeOf(err) != vitrine.ValidationError {
			t.Errorf("the price of a product of four variants: %v", err)
		}
		if up, err := w.cat.UpdateProduct(ctx, a, one.ID, catalog.ProductChanges{Price: ptrTo("2.50"), Stock: ptrTo(int64(7)), Tags: &[]string{"new"}}); err != nil || up.Price != 250 || up.Stock != 7 || up.Variants[0].ID != one.Variants[0].ID {
			t.Errorf("a one-variant product's price and stock: %+v %v", up, err)
		}
	})
}

// A Shopify export comes in whole, goes back out, and comes in again as it
// was, into another company.
func TestShopifyRoundTrip(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		a := shop(t, w, "acme")
		file, err := os.ReadFile("../../internal/shopify/testdata/export_classic.csv")
		if err != nil {
			t.Fatal(err)
		}
		res, err := w.cat.ImportShopify(ctx, a, bytes.NewReader(file), "BRL", "create", false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed != 0 || res.Created == 0 || len(res.Notices) == 0 {
			t.Fatalf("import: %+v, notices %v", res.ImportSummary, res.Notices)
		}
		first := exportShopify(t, w, a)
		b := shop(t, w, "beta")
		res, err = w.cat.ImportShopify(ctx, b, strings.NewReader(first), "BRL", "create", false, nil)
		if err != nil || res.Failed != 0 {
			t.Fatalf("import of the export: %+v %v", res, err)
		}
		if second := exportShopify(t, w, b); second != first {
			t.Errorf("an export imported elsewhere exports differently:\n%s\n---\n%s", first, second)
		}
		// Imported again over itself, it changes nothing: not a version, not
		// a time.
		before := stamps(t, w, a)
		res, err = w.cat.ImportShopify(ctx, a, strings.NewReader(first), "BRL", "upsert", false, nil)
		if err != nil || res.Failed != 0 || res.Updated != 0 || res.Created != 0 || res.Unchanged != len(before) {
			t.Fatalf("upsert of the export: %+v %v", res.ImportSummary, err)
		}
		if again := exportShopify(t, w, a); again != first {
			t.Errorf("an upsert of its own export changed the catalog")
		}
		if after := stamps(t, w, a); !maps.Equal(after, before) {
			t.Errorf("an upsert of its own export changed versions or times:\n%v\n%v", before, after)
		}
		// A row that changes one product updates that one alone.
		changed := strings.Replace(first, "Classic Organic Tee,", "Classic Organic Tee II,", 1)
		res, err = w.cat.ImportShopify(ctx, a, strings.NewReader(changed), "BRL", "upsert", false, nil)
		if err != nil || res.Updated != 1 || res.Unchanged != len(before)-1 {
			t.Fatalf("upsert of one change: %+v %v", res.ImportSummary, err)
		}
	})
}

// stamps is each product's version and update time, by id.
func stamps(t *testing.T, w *world, a *service.Access) map[string]string {
	t.Helper()
	page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{Sort: "name"}, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range page.Products {
		out[p.ID] = fmt.Sprintf("v%d %s", p.Version, p.UpdatedAt.Format(time.RFC3339Nano))
	}
	return out
}

func exportShopify(t *testing.T, w *world, a *service.Access) string {
	t.Helper()
	cats, err := w.cat.ListCategories(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := w.cat.ListAttributes(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, d := range defs {
		keys = append(keys, d.Key)
	}
	var buf bytes.Buffer
	sw := shopify.NewWriter(&buf, keys, func(p *vitrine.Product) string {
		if len(p.Categories) == 0 {
			return ""
		}
		return catalog.CategoryPath(cats, p.Categories[0].ID)
	})
	page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{Sort: "name"}, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range page.Products {
		if err := sw.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// A file of more products than one batch is written a batch at a time,
// every product with its result and its line, in the file's order; a
// product refused in the middle is named by its line and stops nothing.
func TestShopifyImportInBatches(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	a := shop(t, w, "acme")
	var ps []*vitrine.Product
	for i := range 2500 {
		p := &vitrine.Product{Handle: fmt.Sprintf("p-%04d", i), Name: fmt.Sprintf("Product %d", i), Status: vitrine.ProductActive, Currency: "BRL",
			Options: []vitrine.Option{{Name: "Size", Values: []string{"S", "M"}}}}
		for j, size := range []string{"S", "M"} {
			p.Variants = append(p.Variants, &vitrine.Variant{SKU: fmt.Sprintf("P-%04d-%s", i, size), Options: map[string]string{"Size": size},
				Price: int64(1000 + i), Stock: int64(j), Policy: vitrine.PolicyDeny, RequiresShipping: true, Taxable: true, Position: j + 1})
		}
		ps = append(ps, p)
	}
	var buf bytes.Buffer
	if err := shopify.Write(&buf, ps, func(*vitrine.Product) string { return "" }); err != nil {
		t.Fatal(err)
	}
	// Product 500 (priced 15.00) gets a price no currency has.
	file := strings.Replace(buf.String(), ",15.00,", ",15.0x0,", 1)
	var last int
	res, err := w.cat.ImportShopify(ctx, a, strings.NewReader(file), "", "create", false, func(done, total int) { last = done })
	if err != nil {
		t.Fatal(err)
	}
	if res.Created != 2499 || res.Failed != 1 || len(res.Results) != 2500 || last != 2499 {
		t.Fatalf("created %d, failed %d, %d results, progress %d", res.Created, res.Failed, len(res.Results), last)
	}
	for i, r := range res.Results {
		if want := 2 + 2*i; res.Lines[i] != want || r.Handle != fmt.Sprintf("p-%04d", i) {
			t.Fatalf("result %d: line %d (want %d), %+v", i, res.Lines[i], want, r)
		}
	}
	if r := res.Results[500]; r.Status != catalog.RowFailed || !strings.Contains(r.Err.Message, "line 1002") {
		t.Errorf("the refused product: %+v %v", r, r.Err)
	}
}
