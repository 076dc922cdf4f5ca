package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
)

// The operator keeps a company's categories and attributes from the
// command line, as its owner or a member who may; a Shopify export comes
// in with the categories of its paths.
func TestCategoryAndAttributeCommands(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		d := "--db=" + url
		must(t, "demo", d, "--json")
		clothing := strings.TrimSpace(must(t, "category", "add", d, "--tenant", "technova", "--name", "Roupas"))
		jackets := strings.TrimSpace(must(t, "category", "add", d, "--tenant", "technova", "--name", "Jaquetas", "--parent", clothing))
		if list := must(t, "category", "list", d, "--tenant", "technova"); !regexp.MustCompile(jackets + ` +jaquetas +Roupas > Jaquetas\n`).MatchString(list) {
			t.Errorf("category list:\n%s", list)
		}
		fails(t, "cannot go under itself", "category", "update", d, "--tenant", "technova", clothing, "--parent", jackets)
		fails(t, "You do not have permission", "category", "add", d, "--tenant", "technova", "--name", "X", "--as", "diego@technova.example")
		fails(t, "subcategories", "category", "delete", d, "--tenant", "technova", clothing)
		must(t, "attribute", "save", "tecido", d, "--tenant", "technova", "--type", "enum", "--values", "algodão,lã")
		fails(t, `give its type`, "attribute", "save", "cor", d, "--tenant", "technova")
		if list := must(t, "attribute", "list", d, "--tenant", "technova"); !regexp.MustCompile(`tecido +enum +tecido +algodão, lã\n`).MatchString(list) {
			t.Errorf("attribute list:\n%s", list)
		}
		// A Shopify file's categories and metafields come in with it.
		file, err := os.ReadFile("../../internal/shopify/testdata/export_classic.csv")
		if err != nil {
			t.Fatal(err)
		}
		csv := filepath.Join(t.TempDir(), "products_export.csv")
		os.WriteFile(csv, file, 0o644)
		out, errs, code := runCLI(t, "product", "import", d, "--tenant", "mercado-verde", csv)
		if code != 0 || !strings.Contains(out, "created, 0 updated, 0 unchanged, 0 failed.") || !strings.Contains(errs, "note: ") {
			t.Fatalf("shopify import: exit %d\n%s\n%s", code, out, errs)
		}
		if list := must(t, "category", "list", d, "--tenant", "mercado-verde"); !strings.Contains(list, "Apparel & Accessories > Clothing") {
			t.Errorf("the file's categories:\n%s", list)
		}
		exported := must(t, "product", "export", d, "--tenant", "mercado-verde", "--format", "shopify")
		if !strings.HasPrefix(exported, "Handle,Title,Body (HTML),Vendor,Product Category,Type,Tags,Published,Option1 Name") {
			t.Errorf("shopify export:\n%.300s", exported)
		}
	})
}

// An import's summary on the command line: each kind of note once, with
// its count and first lines, not a line per product; counts in words that
// agree with them.
func TestImportSummary(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		d := "--db=" + url
		must(t, "demo", d, "--json")
		dir := t.TempDir()
		var b strings.Builder
		b.WriteString("Handle,Title,Variant SKU,Variant Grams,Variant Price\n")
		for i := range 50 {
			price := "9.90"
			if i == 3 {
				price = "nine"
			}
			b.WriteString("noted-" + strconv.Itoa(i) + ",Noted " + strconv.Itoa(i) + ",NOTED-" + strconv.Itoa(i) + ",180.5," + price + "\n")
		}
		out, errs, code := runCLI(t, "product", "import", d, "--tenant", "technova", writeFile(t, dir, "noted.csv", b.String()))
		if code != 1 || !strings.Contains(out, "50 products: 49 created, 0 updated, 0 unchanged, 1 failed.") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errs)
		}
		notes := strings.Count(errs, "note: ")
		if notes != 1 || !strings.Contains(errs, "note: line 2, Variant Grams (noted-0): Variant Grams 180.5 is kept as 181: the format holds whole grams (49 times: lines 2, 3, 4, …)") ||
			!strings.Contains(errs, "line 5, Variant Price (noted-3): ") || !strings.Contains(errs, "1 product failed (listed above); the others were written") {
			t.Errorf("stderr:\n%s", errs)
		}
		out, _, _ = runCLI(t, "product", "import", d, "--tenant", "technova", writeFile(t, dir, "one.csv", "Handle,Title,Variant Price\nsolo,Solo,1.00\n"))
		if !strings.Contains(out, "1 product: 1 created, 0 updated, 0 unchanged, 0 failed.") {
			t.Errorf("one product: %s", out)
		}
	})
}

// A company's currency from the command line: tenant create and update
// set it; a Shopify file comes in in it unless --currency overrides.
func TestTenantCurrency(t *testing.T) {
	d := "--db=" + dbtest.SQLiteURL(t)
	must(t, "migrate", d)
	must(t, "user", "create", d, "--email", "ana@acme.example", "--name", "Ana")
	if tn := mustJSON(t, "tenant", "create", d, "--name", "US Shop", "--owner", "ana@acme.example", "--currency", "usd", "--json"); tn["currency"] != "USD" {
		t.Errorf("tenant create: %v", tn)
	}
	fails(t, "currency", "tenant", "create", d, "--name", "Bad", "--owner", "ana@acme.example", "--currency", "dollars")
	dir := t.TempDir()
	must(t, "product", "import", d, "--tenant", "us-shop", writeFile(t, dir, "a.csv", "Handle,Title,Variant Price\nmug,Mug,12.50\n"))
	must(t, "product", "import", d, "--tenant", "us-shop", "--currency", "EUR", writeFile(t, dir, "b.csv", "Handle,Title,Variant Price\ncup,Cup,9.50\n"))
	if tn := mustJSON(t, "tenant", "update", d, "us-shop", "--currency", "GBP", "--json"); tn["currency"] != "GBP" {
		t.Errorf("tenant update: %v", tn)
	}
	must(t, "product", "import", d, "--tenant", "us-shop", writeFile(t, dir, "c.csv", "Handle,Title,Variant Price\nbowl,Bowl,3.00\n"))
	out := must(t, "product", "export", d, "--tenant", "us-shop", "--format", "jsonl")
	for _, want := range []string{`"handle":"mug"`, `"currency":"USD"`, `"currency":"EUR"`, `"currency":"GBP"`} {
		if !strings.Contains(out, want) {
			t.Errorf("export lacks %s:\n%s", want, out)
		}
	}
}
