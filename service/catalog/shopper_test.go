package catalog_test

import (
	"slices"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
	shopsvc "github.com/vitrine/vitrine/service/shop"
)

// The window's reader reads one company's open window, and only its
// active products: a closed window is not found; a search that asks for
// drafts, a product id, variant id, SKU or handle of a draft, an archived
// product or another company's product, and the feeds' pages, find none
// of them; a Shopper not made by OpenWindow reads nothing.
func TestShopperReadsOnlyPublishedProducts(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		acme, rival := shop(t, w, "acme"), shop(t, w, "rival")
		if _, err := w.cat.OpenWindowBySlug(ctx, "acme"); vitrine.TypeOf(err) != vitrine.NotFoundError {
			t.Fatalf("a closed window: %v, want NotFound", err)
		}
		open := true
		for _, a := range []*service.Access{acme, rival} {
			if _, err := shopsvc.New(w.svc).Update(ctx, a, shopsvc.Changes{Open: &open}); err != nil {
				t.Fatal(err)
			}
		}
		create := func(a *service.Access, name, sku, status string) *vitrine.Product {
			t.Helper()
			p := shirt(name)
			p.Status = status
			for i := range p.Variants {
				if p.Variants[i].SKU != "" {
					p.Variants[i].SKU = sku + "-" + p.Variants[i].SKU
				}
			}
			got, err := w.cat.CreateProduct(ctx, a, p, "")
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		active := create(acme, "Camisa Azul", "A", "active")
		draft := create(acme, "Camisa Rascunho", "D", "draft")
		archived := create(acme, "Camisa Antiga", "X", "archived")
		other := create(rival, "Camisa Rival", "R", "active")

		sh, err := w.cat.OpenWindowBySlug(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		for _, status := range []vitrine.ProductStatus{"", vitrine.ProductDraft, vitrine.ProductArchived} {
			page, err := sh.Search(ctx, vitrine.ProductQuery{Query: "camisa", Status: status}, 50, "")
			if err != nil {
				t.Fatal(err)
			}
			if got := productIDs(page.Products); !slices.Equal(got, []string{active.ID}) {
				t.Errorf("a search asking for status %q finds %v, want the active product alone", status, got)
			}
		}
		for _, p := range []*vitrine.Product{draft, archived, other} {
			for _, ident := range []string{p.ID, p.Variants[0].ID, p.Variants[0].SKU, p.Handle} {
				if got, _, err := sh.Product(ctx, ident); err != nil || got != nil {
					t.Errorf("%s's %q: %v %v, want nothing", p.Name, ident, got, err)
				}
				found, err := sh.Products(ctx, []string{ident})
				if err != nil || found[ident].Product != nil {
					t.Errorf("a lookup of %s's %q: %v %v, want nothing", p.Name, ident, found[ident], err)
				}
			}
		}
		if got, variant, err := sh.Product(ctx, active.Variants[0].SKU); err != nil || got == nil || got.ID != active.ID || variant != active.Variants[0].ID {
			t.Errorf("the active product's SKU: %v %q %v", got, variant, err)
		}
		ps, err := sh.PublishedProducts(ctx, acme.TenantID, "", 100)
		if err != nil || !slices.Equal(productIDs(ps), []string{active.ID}) {
			t.Errorf("the feeds' page: %v %v, want the active product alone", productIDs(ps), err)
		}
		if _, err := sh.PublishedProducts(ctx, rival.TenantID, "", 100); err == nil {
			t.Error("the window of acme read the products of rival")
		}
		var zero catalog.Shopper
		if _, err := zero.Search(ctx, vitrine.ProductQuery{}, 10, ""); err == nil {
			t.Error("a Shopper that no window made searched")
		}
		if _, err := zero.PublishedProducts(ctx, acme.TenantID, "", 10); err == nil {
			t.Error("a Shopper that no window made read a feed's page")
		}
	})
}

func productIDs(ps []*vitrine.Product) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}
