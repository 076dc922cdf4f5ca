package shopify

import (
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// readTranslations reads every row of a translation CSV, and the issues of
// the rows refused.
func readTranslations(t testing.TB, r io.Reader) (*TranslationReader, []*TranslationRow, []Issue) {
	t.Helper()
	tr, err := NewTranslationReader(r)
	if err != nil {
		t.Fatalf("NewTranslationReader: %v", err)
	}
	var rows []*TranslationRow
	var issues []Issue
	for {
		row, is, err := tr.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return tr, rows, issues
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if is != nil {
			issues = append(issues, *is)
			continue
		}
		rows = append(rows, row)
	}
}

// A Translate & Adapt export (BOM, Shopify's ids behind a ', a description
// over several lines, quotes and commas in cells, types and fields Vitrine
// does not translate) reads row by row, each with its line, and each row
// says what of Vitrine it translates, or why nothing.
func TestReadTranslationExport(t *testing.T) {
	_, rows, issues := readTranslations(t, open(t, "translations_es.csv"))
	if len(issues) != 0 {
		t.Fatalf("issues: %v", issues)
	}
	if len(rows) != 15 {
		t.Fatalf("%d rows; want 15", len(rows))
	}
	body := rows[1]
	if body.Line != 3 || body.Identification != "8079393226938" || body.Field != "body_html" ||
		body.Default != "<p>Malha 100% algodão.</p>\n<ul><li>Fio 30.1</li></ul>" ||
		body.Translated != "<p>Punto 100% algodón.</p>\n<ul><li>Hilo 30.1</li></ul>" {
		t.Errorf("body_html row: %+v", body)
	}
	if rows[2].Line != 6 {
		t.Errorf("the row after a cell of two lines is at line %d; want 6", rows[2].Line)
	}
	if got := rows[5].Translated; got != `La camiseta de todos los días, "de verdad".` {
		t.Errorf("quoted cell: %q", got)
	}
	if rows[7].Market != "mx" || rows[7].Status != "translated" {
		t.Errorf("market row: %+v", rows[7])
	}

	type want struct {
		target Target
		why    string // a part of the error, when refused
	}
	wants := []want{
		{target: Target{Resource: ResourceProduct, Ref: "8079393226938", Field: FieldName}},
		{target: Target{Resource: ResourceProduct, Ref: "8079393226938", Field: FieldDescription}},
		{target: Target{Resource: ResourceProduct, Ref: "8079393226938", Field: FieldHandle}},
		{target: Target{Resource: ResourceProduct, Ref: "8079393226938", Field: FieldProductType}},
		{target: Target{Resource: ResourceProduct, Ref: "8079393226938", Field: FieldSEOTitle}},
		{target: Target{Resource: ResourceProduct, Ref: "8079393226938", Field: FieldSEODescription}},
		{why: `field "tags" of a PRODUCT is not one Vitrine translates`},
		{target: Target{Resource: ResourceProduct, Ref: "8079393226938", Field: FieldName}},
		{target: Target{Resource: ResourceCategory, Ref: "4011223344", Field: FieldName}},
		{why: `field "body_html" of a COLLECTION`},
		{why: "Vitrine keeps no Shopify option ids"},
		{target: Target{Resource: ResourceProduct, Ref: "camiseta-basica", Option: "Cor", Field: FieldOptionName}},
		{target: Target{Resource: ResourceProduct, Ref: "camiseta-basica", Option: "Cor", Value: "Azul-marinho", Field: FieldOptionValue}},
		{why: `type "METAFIELD" is not modelled`},
		{why: `type "ONLINE_STORE_THEME" is not modelled`},
	}
	for i, w := range wants {
		got, err := rows[i].Target()
		switch {
		case w.why != "" && (err == nil || !strings.Contains(err.Error(), w.why)):
			t.Errorf("line %d: error %v; want one saying %q", rows[i].Line, err, w.why)
		case w.why == "" && err != nil:
			t.Errorf("line %d: %v", rows[i].Line, err)
		case w.why == "" && got != w.target:
			t.Errorf("line %d: %+v; want %+v", rows[i].Line, got, w.target)
		}
	}
}

// Columns are found by name in any order and case; a column Shopify's
// file does not have is reported, not read; the header must have the
// columns a row needs.
func TestTranslationHeader(t *testing.T) {
	tr, rows, _ := readTranslations(t, strings.NewReader("translated content, LOCALE ,field,identification,type,Notes\nHola,es,title,camiseta,PRODUCT,mine\n"))
	want := &TranslationRow{Line: 2, Type: "PRODUCT", Identification: "camiseta", Field: "title", Locale: "es", Translated: "Hola"}
	if len(rows) != 1 || !reflect.DeepEqual(rows[0], want) {
		t.Fatalf("rows %+v; want %+v", rows, want)
	}
	if u := tr.Unmodelled(); len(u) != 1 || u[0].Column != "Notes" || !strings.Contains(u[0].Message, "not modelled") {
		t.Errorf("unmodelled: %+v", u)
	}
	for _, c := range []struct{ in, err string }{
		{"", "the file is empty"},
		{"Handle,Title,Variant Price\n", "no Type, Identification, Field, Locale, Translated content column"},
		{"Type,Identification,Field,Locale,Default content\n", "no Translated content column"},
		{"Type,Identification,Field,Locale,Translated content,type\n", `"Type" twice (columns 1 and 6)`},
		{"Type,\"Identification\n", "the header"},
	} {
		_, err := NewTranslationReader(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: %v; want %q", c.in, err, c.err)
		}
	}
}

// A row of the wrong width is refused by its line and the reading goes on;
// blank rows are skipped; a stray quote ends the reading with its line.
func TestTranslationBadRows(t *testing.T) {
	head := strings.Join(TranslationColumns, ",") + "\n"
	_, rows, issues := readTranslations(t, strings.NewReader(head+
		"PRODUCT,a,title,es,,,A,Á\n"+
		"PRODUCT,b,title,es\n"+
		",,,,,,,\n"+
		"\n"+
		"PRODUCT,c,title,es,,,C,Ç\n"))
	if len(rows) != 2 || rows[0].Identification != "a" || rows[1].Identification != "c" || rows[1].Line != 6 {
		t.Errorf("rows: %+v", rows)
	}
	if len(issues) != 1 || issues[0].Line != 3 || !issues[0].Refused || !strings.Contains(issues[0].Message, "has 4 cells; the header has 8") {
		t.Errorf("issues: %+v", issues)
	}

	tr, err := NewTranslationReader(strings.NewReader(head + "PRODUCT,a,title,es,,,A,Á\nPRODUCT,b,title,es,,,\"B\"x,y\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tr.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tr.Next(context.Background()); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("stray quote: %v; want an error naming line 3", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tr, _ = NewTranslationReader(strings.NewReader(head + "PRODUCT,a,title,es,,,A,Á\n"))
	if _, _, err := tr.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("a done context: %v", err)
	}
}

// What the writer writes reads back as it was, header first; a file of no
// rows is its header.
func TestTranslationRoundTrip(t *testing.T) {
	in := []TranslationRow{
		{Type: TypeProduct, Identification: "camiseta", Field: ShopifyField(ResourceProduct, FieldDescription), Locale: "es", Status: StatusTranslated,
			Default: "<p>Linha 1,\n\"linha\" 2</p>\r\n", Translated: " <p>Línea</p> "},
		{Type: TypeOptionValue, Identification: OptionIdent("camiseta", "Cor / Tom"), Field: ShopifyField(ResourceProduct, FieldOptionValue), Locale: "en-US", Default: "Azul"},
		{Type: TypeCollection, Identification: "roupas", Field: ShopifyField(ResourceCategory, FieldHandle), Locale: "es", Status: StatusOutdated, Default: "=roupas", Translated: "@ropa"},
	}
	var buf bytes.Buffer
	w := NewTranslationWriter(&buf)
	for _, r := range in {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	_, rows, issues := readTranslations(t, &buf)
	if len(issues) != 0 || len(rows) != len(in) {
		t.Fatalf("rows %d, issues %v", len(rows), issues)
	}
	for i := range in {
		got := *rows[i]
		got.Line = 0
		want := in[i]
		want.Default = strings.ReplaceAll(want.Default, "\r\n", "\n") // encoding/csv reads a quoted CRLF as LF
		if got != want {
			t.Errorf("row %d: %+v; want %+v", i, got, want)
		}
	}
	if tg, err := rows[1].Target(); err != nil || tg.Option != "Cor / Tom" || tg.Value != "Azul" || tg.Ref != "camiseta" {
		t.Errorf("option value: %+v, %v", tg, err)
	}

	buf.Reset()
	w = NewTranslationWriter(&buf)
	if err := w.Flush(); err != nil || buf.String() != strings.Join(TranslationColumns, ",")+"\n" {
		t.Errorf("an empty file: %q, %v", buf.String(), err)
	}
}

// FuzzTranslationReader: any bytes never panic; the rows they read as,
// written and read again, are the same.
func FuzzTranslationReader(f *testing.F) {
	head := strings.Join(TranslationColumns, ",") + "\n"
	f.Add([]byte(head + "PRODUCT,a,title,es,,,A,Á\n"))
	f.Add([]byte(head + "PRODUCT_OPTION_VALUE,a/b,name,es,,,\"x\ny\",\"\"\"\"\n"))
	f.Add([]byte("Type,Identification,Field,Locale,Translated content\nX,'1,y,z,w\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := NewTranslationReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		var rows []TranslationRow
		for {
			row, _, err := tr.Next(context.Background())
			if err != nil {
				break
			}
			if row != nil {
				row.Target() //nolint:errcheck // must not panic
				rows = append(rows, *row)
			}
		}
		var buf bytes.Buffer
		w := NewTranslationWriter(&buf)
		for _, r := range rows {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		_, again, issues := readTranslations(t, &buf)
		if len(issues) != 0 {
			t.Fatalf("read back: %v", issues)
		}
		// What a second reading may change: a ' before an Identification
		// is taken off once more, a quoted CRLF reads as LF.
		var want []TranslationRow
		for _, r := range rows {
			r.Line = 0
			r.Identification = strings.TrimPrefix(r.Identification, "'")
			r.Default = strings.ReplaceAll(r.Default, "\r\n", "\n")
			r.Translated = strings.ReplaceAll(r.Translated, "\r\n", "\n")
			if blank([]string{r.Type, r.Identification, r.Field, r.Locale, r.Market, r.Status, r.Default, r.Translated}) {
				continue // a row blank once its ' is gone is skipped
			}
			want = append(want, r)
		}
		if len(again) != len(want) {
			t.Fatalf("%d rows read back from %d", len(again), len(want))
		}
		for i := range want {
			got := *again[i]
			got.Line = 0
			if got != want[i] {
				t.Fatalf("row %d: %+v; want %+v", i, got, want[i])
			}
		}
	})
}
