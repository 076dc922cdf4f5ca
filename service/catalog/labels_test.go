package catalog_test

import (
	"slices"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service/catalog"
	shopsvc "github.com/vitrine/vitrine/service/shop"
)

// A product read in a locale names its categories and its enum
// attributes' values in it, and the window read in it names its
// categories and public attributes so, each untranslated one in the
// default locale; a filter names a category in the locale or as it is
// written; the default locale reads the catalog as it is.
func TestLabelsInLocale(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		a := shop(t, w, "acme")
		if _, err := w.svc.Operator().UpdateTenant(ctx, "acme", nil, nil, nil, []string{"pt-BR", "es"}); err != nil {
			t.Fatal(err)
		}
		open := true
		if _, err := shopsvc.New(w.svc).Update(ctx, a, shopsvc.Changes{Open: &open}); err != nil {
			t.Fatal(err)
		}
		roupas, err := w.cat.CreateCategory(ctx, a, catalog.CategoryFields{Name: ptrTo("Roupas")})
		if err != nil {
			t.Fatal(err)
		}
		bones, err := w.cat.CreateCategory(ctx, a, catalog.CategoryFields{Name: ptrTo("Bonés")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.cat.TranslateCategory(ctx, a, roupas.ID, "es", ptrTo("Ropa"), nil); err != nil {
			t.Fatal(err)
		}
		public := true
		if _, err := w.cat.SaveAttribute(ctx, a, catalog.AttributeFields{Key: "tecido", Name: ptrTo("Tecido"), Type: "enum",
			Values: &[]string{"Algodão", "Linho"}, Public: &public,
			Translations: map[string]catalog.AttributeTranslation{"es": {Name: ptrTo("Tejido"), Values: map[string]string{"Algodão": "Algodón"}}}}); err != nil {
			t.Fatal(err)
		}
		in := shirt("Camisa")
		in.Description, in.CategoryIDs, in.Attributes = "Boa", []string{roupas.ID, bones.ID}, map[string]any{"tecido": "Algodão"}
		p, err := w.cat.CreateProduct(ctx, a, in, "")
		if err != nil {
			t.Fatal(err)
		}
		in = shirt("Camisa de Linho")
		in.Description, in.Attributes = "Boa", map[string]any{"tecido": "Linho"}
		for i := range in.Variants {
			if in.Variants[i].SKU != "" {
				in.Variants[i].SKU = "L-" + in.Variants[i].SKU
			}
		}
		linen, err := w.cat.CreateProduct(ctx, a, in, "")
		if err != nil {
			t.Fatal(err)
		}
		catNames := func(p *vitrine.Product) []string {
			var out []string
			for _, c := range p.Categories {
				out = append(out, c.Name)
			}
			slices.Sort(out)
			return out
		}
		es, err := w.cat.FindProductIn(ctx, a, p.ID, "", "", "es")
		if err != nil || !slices.Equal(catNames(es), []string{"Bonés", "Ropa"}) || es.Attributes["tecido"] != "Algodón" {
			t.Errorf("in es: %v %v, %v", catNames(es), es.Attributes, err)
		}
		if l, err := w.cat.FindProductIn(ctx, a, linen.ID, "", "", "es"); err != nil || l.Attributes["tecido"] != "Linho" {
			t.Errorf("an untranslated value in es: %v, %v", l.Attributes, err)
		}
		pt, err := w.cat.FindProductIn(ctx, a, p.ID, "", "", "")
		if err != nil || !slices.Equal(catNames(pt), []string{"Bonés", "Roupas"}) || pt.Attributes["tecido"] != "Algodão" {
			t.Errorf("in the default locale: %v %v, %v", catNames(pt), pt.Attributes, err)
		}

		sh, err := w.cat.OpenWindowBySlug(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		sh = sh.InLocale("es")
		cats, err := sh.Categories(ctx)
		if err != nil || len(cats) != 2 || !slices.ContainsFunc(cats, func(c *vitrine.Category) bool { return c.Name == "Ropa" }) {
			t.Errorf("the window's categories in es: %v", err)
		}
		defs, err := sh.PublicAttributes(ctx)
		if err != nil || len(defs) != 1 || defs[0].Name != "Tejido" {
			t.Errorf("the window's attributes in es: %v", err)
		}
		found, err := sh.Products(ctx, []string{p.Handle})
		if got := found[p.Handle].Product; err != nil || got == nil || got.Attributes["tecido"] != "Algodón" || !slices.Equal(catNames(got), []string{"Bonés", "Ropa"}) {
			t.Errorf("a lookup in es: %+v, %v", got, err)
		}
		if own, err := w.cat.OpenWindowBySlug(ctx, "acme"); err != nil {
			t.Fatal(err)
		} else if defs, err := own.PublicAttributes(ctx); err != nil || defs[0].Name != "Tecido" {
			t.Errorf("the window's attributes in pt-BR: %v", err)
		}
	})
}
