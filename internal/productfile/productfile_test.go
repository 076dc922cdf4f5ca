package productfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/ from what the writer writes")

func ptr[T any](v T) *T { return &v }

// goldenProducts are the products of testdata/products.*: every field a
// product has, the currency of no decimals, and the cells a spreadsheet
// would run as formulas.
func goldenProducts() []*vitrine.Product {
	created := time.Date(2025, 3, 14, 9, 26, 53, 589793000, time.UTC)
	updated := time.Date(2025, 4, 1, 12, 0, 0, 0, time.UTC)
	jacket := &vitrine.Product{ID: "0195f3a0-0000-7000-8000-000000000001", Handle: "jaqueta-corta-vento", Name: "Jaqueta Corta-Vento",
		Description: "<p>Leve & <strong>impermeável</strong>, \"para a chuva\".</p>", Vendor: "Montanha", ProductType: "Jaqueta",
		Tags: []string{"chuva", "inverno"}, Status: vitrine.ProductActive, Currency: "BRL",
		Options: []vitrine.Option{{Name: "Tamanho", Values: []string{"P", "M"}}, {Name: "Cor", Values: []string{"Azul"}}},
		Variants: []*vitrine.Variant{
			{ID: "0195f3a0-0000-7000-8000-0000000000a1", SKU: "JCV-P-AZ", Options: map[string]string{"Tamanho": "P", "Cor": "Azul"}, Price: 45990,
				CompareAtPrice: ptr[int64](52990), Barcode: "7891000315507", Weight: &vitrine.Weight{Value: "0.45", Unit: vitrine.WeightUnit("kg")}, Stock: 7,
				Policy: vitrine.PolicyDeny, RequiresShipping: true, Taxable: true, Image: "https://cdn.example/jcv-azul.jpg", Position: 1},
			{ID: "0195f3a0-0000-7000-8000-0000000000a2", SKU: "JCV-M-AZ", Options: map[string]string{"Tamanho": "M", "Cor": "Azul"}, Price: 47990,
				Stock: 0, Policy: vitrine.PolicyContinue, RequiresShipping: false, Taxable: false, Position: 2},
		},
		Media:      []vitrine.Media{{URL: "https://cdn.example/jcv-azul.jpg", Alt: "Azul, de frente", Position: 1}, {URL: "https://cdn.example/jcv-costas.jpg", Position: 2}},
		Categories: []vitrine.ProductCategory{{ID: "cat-jaquetas", Name: "Jaquetas"}, {ID: "cat-chuva", Name: "Chuva"}},
		Attributes: map[string]any{"material": "poliéster", "peso_g": 450.0, "vegano": true},
		SEO:        vitrine.SEO{Title: "Jaqueta Corta-Vento | Montanha", Description: "Leve e impermeável."},
		SKU:        "JCV-P-AZ", Price: 45990, PriceMax: 47990, Stock: 7, Version: 3, CreatedAt: created, UpdatedAt: updated}
	formula := &vitrine.Product{ID: "0195f3a0-0000-7000-8000-000000000002", Handle: "hyperlink", Name: `=HYPERLINK("http://evil.example")`,
		Description: "+1+1", Status: vitrine.ProductDraft, Currency: "JPY",
		Variants: []*vitrine.Variant{{ID: "0195f3a0-0000-7000-8000-0000000000b1", SKU: "'=SKU", Options: map[string]string{}, Price: 1200, Stock: 3,
			Policy: vitrine.PolicyDeny, RequiresShipping: true, Taxable: true, Position: 1}},
		SKU: "'=SKU", Price: 1200, Stock: 3, Version: 1, CreatedAt: created, UpdatedAt: created}
	plain := &vitrine.Product{ID: "0195f3a0-0000-7000-8000-000000000003", Handle: "cafe-moido", Name: "Café moído ☕, 500 g",
		Description: "Torra média,\nnotas de \"chocolate\".", Status: vitrine.ProductArchived, Currency: "BRL",
		Variants: []*vitrine.Variant{{ID: "0195f3a0-0000-7000-8000-0000000000c1", SKU: "CAFE-500", Options: map[string]string{}, Price: 3450, Stock: 0,
			Policy: vitrine.PolicyDeny, RequiresShipping: true, Taxable: true, Position: 1}},
		SKU: "CAFE-500", Price: 3450, Stock: 0, Version: 12, CreatedAt: created, UpdatedAt: updated}
	return []*vitrine.Product{jacket, formula, plain}
}

var categoryPaths = map[string]string{"cat-jaquetas": "Roupas > Jaquetas", "cat-chuva": "Chuva"}

func pathOf(id string) string { return categoryPaths[id] }

func write(t testing.TB, f Format, products []*Product) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range products {
		if err := w.Write(p); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	return buf.Bytes()
}

func readAll(t testing.TB, data []byte, f Format) []Row {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), f)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var rows []Row
	for {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		rows = append(rows, row)
	}
}

func filed(products []*vitrine.Product) []*Product {
	out := make([]*Product, len(products))
	for i, p := range products {
		out[i] = Of(p, pathOf)
	}
	return out
}

// seedFields is what a CSV row holds of a product.
func seedFields(p *Product) *Product {
	return &Product{SKU: p.SKU, Name: p.Name, Description: p.Description, Price: p.Price, Currency: p.Currency, Stock: p.Stock, Status: p.Status}
}

// What the writer writes is the golden file, byte for byte
// (go test ./internal/productfile -update rewrites it).
func TestGolden(t *testing.T) {
	for _, f := range []Format{JSONLines, CSV} {
		t.Run(string(f), func(t *testing.T) {
			got := write(t, f, filed(goldenProducts()))
			file := "testdata/products." + string(f)
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the writer's %s differs from %s:\n%s", f, file, got)
			}
		})
	}
}

// The golden files read back as the products written: JSON Lines every
// field, the CSV the seed's, each row giving what it holds.
func TestRoundTrip(t *testing.T) {
	products := filed(goldenProducts())
	t.Run("jsonl", func(t *testing.T) {
		data, err := os.ReadFile("testdata/products.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		rows := readAll(t, data, JSONLines)
		if len(rows) != len(products) {
			t.Fatalf("read %d rows, want %d", len(rows), len(products))
		}
		for i, row := range rows {
			// A variant's options of a product without options, {}, are
			// left out, and read as none.
			for j, v := range products[i].Variants {
				if len(v.Options) == 0 {
					products[i].Variants[j].Options = nil
				}
			}
			if !reflect.DeepEqual(row.Product, products[i]) {
				t.Errorf("row %d:\n%+v\nwant\n%+v", i, *row.Product, *products[i])
			}
			if row.Line != i+1 {
				t.Errorf("row %d on line %d", i, row.Line)
			}
		}
		if p := rows[0].Product; p.Categories[0] != "Roupas > Jaquetas" || p.Variants[0].CompareAtPrice != "529.90" || !*p.Variants[0].RequiresShipping || *p.Variants[1].RequiresShipping {
			t.Errorf("jacket: %+v", p)
		}
		if p := rows[1].Product; p.Price != "1200" || p.Currency != "JPY" {
			t.Errorf("a price in yen is whole: %q %s", p.Price, p.Currency)
		}
		want := []string{"attributes", "categories", "created_at", "currency", "description", "handle", "id", "media", "name", "options", "price", "product_type",
			"seo", "sku", "status", "stock", "tags", "updated_at", "variants", "vendor", "version"}
		if got := keys(rows[0].Given); !slices.Equal(got, want) {
			t.Errorf("given %v, want %v", got, want)
		}
		if rows[1].Given["tags"] || rows[1].Given["seo"] || !rows[1].Given["description"] {
			t.Errorf("a line gives only its keys: %v", keys(rows[1].Given))
		}
	})
	t.Run("csv", func(t *testing.T) {
		data, err := os.ReadFile("testdata/products.csv")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(`'=HYPERLINK(""http://evil.example"")`)) || !bytes.Contains(data, []byte(",'+1+1,")) || !bytes.Contains(data, []byte(",''=SKU,")) {
			t.Errorf("a cell a spreadsheet would run is not escaped:\n%s", data)
		}
		rows := readAll(t, data, CSV)
		if len(rows) != len(products) {
			t.Fatalf("read %d rows, want %d", len(rows), len(products))
		}
		for i, row := range rows {
			if want := seedFields(products[i]); !reflect.DeepEqual(row.Product, want) {
				t.Errorf("row %d:\n%+v\nwant\n%+v", i, *row.Product, *want)
			}
			if got := keys(row.Given); !slices.Equal(got, slices.Sorted(slices.Values(Columns))) {
				t.Errorf("row %d gives %v", i, got)
			}
		}
	})
}

func keys(m map[string]bool) []string {
	var out []string
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// A file written by hand reads as the export's would: the header in any
// case, after a BOM, in any order, the export's own columns ignored; a
// blank cell not given but description's; a seed line of JSON a product
// of one variant; blank lines skipped, each row on its own line.
func TestReadsHandWritten(t *testing.T) {
	rows := readAll(t, []byte("\uFEFFName, SKU ,Price,Stock,ID,Description,Status\n"+
		"Caneta,A-1,2.50,10,ignored,,\n"+
		"\"Esferográfica, 1 mm\",'@B,1,, ,\"x\"\"y\",archived\n"), CSV)
	want := []Row{
		{Product: &Product{SKU: "A-1", Name: "Caneta", Price: "2.50", Stock: ptr[int64](10)}, Line: 2,
			Given: map[string]bool{"sku": true, "name": true, "price": true, "stock": true, "description": true}},
		{Product: &Product{SKU: "@B", Name: "Esferográfica, 1 mm", Price: "1", Description: `x"y`, Status: "archived"}, Line: 3,
			Given: map[string]bool{"sku": true, "name": true, "price": true, "description": true, "status": true}},
	}
	if !reflect.DeepEqual(rows, want) {
		for _, r := range rows {
			t.Errorf("%d %+v %v", r.Line, *r.Product, r.Given)
		}
	}

	rows = readAll(t, []byte("\n"+`{"sku":"A","name":"B","price":"1","stock":3}`+"\n  \n"+`{"name":"C","tags":[],"variants":[{"price":"2","stock":1}]}`+"\n"), JSONLines)
	if len(rows) != 2 || rows[0].Line != 2 || rows[1].Line != 4 {
		t.Fatalf("rows %+v", rows)
	}
	if p := rows[0].Product; p.SKU != "A" || p.Name != "B" || p.Price != "1" || *p.Stock != 3 || len(p.Variants) != 0 || keys(rows[0].Given)[0] != "name" {
		t.Errorf("seed line: %+v %v", p, rows[0].Given)
	}
	if p := rows[1].Product; p.Stock != nil || len(p.Variants) != 1 || p.Variants[0].Price != "2" || !rows[1].Given["tags"] || rows[1].Given["stock"] {
		t.Errorf("line of variants: %+v %v", p, rows[1].Given)
	}
}

// A file that is not one of these says what and where, by line; a row
// after an error is never read.
func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		format Format
		data   string
		want   string
	}{
		{CSV, "", "read the CSV header: EOF"},
		{CSV, "sku,name,price,colour\n", `unknown column "colour" in the CSV header; the columns are sku, name, price, description, currency, stock, status`},
		{CSV, "Handle,Title,Variant Price\n", `unknown column "handle"`},
		{CSV, "sku,name\nA,B\n", `the CSV header has no "price" column; sku, name and price are required`},
		{CSV, "sku,name,price,stock\nA,B,1,2\nC,D,1,lots\nE,F,1,1\n", `line 3: stock must be a whole number, not "lots"`},
		{CSV, "sku,name,price\nA,B,1\n\"unterminated\n", `line 3: parse error on line 3, column 15: extraneous or missing " in quoted-field`},
		{JSONLines, "{\"name\":\"A\"}\n\n[1]\n{}", "line 3 is not a JSON object of product fields: json: cannot unmarshal array into Go value of type map[string]json.RawMessage"},
		{JSONLines, `{"stock":"x"}`, "line 1 is not a JSON object of product fields: json: cannot unmarshal string into Go struct field Product.stock of type int64"},
		{JSONLines, "{}\n" + `{"name":"` + strings.Repeat("x", maxLine) + `"}`, "line 2: bufio.Scanner: token too long"},
	} {
		err := readErr(tc.data, tc.format)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %.40q: %v, want %q", tc.format, tc.data, err, tc.want)
		}
	}
	if err := readErr("sku,name,price,colour\n", CSV); !errors.Is(err, ErrUnknownColumn) {
		t.Errorf("an unknown column is not ErrUnknownColumn: %v", err)
	}
	if _, err := NewReader(strings.NewReader(""), "xml"); err == nil {
		t.Error("a reader of no format")
	}
	if _, err := NewWriter(io.Discard, "xml"); err == nil {
		t.Error("a writer of no format")
	}
}

// readErr reads data to its end, and returns the error that stopped it,
// after checking that it stays: nothing is read past it.
func readErr(data string, f Format) error {
	r, err := NewReader(strings.NewReader(data), f)
	if err != nil {
		return err
	}
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if _, again := r.Next(); again != err {
				return errors.New("Next after an error read on")
			}
			return err
		}
	}
}

// Tabs and carriage returns lead no stored name (names are trimmed), but an
// export escapes them too, as OWASP lists them; a cell that looks escaped
// already keeps its ' through the round trip.
func TestCSVCell(t *testing.T) {
	for in, want := range map[string]string{"\tx": "'\tx", "\rx": "'\rx", "=1": "'=1", "a=1": "a=1", "": "", "'": "'", "'=1": "''=1", "''-": "'''-", "'a": "'a"} {
		if got := csvCell(in); got != want || uncsvCell(got) != in {
			t.Errorf("csvCell(%q) = %q, back %q", in, got, uncsvCell(got))
		}
	}
}

// A product never stored (a file made from generated products) has no
// times to write.
func TestOfLeavesOutZeroTimes(t *testing.T) {
	p := goldenProducts()[2]
	p.CreatedAt, p.UpdatedAt = time.Time{}, time.Time{}
	line := write(t, JSONLines, []*Product{Of(p, pathOf)})
	if bytes.Contains(line, []byte("_at")) {
		t.Errorf("zero times written: %s", line)
	}
}

// FuzzReader: whatever file the operator imports, its rows are read or
// refused with a clear error naming the line, never a panic or a hang;
// what is read, written and read again is the same.
func FuzzReader(f *testing.F) {
	for _, seed := range []string{
		"sku,name,price\nA-1,Caneta,2.50\n",
		"sku,name,price,stock,description\nA,\"Esferográfica, 1 mm\",1,10,\"x\"\"y\"\n",
		"\uFEFFSKU,Name,Price,Status\nA,B,1,archived\n",
		"sku,name\nA,B\n", "sku,name,price,colour\n", "", "sku,name,price\n\"unterminated\n",
		"sku,name,price,stock\nA,B,1,lots\n", "id,sku,name,price,version,created_at\nx,A,B,1,2,now\n",
	} {
		f.Add(seed, "csv")
	}
	for _, seed := range []string{`{"sku":"A","name":"B","price":"1","stock":3}`, "{}\n\n[1]", `{"stock":"x"}`, "not json"} {
		f.Add(seed, "jsonl")
	}
	for _, format := range []Format{JSONLines, CSV} {
		b, err := os.ReadFile("testdata/products." + string(format))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), string(format))
	}
	f.Fuzz(func(t *testing.T, data, format string) {
		fm := CSV
		if format == "jsonl" {
			fm = JSONLines
		}
		first, ok := readFuzz(t, data, fm)
		if !ok {
			return
		}
		for i, row := range first {
			if row.Line < 1 || i > len(data)+1 {
				t.Fatalf("row %+v after %d rows of %d bytes", row, i, len(data))
			}
		}
		products := make([]*Product, len(first))
		for i, row := range first {
			products[i] = row.Product
		}
		var out bytes.Buffer
		w, _ := NewWriter(&out, fm)
		for _, p := range products {
			if err := w.Write(p); err != nil {
				t.Fatalf("what was read does not write: %v", err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatalf("what was read does not write: %v", err)
		}
		second, ok := readFuzz(t, out.String(), fm)
		if !ok {
			t.Fatalf("what was written does not read:\n%s", out.String())
		}
		if len(second) != len(first) {
			t.Fatalf("read %d products, then %d from\n%s", len(first), len(second), out.String())
		}
		for i := range first {
			a, _ := json.Marshal(first[i].Product)
			b, _ := json.Marshal(second[i].Product)
			if !bytes.Equal(a, b) {
				t.Fatalf("product %d differs:\n%s\n%s\nfile:\n%s", i, a, b, out.String())
			}
		}
	})
}

// readFuzz reads every row of data; false when the file is refused, with
// an error that says why, naming the line past the header.
func readFuzz(t *testing.T, data string, f Format) ([]Row, bool) {
	r, err := NewReader(strings.NewReader(data), f)
	if err != nil {
		if err.Error() == "" {
			t.Fatal("an error without words")
		}
		return nil, false
	}
	var rows []Row
	for {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows, true
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") {
				t.Fatalf("an error that names no line: %v", err)
			}
			return nil, false
		}
		rows = append(rows, row)
	}
}
