package catalog_test

import (
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service/catalog"
)

// A company has a currency: its new products, its imports and its price
// filters use it unless told otherwise, and a price filter in a currency
// its products are not priced in says so instead of answering nothing.
func TestCompanyCurrency(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		op := w.svc.Operator()
		if _, err := op.NewTenant(ctx, "US Shop", "us-shop", "usd", email("olga")); err != nil {
			t.Fatal(err)
		}
		if _, err := op.NewTenant(ctx, "Bad", "bad", "XYZ", email("olga")); vitrine.TypeOf(err) != vitrine.ValidationError {
			t.Errorf("an unknown currency: %v", err)
		}
		a, err := op.Actor(ctx, "us-shop", "", "test")
		if err != nil {
			t.Fatal(err)
		}
		p, err := w.cat.CreateProduct(ctx, a, catalog.NewProduct{Name: "Cap", SKU: "CAP-1", Price: "20.00"}, "")
		if err != nil || p.Currency != "USD" {
			t.Fatalf("a new product: %+v %v", p, err)
		}
		res, err := w.cat.ImportShopify(ctx, a, strings.NewReader("Handle,Title,Variant Price\nmug,Mug,12.50\n"), "", "create", false, nil)
		if err != nil || res.Created != 1 {
			t.Fatalf("import: %+v %v", res, err)
		}
		page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{MaxPrice: "50"}, 0, "")
		if err != nil || len(page.Products) != 2 || page.Products[0].Currency != "USD" || page.Products[1].Currency != "USD" {
			t.Fatalf("max_price 50 in the company's currency: %+v %v", page, err)
		}
		// In another currency: not an empty page, the reason.
		_, err = w.cat.ListProducts(ctx, a, vitrine.ProductQuery{MaxPrice: "50", Currency: "BRL"}, 0, "")
		if e := vitrine.AsError(err); e == nil || e.Type != vitrine.ValidationError || e.Field != "currency" || !strings.Contains(e.Message, `give currency "USD"`) {
			t.Errorf("a price filter in BRL: %v", err)
		}
		// Priced in USD, none in range: an empty page, rightly.
		if page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{MinPrice: "1000"}, 0, ""); err != nil || len(page.Products) != 0 {
			t.Errorf("min_price 1000: %+v %v", page, err)
		}
		// The company's currency changes; its products keep theirs.
		t2, err := op.UpdateTenant(ctx, "us-shop", nil, nil, ptrTo("EUR"), nil)
		if err != nil || t2.Currency != "EUR" {
			t.Fatalf("update: %+v %v", t2, err)
		}
		if p, err := w.cat.CreateProduct(ctx, a, catalog.NewProduct{Name: "Scarf", SKU: "SCARF-1", Price: "20.00"}, ""); err != nil || p.Currency != "EUR" {
			t.Errorf("a new product after the change: %+v %v", p, err)
		}
		if p, err := w.cat.GetProduct(ctx, a, "", "CAP-1"); err != nil || p.Currency != "USD" {
			t.Errorf("a product of before: %+v %v", p, err)
		}
		// A company of before the migration is in BRL.
		b := shop(t, w, "acme")
		if p, err := w.cat.CreateProduct(ctx, b, catalog.NewProduct{Name: "Pen", SKU: "PEN-1", Price: "2.00"}, ""); err != nil || p.Currency != "BRL" {
			t.Errorf("a product of a company by default: %+v %v", p, err)
		}
	})
}

// A variant Shopify does not track comes in untracked, its quantity and
// policy as given, and goes back out so; upserted again, it is unchanged.
func TestUntrackedVariants(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		a := shop(t, w, "acme")
		file := "Handle,Title,Option1 Name,Option1 Value,Variant SKU,Variant Inventory Tracker,Variant Inventory Qty,Variant Inventory Policy,Variant Price\n" +
			"mug,Mug,Size,S,MUG-S,,4,deny,10.00\n" +
			"mug,,Size,M,MUG-M,shopify,6,continue,12.00\n"
		res, err := w.cat.ImportShopify(ctx, a, strings.NewReader(file), "", "create", false, nil)
		if err != nil || res.Created != 1 || len(res.Notices) != 0 {
			t.Fatalf("import: %+v %v %v", res, err, res.Notices)
		}
		p, err := w.cat.GetProduct(ctx, a, "", "MUG-S")
		if err != nil {
			t.Fatal(err)
		}
		if v := p.Variants[0]; !v.Untracked || v.Stock != 4 || v.Policy != vitrine.PolicyDeny {
			t.Errorf("the untracked variant: %+v", *v)
		}
		if v := p.Variants[1]; v.Untracked || v.Stock != 6 || v.Policy != vitrine.PolicyContinue {
			t.Errorf("the tracked variant: %+v", *v)
		}
		out := exportShopify(t, w, a)
		if !strings.Contains(out, ",MUG-S,,,4,deny,") || !strings.Contains(out, ",MUG-M,,shopify,6,continue,") {
			t.Errorf("export:\n%s", out)
		}
		res, err = w.cat.ImportShopify(ctx, a, strings.NewReader(out), "", "upsert", false, nil)
		if err != nil || res.Unchanged != 1 {
			t.Errorf("upsert of the export: %+v %v", res.ImportSummary, err)
		}
	})
}
