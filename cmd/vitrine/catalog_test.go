package main

import (
	"os"
	"path/filepath"
	"regexp"
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
		if code != 0 || !strings.Contains(out, "created, 0 updated, 0 failed.") || !strings.Contains(errs, "note: ") {
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
