package catalog_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service/catalog"
)

func localeOf(r *catalog.ResourceTranslations, field, locale string) (catalog.LocaleText, bool) {
	for _, f := range r.Fields {
		if f.Field == field {
			t, ok := f.Locales[locale]
			return t, ok
		}
	}
	return catalog.LocaleText{}, false
}

func names(ps []*vitrine.Product) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

// A company's locales, checked and canonical; translations written field
// by field in one of its other locales (never its default), "" removing
// one, descriptions sanitized, handles unique per locale; outdated once
// the source changes; reads in a locale falling back field by field; the
// products untranslated in a locale listed with exact facets; a member
// without the permission refused; another company reads nothing.
func TestTranslations(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		a := shop(t, w, "acme")
		op := w.svc.Operator()
		p, err := w.cat.CreateProduct(ctx, a, shirt("Camisa Básica"), "")
		if err != nil {
			t.Fatal(err)
		}
		other, err := w.cat.CreateProduct(ctx, a, catalog.NewProduct{Name: "Boné", SKU: "BONE-1", Price: "20.00", Vendor: "Acme"}, "")
		if err != nil {
			t.Fatal(err)
		}

		// One locale: there is nothing to translate into.
		if _, err := w.cat.TranslateProduct(ctx, a, p.ID, "es", catalog.ProductTranslation{Name: ptrTo("Camisa")}); vitrine.TypeOf(err) != vitrine.ValidationError {
			t.Errorf("a company of one locale: %v", err)
		}
		for _, bad := range [][]string{{}, {"pt-BR", "xx-!!"}, {"pt-BR", "es", "ES"}} {
			if _, err := op.UpdateTenant(ctx, "acme", nil, nil, nil, bad); vitrine.TypeOf(err) != vitrine.ValidationError {
				t.Errorf("locales %q: %v", bad, err)
			}
		}
		tn, err := op.UpdateTenant(ctx, "acme", nil, nil, nil, []string{"pt-br", "es", "EN-us"})
		if err != nil || !slices.Equal(tn.Locales, []string{"pt-BR", "es", "en-US"}) {
			t.Fatalf("locales: %+v, %v", tn, err)
		}

		for _, tc := range []struct {
			locale string
			in     catalog.ProductTranslation
		}{
			{"pt-BR", catalog.ProductTranslation{Name: ptrTo("x")}}, // the default
			{"fr", catalog.ProductTranslation{Name: ptrTo("x")}},    // not the company's
			{"es", catalog.ProductTranslation{}},                    // nothing
			{"es", catalog.ProductTranslation{ProductType: ptrTo(strings.Repeat("x", 300))}},
			{"es", catalog.ProductTranslation{Options: map[string]catalog.OptionTranslation{"Material": {Name: ptrTo("x")}}}},
			{"es", catalog.ProductTranslation{Options: map[string]catalog.OptionTranslation{"Color": {Values: map[string]string{"Red": "Rojo"}}}}},
			{"es", catalog.ProductTranslation{SEOTitle: ptrTo("Título")}}, // blank in the default locale
		} {
			if _, err := w.cat.TranslateProduct(ctx, a, p.ID, tc.locale, tc.in); vitrine.TypeOf(err) != vitrine.ValidationError {
				t.Errorf("%s %+v: %v", tc.locale, tc.in, err)
			}
		}

		r, err := w.cat.TranslateProduct(ctx, a, p.ID, "ES", catalog.ProductTranslation{
			Name: ptrTo("Camisa Básica ES"), Description: ptrTo(`<p onclick="x()">Algodón <script>alert(1)</script>suave</p>`),
			Handle:  ptrTo("camisa-basica-es"),
			Options: map[string]catalog.OptionTranslation{"Color": {Name: ptrTo("Color ES"), Values: map[string]string{"Blue": "Azul"}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := localeOf(r, "name", "es"); !ok || got.Value != "Camisa Básica ES" || got.Outdated {
			t.Errorf("name in es: %+v %v", got, ok)
		}
		if got, _ := localeOf(r, "description", "es"); strings.Contains(got.Value, "script") || strings.Contains(got.Value, "onclick") || !strings.Contains(got.Value, "Algodón") {
			t.Errorf("description sanitized: %q", got.Value)
		}
		if got, ok := localeOf(r, "options.Color.values.Blue", "es"); !ok || got.Value != "Azul" {
			t.Errorf("an option value: %+v %v", got, ok)
		}
		if r.DefaultLocale != "pt-BR" || len(r.Fields) < 8 {
			t.Errorf("fields: %+v", r)
		}
		// A handle another product has in that locale.
		if _, err := w.cat.TranslateProduct(ctx, a, other.ID, "es", catalog.ProductTranslation{Handle: ptrTo("camisa-basica-es")}); vitrine.TypeOf(err) != vitrine.ConflictError {
			t.Errorf("a taken handle: %v", err)
		}

		// Read in es: translated where translated, the default elsewhere.
		got, err := w.cat.FindProductIn(ctx, a, p.ID, "", "", "es")
		if err != nil || got.Name != "Camisa Básica ES" || got.Vendor != "Acme" || got.ProductType != "Shirts" || got.Handle != "camisa-basica-es" ||
			got.Options[0].Name != "Color ES" || !slices.Contains(got.Options[0].Values, "Azul") || got.Variants[0].Options["Color ES"] != "Azul" {
			t.Errorf("in es: %+v, %v", got, err)
		}
		if got, err := w.cat.FindProductIn(ctx, a, p.ID, "", "", "en-US"); err != nil || got.Name != p.Name {
			t.Errorf("in en-US, untranslated: %+v, %v", got, err)
		}
		if _, err := w.cat.FindProductIn(ctx, a, p.ID, "", "", "fr"); vitrine.TypeOf(err) != vitrine.ValidationError {
			t.Errorf("in fr: %v", err)
		}
		page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{Locale: "es"}, 0, "")
		if err != nil || !slices.Equal(names(page.Products), []string{"Boné", "Camisa Básica ES"}) {
			t.Errorf("a list in es: %v, %v", names(page.Products), err)
		}

		// Untranslated in es: both (the shirt's SEO, option values left);
		// translate the rest and only the cap is left; change the source
		// and the shirt is back.
		untranslated := func(locale string) []string {
			t.Helper()
			page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{Untranslated: vitrine.LocaleTag(locale), Facets: []vitrine.FacetName{vitrine.FacetVendor}}, 0, "")
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			for _, v := range page.Facets.Values[vitrine.FacetVendor] {
				n += v.Count
			}
			if int(n) != len(page.Products) {
				t.Errorf("untranslated in %s: %d products, vendor facet counts %d", locale, len(page.Products), n)
			}
			return names(page.Products)
		}
		if got := untranslated("es"); !slices.Equal(got, []string{"Boné", "Camisa Básica"}) {
			t.Errorf("untranslated in es: %v", got)
		}
		if _, err := w.cat.TranslateProduct(ctx, a, p.ID, "es", catalog.ProductTranslation{
			ProductType: ptrTo("Camisas"),
			Options: map[string]catalog.OptionTranslation{
				"Color": {Values: map[string]string{"White": "Blanco"}},
				"Size":  {Name: ptrTo("Talla"), Values: map[string]string{"M": "M", "L": "G"}},
			},
		}); err != nil {
			t.Fatal(err)
		}
		if got := untranslated("es"); !slices.Equal(got, []string{"Boné"}) {
			t.Errorf("untranslated in es, the shirt done: %v", got)
		}
		if got := untranslated("en-US"); len(got) != 2 {
			t.Errorf("untranslated in en-US: %v", got)
		}
		if _, err := w.cat.UpdateProduct(ctx, a, p.ID, catalog.ProductChanges{Name: ptrTo("Camisa Nova")}); err != nil {
			t.Fatal(err)
		}
		if got := untranslated("es"); len(got) != 2 {
			t.Errorf("untranslated in es after the source changed: %v", got)
		}
		r, err = w.cat.GetTranslations(ctx, a, p.ID, "")
		if got, _ := localeOf(r, "name", "es"); err != nil || !got.Outdated || got.Value != "Camisa Básica ES" {
			t.Errorf("the name's translation after the source changed: %+v, %v", got, err)
		}
		if got, _ := localeOf(r, "handle", "es"); got.Outdated {
			t.Errorf("the handle's, whose source did not change: %+v", got)
		}
		// Written again: current; "" removes one.
		if _, err := w.cat.TranslateProduct(ctx, a, p.ID, "es", catalog.ProductTranslation{Name: ptrTo("Camisa Nueva")}); err != nil {
			t.Fatal(err)
		}
		if got := untranslated("es"); !slices.Equal(got, []string{"Boné"}) {
			t.Errorf("untranslated in es, written again: %v", got)
		}
		r, err = w.cat.TranslateProduct(ctx, a, p.ID, "es", catalog.ProductTranslation{Handle: ptrTo("")})
		if _, ok := localeOf(r, "handle", "es"); err != nil || ok {
			t.Errorf("a handle removed: %v", err)
		}
		if got := untranslated("es"); len(got) != 2 {
			t.Errorf("untranslated in es, a translation removed: %v", got)
		}
		if _, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{Untranslated: "pt-BR"}, 0, ""); vitrine.TypeOf(err) != vitrine.ValidationError {
			t.Errorf("untranslated in the default locale: %v", err)
		}

		// A text query finds the product by its words in another locale,
		// read in that locale's language ("camisas" stems to camis), and
		// still after a write of the product.
		if _, err := w.cat.UpdateProduct(ctx, a, p.ID, catalog.ProductChanges{Vendor: ptrTo("Acme Co")}); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"nueva", "algodón", "camisas"} {
			page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{Query: vitrine.QueryText(q), Locale: "es"}, 0, "")
			if err != nil || !slices.Equal(names(page.Products), []string{"Camisa Nueva"}) {
				t.Errorf("query %q in es: %v, %v", q, names(page.Products), err)
			}
		}

		// Categories and attributes.
		cat, err := w.cat.CreateCategory(ctx, a, catalog.CategoryFields{Name: ptrTo("Roupas")})
		if err != nil {
			t.Fatal(err)
		}
		if r, err := w.cat.TranslateCategory(ctx, a, cat.ID, "es", ptrTo("Ropa"), nil); err != nil || r.Resource != vitrine.TranslateCategory {
			t.Errorf("a category: %+v, %v", r, err)
		}
		if r, err := w.cat.GetTranslations(ctx, a, cat.ID, "es"); err != nil {
			t.Error(err)
		} else if got, _ := localeOf(r, "name", "es"); got.Value != "Ropa" {
			t.Errorf("the category's: %+v", r)
		}
		if _, err := w.cat.SaveAttribute(ctx, a, catalog.AttributeFields{Key: "material", Type: "enum", Values: &[]string{"algodão", "linho"},
			Translations: map[string]catalog.AttributeTranslation{"es": {Name: ptrTo("Material"), Values: map[string]string{"seda": "seda"}}}}); vitrine.TypeOf(err) != vitrine.ValidationError {
			t.Errorf("a value the enum does not have: %v", err)
		}
		if defs, _ := w.cat.ListAttributes(ctx, a); len(defs) != 0 {
			t.Errorf("a refused translation wrote the definition: %+v", defs)
		}
		if _, err := w.cat.SaveAttribute(ctx, a, catalog.AttributeFields{Key: "material", Type: "enum", Values: &[]string{"algodão", "linho"},
			Translations: map[string]catalog.AttributeTranslation{"es": {Name: ptrTo("Material ES"), Values: map[string]string{"algodão": "algodón"}}}}); err != nil {
			t.Fatal(err)
		}
		tr, err := w.cat.AttributeTranslations(ctx, tn, []string{"material"})
		if err != nil || tr["material"]["es"].Text(vitrine.FieldName, "") != "Material ES" || tr["material"]["es"].Text(vitrine.EnumValueField("algodão"), "") != "algodón" {
			t.Errorf("the attribute's: %+v, %v", tr, err)
		}

		// A viewer reads, and writes nothing; another company sees none.
		viewer := member(t, w, "acme", "vera")
		if _, err := w.cat.GetTranslations(ctx, viewer, p.ID, ""); err != nil {
			t.Errorf("a member reads: %v", err)
		}
		if _, err := w.cat.TranslateCategory(ctx, viewer, cat.ID, "es", ptrTo("x"), nil); vitrine.TypeOf(err) != vitrine.PermissionError {
			t.Errorf("a member translates a category: %v", err)
		}
		b := shop(t, w, "beta")
		if _, err := op.UpdateTenant(ctx, "beta", nil, nil, nil, []string{"pt-BR", "es"}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.cat.GetTranslations(ctx, b, p.ID, ""); vitrine.TypeOf(err) != vitrine.NotFoundError {
			t.Errorf("another company's product: %v", err)
		}
		if _, err := w.cat.TranslateProduct(ctx, b, p.ID, "es", catalog.ProductTranslation{Name: ptrTo("x")}); vitrine.TypeOf(err) != vitrine.NotFoundError {
			t.Errorf("another company's product translated: %v", err)
		}

		// Deleted with the product.
		if err := w.cat.DeleteProduct(ctx, a, p.ID); err != nil {
			t.Fatal(err)
		}
		if got := untranslated("es"); !slices.Equal(got, []string{"Boné"}) {
			t.Errorf("after the delete: %v", got)
		}
	})
}
