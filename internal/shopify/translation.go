package shopify

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// A translation CSV is what Shopify's Translate & Adapt exports and imports
// (Settings › Languages › Export): a row per translatable field of a
// resource, per locale. MAPPING.md ("Translation CSV") says what becomes of
// each type and field.

// TranslationColumns is the header of a translation CSV, in the order
// Shopify writes it and TranslationWriter writes it.
var TranslationColumns = []string{"Type", "Identification", "Field", "Locale", "Market", "Status", "Default content", "Translated content"}

// Columns of a translation CSV, by their index in TranslationColumns.
const (
	tType = iota
	tIdent
	tField
	tLocale
	tMarket
	tStatus
	tDefault
	tTranslated
	nTranslationColumns
)

// requiredTranslationColumns are those without which a row means nothing.
var requiredTranslationColumns = []int{tType, tIdent, tField, tLocale, tTranslated}

// The resource types Vitrine reads (Shopify's TranslatableResourceType).
const (
	TypeProduct     = "PRODUCT"
	TypeCollection  = "COLLECTION"
	TypeOption      = "PRODUCT_OPTION"
	TypeOptionValue = "PRODUCT_OPTION_VALUE"
)

// Translation statuses a writer gives (Shopify's words); a reader keeps
// the cell but acts on none: whether a translation is outdated is
// Vitrine's own reckoning, by the digest of its source.
const (
	StatusTranslated   = "translated"
	StatusOutdated     = "outdated"
	StatusUntranslated = ""
)

// TranslationRow is one row of a translation CSV. Every cell is trimmed
// but the two contents, kept as written (a description is HTML, and the
// service sanitizes it); Identification loses the ' that Shopify puts
// before a number so that a spreadsheet keeps it text.
type TranslationRow struct {
	// Line is the file's line the row starts on.
	Line           int
	Type           string
	Identification string
	Field          string
	Locale         string
	Market         string
	Status         string
	Default        string
	Translated     string
}

// Target is what of Vitrine's a row translates, read from its Type,
// Identification and Field.
type Target struct {
	// Resource is ResourceProduct or ResourceCategory.
	Resource string
	// Ref names the product or category: its Vitrine id, its handle, or
	// (a Shopify export's) a Shopify id that the file's own handle row of
	// that resource turns into a handle.
	Ref string
	// Option is the option's name, for an option's or a value's row.
	Option string
	// Value is the option value (the row's Default content), for a
	// value's row.
	Value string
	// Field is Vitrine's name of the field (FieldName, FieldDescription,
	// ...), as translate_product and translate_category name them.
	Field string
}

// Vitrine's resources a translation CSV reaches.
const (
	ResourceProduct  = "product"
	ResourceCategory = "category"
)

// Vitrine's translatable fields, as translate_product names them; an
// option's name and its values are FieldOptionName and FieldOptionValue.
const (
	FieldName           = "name"
	FieldDescription    = "description"
	FieldHandle         = "handle"
	FieldProductType    = "product_type"
	FieldSEOTitle       = "seo.title"
	FieldSEODescription = "seo.description"
	FieldOptionName     = "option.name"
	FieldOptionValue    = "option.value"
)

// productFields maps a PRODUCT row's Field to Vitrine's, and back.
var productFields = []struct{ shopify, vitrine string }{
	{"title", FieldName},
	{"body_html", FieldDescription},
	{"handle", FieldHandle},
	{"product_type", FieldProductType},
	{"meta_title", FieldSEOTitle},
	{"meta_description", FieldSEODescription},
}

// categoryFields maps a COLLECTION row's Field to Vitrine's: a category
// has a name and a handle, no description nor SEO.
var categoryFields = []struct{ shopify, vitrine string }{
	{"title", FieldName},
	{"handle", FieldHandle},
}

// ShopifyField is the Field a writer gives a Vitrine field of a resource,
// or "" when the format has none.
func ShopifyField(resource, field string) string {
	switch {
	case field == FieldOptionName || field == FieldOptionValue:
		return "name"
	case resource == ResourceCategory:
		return lookup(categoryFields, field, false)
	default:
		return lookup(productFields, field, false)
	}
}

func lookup(m []struct{ shopify, vitrine string }, key string, fromShopify bool) string {
	for _, f := range m {
		if fromShopify && f.shopify == key {
			return f.vitrine
		}
		if !fromShopify && f.vitrine == key {
			return f.shopify
		}
	}
	return ""
}

// OptionIdent is the Identification Vitrine writes for a product's option
// (and its values' rows): the product's handle, "/", the option's name. A
// handle holds no "/", so the first one splits them.
func OptionIdent(productHandle, option string) string { return productHandle + "/" + option }

// Target reads what the row translates. A row of a type or field Vitrine
// does not model, or whose Identification cannot name a resource, gives
// an error that says why, for the row's report.
func (r *TranslationRow) Target() (Target, error) {
	typ := strings.ToUpper(r.Type)
	field := strings.ToLower(r.Field)
	switch typ {
	case TypeProduct:
		f := lookup(productFields, field, true)
		if f == "" {
			return Target{}, fmt.Errorf("field %q of a PRODUCT is not one Vitrine translates (it does: %s)", r.Field, shopifyNames(productFields))
		}
		return Target{Resource: ResourceProduct, Ref: r.Identification, Field: f}, nil
	case TypeCollection:
		f := lookup(categoryFields, field, true)
		if f == "" {
			return Target{}, fmt.Errorf("field %q of a COLLECTION is not one Vitrine translates: a category has a name and a handle (title, handle)", r.Field)
		}
		return Target{Resource: ResourceCategory, Ref: r.Identification, Field: f}, nil
	case TypeOption, TypeOptionValue:
		if field != "name" {
			return Target{}, fmt.Errorf("field %q of a %s is not one Vitrine translates (it does: name)", r.Field, typ)
		}
		ref, option, ok := strings.Cut(r.Identification, "/")
		if !ok || ref == "" || strings.TrimSpace(option) == "" {
			return Target{}, fmt.Errorf("the Identification %q does not say the product: Vitrine keeps no Shopify option ids; write the product's handle, a /, and the option's name (as shirt/Size), as Vitrine's export does", r.Identification)
		}
		t := Target{Resource: ResourceProduct, Ref: ref, Option: strings.TrimSpace(option), Field: FieldOptionName}
		if typ == TypeOptionValue {
			t.Field, t.Value = FieldOptionValue, strings.TrimSpace(r.Default)
			if t.Value == "" {
				return Target{}, errors.New("the Default content is blank: a value's row names the value it translates there")
			}
		}
		return t, nil
	case "":
		return Target{}, errors.New("the Type is blank")
	}
	return Target{}, fmt.Errorf("type %q is not modelled: Vitrine translates PRODUCT, PRODUCT_OPTION, PRODUCT_OPTION_VALUE and COLLECTION (as categories)", r.Type)
}

func shopifyNames(m []struct{ shopify, vitrine string }) string {
	names := make([]string, len(m))
	for i, f := range m {
		names[i] = f.shopify
	}
	return strings.Join(names, ", ")
}

// TranslationReader reads a translation CSV a row at a time.
type TranslationReader struct {
	csv        *csv.Reader
	header     []string
	col        [nTranslationColumns]int // -1 when absent
	unmodelled []Issue
}

// NewTranslationReader reads the header of a translation CSV: its columns
// are found by name, without regard to case or spacing, in any order. A
// header without Type, Identification, Field, Locale or Translated
// content, or with a column twice, is an error; a column of another name
// is reported by Unmodelled.
func NewTranslationReader(r io.Reader) (*TranslationReader, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\uFEFF")) {
		br.Discard(3) //nolint:errcheck // peeked
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = 0
	header, err := cr.Read()
	if err == io.EOF {
		return nil, errors.New("shopify: the file is empty: a translation CSV starts with its header (" + strings.Join(TranslationColumns, ", ") + ")")
	}
	if err != nil {
		return nil, fmt.Errorf("shopify: the header: %w", err)
	}
	tr := &TranslationReader{csv: cr, header: header}
	for i := range tr.col {
		tr.col[i] = -1
	}
	for i, name := range header {
		n := normName(name)
		c := slices.IndexFunc(TranslationColumns, func(s string) bool { return normName(s) == n })
		if c < 0 {
			why := "not modelled: not a column of Shopify's translation CSV"
			if n == "" {
				why = fmt.Sprintf("not modelled: column %d has no name", i+1)
			}
			tr.unmodelled = append(tr.unmodelled, Issue{Column: name, Message: why})
			continue
		}
		if j := tr.col[c]; j >= 0 {
			return nil, fmt.Errorf("shopify: the header has %q twice (columns %d and %d)", TranslationColumns[c], j+1, i+1)
		}
		tr.col[c] = i
	}
	var missing []string
	for _, c := range requiredTranslationColumns {
		if tr.col[c] < 0 {
			missing = append(missing, TranslationColumns[c])
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("shopify: the header has no %s column: this is not a Shopify translation CSV (%s)", strings.Join(missing, ", "), strings.Join(TranslationColumns, ", "))
	}
	return tr, nil
}

// Unmodelled returns the header's columns that Vitrine does not read.
func (r *TranslationReader) Unmodelled() []Issue { return slices.Clone(r.unmodelled) }

// Next returns the next row that is not blank, or io.EOF after the last.
// A row whose cells do not match the header's count is returned as nil
// with an issue naming its line (Refused), and the reading goes on. An
// error of the CSV syntax (a stray quote) names its line and ends the
// reading, as does ctx once done.
func (r *TranslationReader) Next(ctx context.Context) (*TranslationRow, *Issue, error) {
	for {
		if err := ctx.Err(); err != nil {
			line, _ := r.csv.FieldPos(0)
			return nil, nil, fmt.Errorf("shopify: stopped after line %d: %w", line, err)
		}
		rec, err := r.csv.Read()
		if err == io.EOF {
			return nil, nil, io.EOF
		}
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) || !errors.Is(pe.Err, csv.ErrFieldCount) {
				return nil, nil, fmt.Errorf("shopify: %w", err)
			}
			if blank(rec) {
				continue
			}
			return nil, &Issue{Line: pe.StartLine, Refused: true,
				Message: fmt.Sprintf("the row has %d cells; the header has %d: a cell is missing or one too many", len(rec), len(r.header))}, nil
		}
		if blank(rec) {
			continue
		}
		line, _ := r.csv.FieldPos(0)
		cell := func(c int) string {
			if i := r.col[c]; i >= 0 {
				return rec[i]
			}
			return ""
		}
		return &TranslationRow{
			Line:           line,
			Type:           strings.TrimSpace(cell(tType)),
			Identification: strings.TrimPrefix(strings.TrimSpace(cell(tIdent)), "'"),
			Field:          strings.TrimSpace(cell(tField)),
			Locale:         strings.TrimSpace(cell(tLocale)),
			Market:         strings.TrimSpace(cell(tMarket)),
			Status:         strings.TrimSpace(cell(tStatus)),
			Default:        cell(tDefault),
			Translated:     cell(tTranslated),
		}, nil, nil
	}
}

func blank(rec []string) bool {
	return !slices.ContainsFunc(rec, func(c string) bool { return strings.TrimSpace(c) != "" })
}

// TranslationWriter writes a translation CSV: the header, then a row per
// Write. Cells are written as they are (see Writer on formulas).
type TranslationWriter struct {
	csv   *csv.Writer
	wrote bool
}

// NewTranslationWriter starts a translation CSV on w.
func NewTranslationWriter(w io.Writer) *TranslationWriter {
	return &TranslationWriter{csv: csv.NewWriter(w)}
}

// Write writes one row (its Line is not written).
func (w *TranslationWriter) Write(r TranslationRow) error {
	if !w.wrote {
		w.wrote = true
		if err := w.csv.Write(TranslationColumns); err != nil {
			return err
		}
	}
	return w.csv.Write([]string{r.Type, r.Identification, r.Field, r.Locale, r.Market, r.Status, r.Default, r.Translated})
}

// Flush writes the header when no row was written, and flushes.
func (w *TranslationWriter) Flush() error {
	if !w.wrote {
		w.wrote = true
		if err := w.csv.Write(TranslationColumns); err != nil {
			return err
		}
	}
	w.csv.Flush()
	return w.csv.Error()
}
