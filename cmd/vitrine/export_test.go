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
	// Imported back, the products are as they were.
	must(t, "product", "import", d, "--tenant", "technova", "--mode", "upsert", out)
	again := must(t, "product", "export", d, "--tenant", "technova", "--format", "jsonl")
	for _, s := range []string{`"name":"=HYPERLINK(\"http://evil.example\")"`, `"description":"+1+1"`, `"name":"@SUM(A1:A9)"`, `"description":"-2"`} {
		if !strings.Contains(again, s) {
			t.Errorf("after the round trip, %s is missing", s)
		}
	}
}
