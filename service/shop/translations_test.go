package shop

import (
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// A company of several locales has, per locale other than the default,
// its active products with a field untranslated or translated before the
// source changed; a company of one locale has no such part; another
// company's translations count for nothing.
func TestCheckTranslations(t *testing.T) {
	withRules(t, fakeRules)
	dbtest.Each(t, func(t *testing.T, url string) {
		st := dbtest.Open(t, url)
		svc := service.New(st, nil)
		if _, err := svc.Operator().CreateUser(ctx, "olga@example.com", "Olga"); err != nil {
			t.Fatal(err)
		}
		a, b := company(t, svc, "alfa"), company(t, svc, "beta")
		cat := catalog.New(svc)
		var ps []*vitrine.Product
		for _, name := range []string{"Mesa", "Cadeira", "Sofá", "Cama", "Estante"} {
			p, err := cat.CreateProduct(ctx, a, catalog.NewProduct{Name: name, Price: "10.00"}, "")
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		if _, err := cat.CreateProduct(ctx, a, catalog.NewProduct{Name: "Rascunho", Price: "1.00", Status: "draft"}, ""); err != nil {
			t.Fatal(err)
		}
		w := New(svc)
		r, err := w.Check(ctx, a, CheckQuery{})
		if err != nil || r.Locales != nil {
			t.Fatalf("one locale: %+v %v", r.Locales, err)
		}

		for _, acc := range []*service.Access{a, b} {
			ten, err := st.TenantByID(ctx, acc.TenantID)
			if err != nil {
				t.Fatal(err)
			}
			ten.Locales = []string{"pt-BR", "es", "en"}
			if err := st.UpdateTenant(ctx, acc.Change(), ten); err != nil {
				t.Fatal(err)
			}
		}
		// Mesa and Cadeira translated whole in es; Sofá's name only.
		var ts []*vitrine.Translation
		for _, p := range ps[:2] {
			ts = append(ts, &vitrine.Translation{Resource: vitrine.TranslateProduct, ResourceID: p.ID, Locale: "es", Field: vitrine.FieldName, Value: p.Name + " ES", Digest: vitrine.SourceDigest(p.Name)},
				&vitrine.Translation{Resource: vitrine.TranslateProduct, ResourceID: p.ID, Locale: "es", Field: vitrine.FieldHandle, Value: p.Handle + "-es", Digest: vitrine.SourceDigest(p.Handle)})
		}
		ts = append(ts, &vitrine.Translation{Resource: vitrine.TranslateProduct, ResourceID: ps[2].ID, Locale: "es", Field: vitrine.FieldName, Value: "Sofá ES", Digest: vitrine.SourceDigest("Sofá")})
		if err := st.SaveTranslations(ctx, a.Change(), a.TenantID, ts); err != nil {
			t.Fatal(err)
		}
		// Cadeira's name changes: its es name is outdated.
		if _, err := cat.UpdateProduct(ctx, a, ps[1].ID, catalog.ProductChanges{Name: new("Cadeira Nova")}); err != nil {
			t.Fatal(err)
		}
		// The other company has no such products; it translates nothing.
		r, err = w.Check(ctx, a, CheckQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Locales) != 2 || r.Locales[0].Locale != "es" || r.Locales[1].Locale != "en" {
			t.Fatalf("locales: %+v", r.Locales)
		}
		es, en := r.Locales[0], r.Locales[1]
		if es.Untranslated.Products != 3 || len(es.Untranslated.Page) != 3 || es.Untranslated.More ||
			es.Outdated.Products != 1 || es.Outdated.Page[0].ID != ps[1].ID || !strings.Contains(es.Outdated.Page[0].Detail, "name") {
			t.Fatalf("es: %+v", es)
		}
		if en.Untranslated.Products != 5 || len(en.Untranslated.Page) != 3 || !en.Untranslated.More || en.Outdated.Products != 0 ||
			!strings.Contains(en.Untranslated.Fix, `list_products {untranslated: "en"}`) {
			t.Fatalf("en: %+v", en)
		}
		if rb, err := w.Check(ctx, b, CheckQuery{}); err != nil || rb.Products != 0 || rb.Locales[0].Untranslated.Products != 0 {
			t.Fatalf("beta: %+v %v", rb, err)
		}
	})
}
