package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
)

// A CSV export escapes the cells a spreadsheet would run as formulas (a
// leading =, +, -, @, tab or carriage return) with a ', and imports back
// unchanged.
func TestExportEscapesFormulas(t *testing.T) {
	d := "--db=" + dbtest.SQLiteURL(t)
	must(t, "demo", d, "--json")
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", "sku,name,price,description\n"+
		"F-1,\"=HYPERLINK(\"\"http://evil.example\"\")\",1.00,+1+1\n"+
		"F-2,@SUM(A1:A9),1.00,-2\n"+
		"F-3,Plain,1.00,\"cmd|' /C calc'!A0\"\n")
	must(t, "product", "import", d, "--tenant", "technova", in)
	out := filepath.Join(dir, "out.csv")
	must(t, "product", "export", d, "--tenant", "technova", "--format", "csv", "-o", out)
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"F-1": {`'=HYPERLINK("http://evil.example")`, "'+1+1"},
		"F-2": {"'@SUM(A1:A9)", "'-2"},
		"F-3": {"Plain", "cmd|' /C calc'!A0"},
	}
	seen := 0
	for _, r := range rows[1:] {
		for _, cell := range r {
			if cell != "" && strings.IndexByte("=+-@\t\r", cell[0]) >= 0 {
				t.Errorf("a cell a spreadsheet would run: %q", cell)
			}
		}
		if w, ok := want[r[1]]; ok {
			seen++
			if r[2] != w[0] || r[3] != w[1] {
				t.Errorf("%s: name %q, description %q; want %q", r[1], r[2], r[3], w)
			}
		}
	}
	if seen != 3 {
		t.Fatalf("exported %d of the 3 products", seen)
	}
	// Imported back, the products are as they were. (The file's rows of the
	// demo's products of variants are left out: one row of the plain CSV
	// does not replace a product's variants.)
	var back strings.Builder
	cw := csv.NewWriter(&back)
	for i, r := range rows {
		if _, ok := want[r[1]]; ok || i == 0 {
			if err := cw.Write(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	cw.Flush()
	mine := filepath.Join(t.TempDir(), "mine.csv")
	if err := os.WriteFile(mine, []byte(back.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	must(t, "product", "import", d, "--tenant", "technova", "--mode", "upsert", mine)
	again := must(t, "product", "export", d, "--tenant", "technova", "--format", "jsonl")
	for _, s := range []string{`"name":"=HYPERLINK(\"http://evil.example\")"`, `"description":"+1+1"`, `"name":"@SUM(A1:A9)"`, `"description":"-2"`} {
		if !strings.Contains(again, s) {
			t.Errorf("after the round trip, %s is missing", s)
		}
	}
}

// Issue 31, finding 9: the Shopify export writes values as they are by
// default, so that Shopify's importer (and Vitrine's) get them back;
// --escape-formulas escapes every cell a spreadsheet would run, as the
// csv format always does.
func TestShopifyExportFormulas(t *testing.T) {
	d := "--db=" + dbtest.SQLiteURL(t)
	must(t, "demo", d, "--json")
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", "Handle,Title,Body (HTML),Vendor,Type,Tags,Option1 Name,Option1 Value,Variant Price,SEO Title\n"+
		"f-1,\"=HYPERLINK(\"\"http://evil.example\"\")\",\"+cmd|' /C calc'!A0\",@SUM(1+1),-Type,\"=tag, ok\",=Size,@M,1.00,'=seo\n")
	must(t, "product", "import", d, "--tenant", "technova", "--format", "shopify", in)
	formulas := []string{`=HYPERLINK("http://evil.example")`, `+cmd|' /C calc'!A0`, "@SUM(1+1)", "-Type", "=tag, ok", "=Size", "@M", "'=seo"}
	export := func(args ...string) []string {
		t.Helper()
		out := filepath.Join(dir, "out.csv")
		must(t, append([]string{"product", "export", d, "--tenant", "technova", "--format", "shopify", "-o", out}, args...)...)
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows[1:] {
			if r[0] == "f-1" {
				return r
			}
		}
		t.Fatal("f-1 not exported")
		return nil
	}
	// By default, as they are: the file is data for an importer.
	row := strings.Join(export(), "\x00")
	for _, f := range formulas {
		if !strings.Contains("\x00"+row+"\x00", "\x00"+f+"\x00") {
			t.Errorf("without --escape-formulas, %q is not written as it is: %q", f, row)
		}
	}
	// Escaped: no cell a spreadsheet would run.
	cells := export("--escape-formulas")
	for _, c := range cells {
		if c != "" && strings.IndexByte("=+-@\t\r", c[0]) >= 0 {
			t.Errorf("with --escape-formulas, a cell a spreadsheet would run: %q", c)
		}
	}
	row = strings.Join(cells, "\x00")
	for _, f := range formulas {
		if !strings.Contains("\x00"+row+"\x00", "\x00'"+f+"\x00") {
			t.Errorf("with --escape-formulas, %q is not written '%s: %q", f, f, row)
		}
	}
}
