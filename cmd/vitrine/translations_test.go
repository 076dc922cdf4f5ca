package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// setLocales gives a company its locales straight in the database.
func setLocales(t *testing.T, url, slug string, locales ...string) {
	t.Helper()
	st := dbtest.Open(t, url)
	ten, err := st.TenantBySlug(ctx, slug)
	if err != nil {
		t.Fatal(err)
	}
	ten.Locales = locales
	if err := st.UpdateTenant(ctx, vitrine.Change{}, ten); err != nil {
		t.Fatal(err)
	}
}

func TestTranslationImportExport(t *testing.T) {
	url := dbtest.SQLiteURL(t)
	d := "--db=" + url
	must(t, "demo", d, "--json")
	verde := must(t, "product", "export", d, "--tenant", "mercado-verde")
	fails(t, "no locale but its default", "translation", "export", d, "--tenant", "technova")
	setLocales(t, url, "technova", "pt-BR", "es", "en")

	all := must(t, "translation", "export", d, "--tenant", "technova", "--locale", "es")
	if !strings.HasPrefix(all, "Type,Identification,Field,Locale,Market,Status,Default content,Translated content\n") ||
		!strings.Contains(all, "PRODUCT,notebook-dell-inspiron-15,title,es,,,Notebook Dell Inspiron 15,\n") || strings.Contains(all, ",en,") {
		t.Fatalf("export:\n%s", all)
	}
	dir := t.TempDir()
	in := writeFile(t, dir, "es.csv", "Type,Identification,Field,Locale,Market,Status,Default content,Translated content\n"+
		"PRODUCT,notebook-dell-inspiron-15,title,es,,,x,Portátil Dell Inspiron 15\n"+
		"PRODUCT,notebook-dell-inspiron-15,title,en,,,x,Dell Inspiron 15 laptop\n"+
		"PRODUCT,no-such-product,title,es,,,x,y\n")
	out, errs, code := runCLI(t, "translation", "import", d, "--tenant", "technova", "--format", "shopify", "--locale", "es", in)
	if code == 0 || !strings.Contains(errs, `line 4, no-such-product name (es): no product with handle or id "no-such-product"`) ||
		!strings.Contains(out, "3 translations: 1 created, 0 updated, 0 removed, 0 unchanged, 1 skipped, 1 failed.") {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errs)
	}
	fails(t, "is not one of the company's locales", "translation", "import", d, "--tenant", "technova", "--format", "shopify", "--locale", "fr", in)

	// The product's JSON line carries its translations; the others' lines,
	// and every line of a company without translations, are as they were.
	jl := must(t, "product", "export", d, "--tenant", "technova")
	if !strings.Contains(jl, `"translations":{"es":{"name":"Portátil Dell Inspiron 15"}}`) || strings.Count(jl, `"translations"`) != 1 {
		t.Fatalf("jsonl export:\n%s", jl)
	}
	if again := must(t, "product", "export", d, "--tenant", "mercado-verde"); again != verde {
		t.Fatal("the export of a company without translations changed")
	}

	// Imported back with a translation changed, the product has it.
	back := writeFile(t, dir, "back.jsonl", strings.Replace(jl, `"name":"Portátil Dell Inspiron 15"`, `"name":"Portátil Dell"`, 1))
	out = must(t, "product", "import", d, "--tenant", "technova", "--mode", "upsert", back)
	if !strings.Contains(out, "1 translation: 0 created, 1 updated") {
		t.Fatalf("product import: %s", out)
	}
	// And as translations alone.
	out = must(t, "translation", "import", d, "--tenant", "technova", "--format", "jsonl", back)
	if !strings.Contains(out, "1 unchanged") {
		t.Fatalf("translation import of a product file: %s", out)
	}
	f := filepath.Join(dir, "all.csv")
	must(t, "translation", "export", d, "--tenant", "technova", "-o", f)
	must(t, "translation", "import", d, "--tenant", "technova", "--format", "shopify", f)
	if again := must(t, "translation", "export", d, "--tenant", "technova"); again != readFile(t, f) {
		t.Fatal("export → import → export changed the file")
	}
}
