package store_test

import (
	"slices"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

func tr(resource vitrine.TranslationResource, id, locale, field, value, source string) *vitrine.Translation {
	return &vitrine.Translation{Resource: resource, ResourceID: id, Locale: locale, Field: field, Value: value,
		Digest: vitrine.SourceDigest(source), UpdatedAt: vitrine.Now()}
}

func fieldsOf(ts []*vitrine.Translation) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Locale+" "+t.Field+"="+t.Value)
	}
	return out
}

// A company's locales are stored and read with it, pt-BR alone for one
// that never named them. Translations are written, replaced and removed
// field by field, read by locale or all, with the digest of their source;
// a translated handle is unique in its locale, against the others'
// translated handles and their own where they have none; a product's or
// category's translations go with it; another company reads none of them.
func TestTranslations(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana, bia := f.user("ana@example.com"), f.user("bia@example.com")
		a, b := f.tenant("alfa", ana), f.tenant("beta", bia)

		got, err := f.db.TenantByID(ctx, a.ID)
		if err != nil || !slices.Equal(got.Languages(), []string{"pt-BR"}) || got.Multilingual() {
			t.Fatalf("a company's locales by default: %+v, %v", got, err)
		}
		got.Locales = []string{"pt-BR", "es", "en"}
		got.UpdatedAt = vitrine.Now()
		if err := f.db.UpdateTenant(ctx, testChange, got); err != nil {
			t.Fatal(err)
		}
		if got, err = f.db.TenantByID(ctx, a.ID); err != nil || !slices.Equal(got.Locales, []string{"pt-BR", "es", "en"}) {
			t.Fatalf("locales read back: %+v, %v", got, err)
		}
		if ms, err := f.db.MembershipsOfUser(ctx, ana.ID); err != nil || len(ms) != 1 || !slices.Equal(ms[0].Tenant.Locales, got.Locales) {
			t.Errorf("the company through a membership: %+v, %v", ms, err)
		}

		p1 := f.product(a.ID, "CAM-1", "Camiseta", 100, vitrine.ProductActive)
		p2 := f.product(a.ID, "CAL-1", "Calça", 100, vitrine.ProductActive)
		p3 := f.product(a.ID, "MEI-1", "Meia", 100, vitrine.ProductActive)
		bp := f.product(b.ID, "B-1", "Banana", 100, vitrine.ProductActive)

		ch := testChange
		ch.Call.RequestID = vitrine.NewID()
		if err := f.db.SaveTranslations(ctx, ch, a.ID, []*vitrine.Translation{
			tr(vitrine.TranslateProduct, p1.ID, "es", vitrine.FieldName, "Camiseta ES", p1.Name),
			tr(vitrine.TranslateProduct, p1.ID, "es", vitrine.FieldHandle, "camiseta-es", p1.Handle),
			tr(vitrine.TranslateProduct, p1.ID, "en", vitrine.FieldName, "T-shirt", p1.Name),
			tr(vitrine.TranslateProduct, p1.ID, "en", vitrine.OptionValueField("Tamanho", "P"), "S", "P"),
		}); err != nil {
			t.Fatal(err)
		}
		all, err := f.db.Translations(ctx, a.ID, vitrine.TranslateProduct, []string{p1.ID, p2.ID}, "")
		if want := []string{"en name=T-shirt", "en option.value\x1fTamanho\x1fP=S", "es handle=camiseta-es", "es name=Camiseta ES"}; err != nil || !slices.Equal(fieldsOf(all[p1.ID]), want) || len(all[p2.ID]) != 0 {
			t.Fatalf("every locale: %q, %v; want %q", fieldsOf(all[p1.ID]), err, want)
		}
		es, err := f.db.Translations(ctx, a.ID, vitrine.TranslateProduct, []string{p1.ID}, "es")
		if err != nil || len(es[p1.ID]) != 2 || es[p1.ID][1].Outdated(p1.Name) || !es[p1.ID][1].Outdated("Camiseta nova") || es[p1.ID][1].UpdatedAt.IsZero() {
			t.Fatalf("es: %+v, %v", es, err)
		}
		if events, err := f.db.ListAudit(ctx, a.ID, vitrine.AuditFilter{Limit: 50}); err != nil || !slices.ContainsFunc(events, func(e *vitrine.AuditEvent) bool {
			return e.ID == ch.Call.RequestID && e.TargetID == p1.ID
		}) {
			t.Errorf("the write's audit event: %v", err)
		}

		// Replaced, removed.
		if err := f.db.SaveTranslations(ctx, testChange, a.ID, []*vitrine.Translation{
			tr(vitrine.TranslateProduct, p1.ID, "es", vitrine.FieldName, "Camiseta nueva", "Camiseta nova"),
			tr(vitrine.TranslateProduct, p1.ID, "en", vitrine.FieldName, "", ""),
		}); err != nil {
			t.Fatal(err)
		}
		all, _ = f.db.Translations(ctx, a.ID, vitrine.TranslateProduct, []string{p1.ID}, "")
		if want := []string{"en option.value\x1fTamanho\x1fP=S", "es handle=camiseta-es", "es name=Camiseta nueva"}; !slices.Equal(fieldsOf(all[p1.ID]), want) {
			t.Errorf("after replacing and removing: %q; want %q", fieldsOf(all[p1.ID]), want)
		}

		// Handles: unique in a locale.
		for _, tc := range []struct {
			what   string
			t      *vitrine.Translation
			errTyp vitrine.ErrorType
		}{
			{"another's translated handle", tr(vitrine.TranslateProduct, p2.ID, "es", vitrine.FieldHandle, "camiseta-es", p2.Handle), vitrine.ConflictError},
			{"another's own handle", tr(vitrine.TranslateProduct, p2.ID, "es", vitrine.FieldHandle, p3.Handle, p2.Handle), vitrine.ConflictError},
			{"another's translated handle in another locale", tr(vitrine.TranslateProduct, p2.ID, "en", vitrine.FieldHandle, "camiseta-es", p2.Handle), ""},
			{"its own handle", tr(vitrine.TranslateProduct, p2.ID, "es", vitrine.FieldHandle, p2.Handle, p2.Handle), ""},
			{"another's own handle where it has one of its own", tr(vitrine.TranslateProduct, p2.ID, "es", vitrine.FieldHandle, p1.Handle, p2.Handle), ""},
		} {
			err := f.db.SaveTranslations(ctx, testChange, a.ID, []*vitrine.Translation{tc.t})
			if tc.errTyp == "" && err != nil || tc.errTyp != "" && vitrine.TypeOf(err) != tc.errTyp {
				t.Errorf("%s: %v, want %q", tc.what, err, tc.errTyp)
			}
		}

		// Another company reads none, even by id, and its own stay apart.
		if err := f.db.SaveTranslations(ctx, testChange, b.ID, []*vitrine.Translation{
			tr(vitrine.TranslateProduct, bp.ID, "es", vitrine.FieldHandle, "camiseta-es", bp.Handle),
		}); err != nil {
			t.Errorf("b's handle, the same as a's: %v", err)
		}
		if other, err := f.db.Translations(ctx, b.ID, vitrine.TranslateProduct, []string{p1.ID, p2.ID}, ""); err != nil || len(other) != 0 {
			t.Errorf("a's translations read by b: %v, %v", other, err)
		}
		if mine, err := f.db.Translations(ctx, b.ID, vitrine.TranslateProduct, []string{bp.ID}, "es"); err != nil || len(mine[bp.ID]) != 1 {
			t.Errorf("b's own: %v, %v", mine, err)
		}

		// Categories: a handle unique among categories; deleted with it.
		now := vitrine.Now()
		c1 := &vitrine.Category{ID: vitrine.NewID(), TenantID: a.ID, Name: "Roupas", Handle: "roupas", CreatedAt: now, UpdatedAt: now}
		c2 := &vitrine.Category{ID: vitrine.NewID(), TenantID: a.ID, Name: "Sapatos", Handle: "sapatos", CreatedAt: now, UpdatedAt: now}
		for _, c := range []*vitrine.Category{c1, c2} {
			if err := f.db.SaveCategory(ctx, testChange, c, false); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.db.SaveTranslations(ctx, testChange, a.ID, []*vitrine.Translation{
			tr(vitrine.TranslateCategory, c1.ID, "es", vitrine.FieldName, "Ropa", c1.Name),
		}); err != nil {
			t.Fatal(err)
		}
		wantType(t, f.db.SaveTranslations(ctx, testChange, a.ID, []*vitrine.Translation{
			tr(vitrine.TranslateCategory, c2.ID, "es", vitrine.FieldHandle, "roupas", c2.Handle),
		}), vitrine.ConflictError)
		if err := f.db.SaveTranslations(ctx, testChange, a.ID, []*vitrine.Translation{
			tr(vitrine.TranslateCategory, c1.ID, "es", vitrine.FieldHandle, "camiseta-es", c1.Handle), // a product's: another kind
		}); err != nil {
			t.Fatal(err)
		}
		if err := f.db.DeleteCategory(ctx, testChange, a.ID, c1.ID); err != nil {
			t.Fatal(err)
		}
		if left, err := f.db.Translations(ctx, a.ID, vitrine.TranslateCategory, []string{c1.ID}, ""); err != nil || len(left) != 0 {
			t.Errorf("a deleted category's translations: %v, %v", left, err)
		}

		// A deleted product's translations go with it; the other's stay.
		if err := f.db.DeleteProduct(ctx, testChange, a.ID, p1.ID); err != nil {
			t.Fatal(err)
		}
		left, err := f.db.Translations(ctx, a.ID, vitrine.TranslateProduct, []string{p1.ID, p2.ID}, "")
		if err != nil || len(left[p1.ID]) != 0 || len(left[p2.ID]) == 0 {
			t.Errorf("after deleting a product: %q / %q, %v", fieldsOf(left[p1.ID]), fieldsOf(left[p2.ID]), err)
		}
	})
}
