package catalog_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/shopify"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// multilingual makes a company of w that writes in pt-BR and translates
// into es and en.
func multilingual(t *testing.T, w *world, st vitrine.Store, slug string) *service.Access {
	t.Helper()
	a := shop(t, w, slug)
	ten, err := st.TenantByID(ctx, a.TenantID)
	if err != nil {
		t.Fatal(err)
	}
	ten.Locales = []string{"pt-BR", "es", "en"}
	if err := st.UpdateTenant(ctx, a.Change(), ten); err != nil {
		t.Fatal(err)
	}
	return a
}

func exportTranslations(t *testing.T, w *world, a *service.Access, locale string) string {
	t.Helper()
	locales, err := w.cat.ExportLocales(ctx, a, locale)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	tw := shopify.NewTranslationWriter(&b)
	if err := w.cat.ExportShopifyTranslations(ctx, a, locales, tw, nil); err != nil {
		t.Fatal(err)
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestImportTranslations(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		st := dbtest.Open(t, url)
		svc := service.New(st, nil)
		if _, err := svc.Operator().CreateUser(ctx, email("olga"), "olga"); err != nil {
			t.Fatal(err)
		}
		w := &world{svc: svc, cat: catalog.New(svc)}
		a := multilingual(t, w, st, "acme")
		b := multilingual(t, w, st, "rival")
		p, err := w.cat.CreateProduct(ctx, a, shirt("Camisa Básica"), "")
		if err != nil {
			t.Fatal(err)
		}
		// The rival has a product of the same handle, and one of its own.
		rp, err := w.cat.CreateProduct(ctx, b, shirt("Camisa Básica"), "")
		if err != nil {
			t.Fatal(err)
		}
		other, err := w.cat.CreateProduct(ctx, b, catalog.NewProduct{Name: "Só do rival", SKU: "R-1", Price: "1.00"}, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.cat.CreateCategory(ctx, a, catalog.CategoryFields{Name: ptrTo("Camisas")}); err != nil {
			t.Fatal(err)
		}

		// Untranslated, the export has every field, blank.
		before := exportTranslations(t, w, a, "es")
		if !strings.Contains(before, "PRODUCT,camisa-basica,title,es,,,Camisa Básica,\n") ||
			!strings.Contains(before, "PRODUCT_OPTION_VALUE,camisa-basica/Color,name,es,,,Blue,\n") ||
			!strings.Contains(before, "COLLECTION,camisas,title,es,,,Camisas,\n") {
			t.Fatalf("export:\n%s", before)
		}

		csv := "Type,Identification,Field,Locale,Market,Status,Default content,Translated content,Notes\n" +
			"PRODUCT,'8079393226938,handle,es,,,camisa-basica,camisa-basica-es,\n" + // line 2: Shopify's id, its handle row
			"PRODUCT,'8079393226938,title,es,,,Camisa Básica,Camiseta básica,\n" +
			"PRODUCT_OPTION,camisa-basica/Color,name,es,,,Color,Color ES,\n" +
			"PRODUCT_OPTION_VALUE,camisa-basica/Color,name,es,,,Blue,Azul,\n" +
			"PRODUCT,no-such-handle,title,es,,,X,Y,\n" + // line 6
			"PRODUCT," + other.Handle + ",title,es,,,X,Y,\n" + // the rival's only
			"PRODUCT," + other.ID + ",title,es,,,X,Y,\n" +
			"METAFIELD,123,value,es,,,X,Y,\n" +
			"PRODUCT,camisa-basica,title,fr,,,X,Y,\n" + // line 10: not a locale of the company
			"PRODUCT,camisa-basica,title,pt-BR,,,X,Y,\n" + // the default
			"PRODUCT,camisa-basica,body_html,es,,,X,,\n" + // skipped
			"PRODUCT,camisa-basica,title,en,Mexico,,X,Y,\n" + // a market's
			"COLLECTION,camisas,title,en,,,Camisas,Shirts,\n" +
			"PRODUCT_OPTION_VALUE,camisa-basica/Color,name,es,,,Purple,Roxo,\n" // line 15: no such value
		res, err := w.cat.ImportTranslationsFile(ctx, a, strings.NewReader(csv), "shopify", 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := map[int]string{2: "created", 3: "created", 4: "created", 5: "created", 6: "error", 7: "error", 8: "error", 9: "error",
			10: "error", 11: "error", 12: "skipped", 13: "error", 14: "created", 15: "error"}
		for _, r := range res.Results {
			if want[r.Line] != r.Status {
				t.Errorf("line %d: %s, want %s (%v)", r.Line, r.Status, want[r.Line], r)
			}
		}
		if res.Created != 5 || res.Failed != 8 || res.Skipped != 1 || len(res.Notices) != 1 {
			t.Fatalf("summary %s, notices %v", res, res.Notices)
		}

		// Isolation: the rival's products kept no translation.
		for _, id := range []string{rp.ID, other.ID} {
			got, err := w.cat.ProductTranslations(ctx, b, []string{id}, "")
			if err != nil || len(got) != 0 {
				t.Fatalf("rival's %s: %v %v", id, got, err)
			}
		}
		got, err := w.cat.ProductTranslations(ctx, a, []string{p.ID}, "es")
		if err != nil {
			t.Fatal(err)
		}
		es := got[p.ID]["es"]
		if es.Text(vitrine.FieldName, "") != "Camiseta básica" || es.Text(vitrine.FieldHandle, "") != "camisa-basica-es" ||
			es.Text(vitrine.OptionValueField("Color", "Blue"), "") != "Azul" || es.Text(vitrine.OptionNameField("Color"), "") != "Color ES" {
			t.Fatalf("es: %v", es)
		}

		// Again: nothing changes.
		res, err = w.cat.ImportTranslationsFile(ctx, a, strings.NewReader(csv), "shopify", 0, nil)
		if err != nil || res.Unchanged != 5 || res.Created != 0 {
			t.Fatalf("again: %v %v", res, err)
		}

		// Round trip: export, import, export gives the same file.
		first := exportTranslations(t, w, a, "")
		if !strings.Contains(first, "PRODUCT,camisa-basica,title,es,,translated,Camisa Básica,Camiseta básica\n") {
			t.Fatalf("export:\n%s", first)
		}
		res, err = w.cat.ImportTranslationsFile(ctx, a, strings.NewReader(first), "shopify", 0, nil)
		if err != nil || res.Failed != 0 || res.Created+res.Updated+res.Removed != 0 {
			t.Fatalf("round trip: %v %v", res, err)
		}
		if again := exportTranslations(t, w, a, ""); again != first {
			t.Fatalf("round trip:\n%s\n---\n%s", first, again)
		}

		// The source changes: the translation is outdated.
		if _, err := w.cat.UpdateProduct(ctx, a, p.ID, catalog.ProductChanges{Name: ptrTo("Camisa Nova")}); err != nil {
			t.Fatal(err)
		}
		if out := exportTranslations(t, w, a, "es"); !strings.Contains(out, "PRODUCT,camisa-basica,title,es,,outdated,Camisa Nova,Camiseta básica\n") {
			t.Fatalf("outdated:\n%s", out)
		}

		// JSON Lines: by id, "" removes.
		jsonl := `{"id":"` + p.ID + `","translations":{"es":{"name":"","options":{"Size":{"values":{"M":"Médio"}}}}}}` + "\n" +
			`{"id":"` + rp.ID + `","translations":{"es":{"name":"Do rival"}}}` + "\n" +
			`{"handle":"camisa-basica"}` + "\n"
		res, err = w.cat.ImportTranslationsFile(ctx, a, strings.NewReader(jsonl), "jsonl", 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Removed != 1 || res.Created != 1 || res.Failed != 1 || res.Skipped != 1 {
			t.Fatalf("jsonl: %s %v", res, res.Results)
		}
		if _, err := w.cat.ImportTranslationsFile(ctx, a, strings.NewReader(jsonl+jsonl), "jsonl", 4, nil); vitrine.TypeOf(err) != vitrine.ValidationError {
			t.Fatalf("past the bound: %v", err)
		}
	})
}
