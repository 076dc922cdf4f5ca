// Package shopify reads and writes Shopify's product CSV
// (https://help.shopify.com/en/manual/products/import-export/using-csv):
// the older header vocabulary ("Body (HTML)", "Variant Inventory Qty") and
// the 2024+ one ("Description", "Inventory quantity"), compared without
// regard to case or spacing. MAPPING.md says what becomes of every column.
//
// The reader gives products as the file has them, not validated: the
// service validates and sanitizes them (Product.ValidateCatalog,
// SanitizeDescription) as it does any other input. What the file holds that
// Vitrine refuses or does not model is reported, never dropped in silence:
// Reader.Unmodelled for whole columns, once; the issues of Reader.Next for
// values, by line.
package shopify

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/vitrine/vitrine"
)

// Record is one product as the CSV gives it, with where it came from.
type Record struct {
	// Product has its Variants, Media, Options, Attributes and SEO filled,
	// positions numbered from 1 and Currency set; its ids, Categories and
	// summary are empty.
	Product *vitrine.Product
	// Category is the "Product Category" path as written ("Apparel &
	// Accessories > Clothing > Shirts"), or "": the caller resolves it to
	// its own categories.
	Category string
	// Line is the line of the product's first row.
	Line int
	// Published is the Published (or "Published on online store") cell of
	// the first row, when it is not blank.
	Published *bool
}

// Issue is something of the file that was refused or is not modelled.
type Issue struct {
	// Line is the line of the row at fault; 0 for the header.
	Line int
	// Column is the header's name of the column at fault, or "".
	Column string
	// Handle is the product the row belongs to, when known.
	Handle string
	// Refused is true when the issue made Next refuse the product; false
	// for a note about a product that was read all the same.
	Refused bool
	Message string
}

func (i Issue) String() string {
	var b strings.Builder
	if i.Line > 0 {
		fmt.Fprintf(&b, "line %d", i.Line)
	} else {
		b.WriteString("header")
	}
	if i.Column != "" {
		fmt.Fprintf(&b, ", %s", i.Column)
	}
	if i.Handle != "" {
		fmt.Fprintf(&b, " (%s)", i.Handle)
	}
	b.WriteString(": ")
	b.WriteString(i.Message)
	if i.Refused {
		b.WriteString(" (product refused)")
	}
	return b.String()
}

// Metafield is a product metafield column of the header, read as a text
// attribute. The caller creates the attribute definitions it lacks (type
// text) before it imports the products.
type Metafield struct {
	Column    string // as written: "Material (product.metafields.custom.material)"
	Name      string // "Material"
	Namespace string // "custom"
	Key       string // "material", Shopify's
	Attribute string // the key of Product.Attributes: AttributeKey(Key), or AttributeKey(Namespace_Key) when two columns would share one
	index     int
}

// Reader reads products from a Shopify product CSV, one product (a run of
// rows with one Handle) at a time.
type Reader struct {
	csv        *csv.Reader
	currency   string
	scale      int
	header     []string
	col        [nFields]int // the column of each field; -1 when absent
	metafields []Metafield
	unmodelled []Issue
	pending    *row
	eof        bool
	err        error
	seen       map[string]int // handle → the line of its first row
}

type row struct {
	line  int
	cells []string
	bad   string // why the row's cells cannot be read, when they cannot
}

// NewReader reads the header of a Shopify product CSV. currency is the
// ISO 4217 code of the file's prices (a Shopify export is in the store's
// currency), vitrine.DefaultCurrency when "". A header that is not a
// Shopify product CSV's (no Handle nor Title, no price, a column given
// twice) is an error.
func NewReader(r io.Reader, currency string) (*Reader, error) {
	if currency == "" {
		currency = vitrine.DefaultCurrency
	}
	cur, scale, err := vitrine.NormalizeCurrency("currency", currency)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\uFEFF")) {
		br.Discard(3) //nolint:errcheck // peeked
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = 0 // the header's count, checked on every row
	cr.LazyQuotes = false
	header, err := cr.Read()
	if err == io.EOF {
		return nil, errors.New("shopify: the file is empty: a product CSV starts with a header line")
	}
	if err != nil {
		return nil, fmt.Errorf("shopify: the header: %w", err)
	}
	rd := &Reader{csv: cr, currency: cur, scale: scale, header: header, seen: map[string]int{}}
	for i := range rd.col {
		rd.col[i] = -1
	}
	attrs := map[string]string{} // attribute key → the column giving it
	for i, name := range header {
		n := normName(name)
		if f, ok := aliases[n]; ok {
			if j := rd.col[f]; j >= 0 {
				return nil, fmt.Errorf("shopify: the header has both %q and %q, which are the same column", header[j], name)
			}
			rd.col[f] = i
			if why, ok := partlyModelled[f]; ok {
				rd.unmodelled = append(rd.unmodelled, Issue{Column: name, Message: why})
			}
			continue
		}
		if m := metafieldRE.FindStringSubmatch(strings.TrimSpace(name)); m != nil {
			if strings.EqualFold(m[2], "variant") {
				rd.unmodelled = append(rd.unmodelled, Issue{Column: name, Message: "not modelled: Vitrine's attributes are the product's; variant metafields are not imported"})
				continue
			}
			mf := Metafield{Column: name, Name: m[1], Namespace: m[3], Key: m[4], Attribute: AttributeKey(m[4]), index: i}
			if _, taken := attrs[mf.Attribute]; taken {
				mf.Attribute = AttributeKey(m[3] + "_" + m[4])
			}
			if other, taken := attrs[mf.Attribute]; taken {
				rd.unmodelled = append(rd.unmodelled, Issue{Column: name, Message: fmt.Sprintf("not imported: its attribute key %q is that of the column %q already", mf.Attribute, other)})
				continue
			}
			attrs[mf.Attribute] = name
			rd.metafields = append(rd.metafields, mf)
			continue
		}
		rd.unmodelled = append(rd.unmodelled, Issue{Column: name, Message: unmodelledWhy(n, i)})
	}
	if rd.col[fHandle] < 0 && rd.col[fTitle] < 0 {
		return nil, errors.New("shopify: the header has neither a Handle (URL handle) nor a Title column: this is not a Shopify product CSV")
	}
	if rd.col[fPrice] < 0 {
		return nil, errors.New("shopify: the header has no Variant Price (Price) column: every variant needs a price")
	}
	return rd, nil
}

func unmodelledWhy(n string, i int) string {
	if n == "" {
		return fmt.Sprintf("not modelled: column %d has no name", i+1)
	}
	for _, u := range unmodelledColumns {
		if n == u.name || (strings.HasSuffix(u.name, "/") && strings.HasPrefix(n, u.name)) {
			return u.why
		}
	}
	return "not modelled: not a column of Shopify's product CSV that Vitrine knows"
}

// Header returns the header as the file wrote it.
func (r *Reader) Header() []string { return slices.Clone(r.header) }

// Unmodelled returns the columns of the header that Vitrine does not model
// (or models in part), each once, with why: their cells are not imported.
func (r *Reader) Unmodelled() []Issue { return slices.Clone(r.unmodelled) }

// Metafields returns the product metafield columns of the header, each
// read into Product.Attributes as text under its Attribute key.
func (r *Reader) Metafields() []Metafield { return slices.Clone(r.metafields) }

// Next returns the next product: the run of consecutive rows with its
// Handle. Its first row carries the product and its first variant; each
// following row another variant when it has option values or variant cells
// (SKU, grams, weight, quantity, price, compare-at price, barcode, variant
// image), else only an image.
//
// It returns the record and the notes about it (issues not Refused); or a
// nil record and the issues, at least one Refused, when it refuses the
// product (or a row that belongs to none); or io.EOF after the last
// product. An error of the CSV syntax (a stray quote) is returned as an
// error naming its line, and ends the reading: the rows after it cannot be
// trusted.
func (r *Reader) Next() (*Record, []Issue, error) {
	if r.err != nil {
		return nil, nil, r.err
	}
	first, err := r.take()
	if err != nil {
		r.err = err
		return nil, nil, err
	}
	handle := r.handleOf(first)
	if handle == "" {
		return nil, []Issue{{Line: first.line, Column: r.name(fHandle), Refused: true,
			Message: "the row has no Handle and no Title to make one from: every row of a product needs its Handle"}}, nil
	}
	rows := []*row{first}
	for {
		nx, err := r.take()
		if err == io.EOF {
			break
		}
		if err != nil {
			r.err = err
			return nil, nil, err
		}
		if r.handleOf(nx) != handle {
			r.pending = nx
			break
		}
		rows = append(rows, nx)
	}
	if line, ok := r.seen[handle]; ok {
		return nil, []Issue{{Line: first.line, Column: r.name(fHandle), Handle: handle, Refused: true,
			Message: fmt.Sprintf("the handle %q was a product at line %d already: the rows of a product must follow one another", handle, line)}}, nil
	}
	r.seen[handle] = first.line
	return r.build(handle, rows)
}

// take returns the pending row or reads the next one that is not blank.
func (r *Reader) take() (*row, error) {
	if p := r.pending; p != nil {
		r.pending = nil
		return p, nil
	}
	if r.eof {
		return nil, io.EOF
	}
	for {
		rec, err := r.csv.Read()
		if err == io.EOF {
			r.eof = true
			return nil, io.EOF
		}
		rw := &row{cells: rec}
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) || !errors.Is(pe.Err, csv.ErrFieldCount) {
				return nil, fmt.Errorf("shopify: %w", err)
			}
			rw.line = pe.StartLine
			rw.bad = fmt.Sprintf("the row has %d cells; the header has %d: a cell is missing or one too many", len(rec), len(r.header))
		} else {
			rw.line, _ = r.csv.FieldPos(0)
		}
		if !slices.ContainsFunc(rec, func(c string) bool { return strings.TrimSpace(c) != "" }) {
			continue // a blank row, as spreadsheets leave at the end
		}
		return rw, nil
	}
}

// handleOf is the row's Handle; when blank, one made of its Title, as
// Shopify makes it for a new product.
func (r *Reader) handleOf(rw *row) string {
	if h := r.cell(rw, fHandle); h != "" {
		return h
	}
	if t := r.cell(rw, fTitle); t != "" {
		return vitrine.HandleOf(t)
	}
	return ""
}

// raw returns the row's cell of a field as written ("" when absent).
func (r *Reader) raw(rw *row, f field) string {
	i := r.col[f]
	if i < 0 || i >= len(rw.cells) {
		return ""
	}
	return rw.cells[i]
}

// cell returns the row's cell of a field, trimmed.
func (r *Reader) cell(rw *row, f field) string { return strings.TrimSpace(r.raw(rw, f)) }

// name is the header's name of a field's column, or the written one.
func (r *Reader) name(f field) string {
	if i := r.col[f]; i >= 0 {
		return r.header[i]
	}
	return writeHeader[f]
}

var (
	optName  = [3]field{fOpt1Name, fOpt2Name, fOpt3Name}
	optValue = [3]field{fOpt1Value, fOpt2Value, fOpt3Value}
	// The cells that make a following row a variant; without any, the row
	// only adds an image.
	variantCells = []field{fOpt1Value, fOpt2Value, fOpt3Value, fSKU, fGrams, fWeight, fQty, fPrice, fCompare, fBarcode, fVariantImage}
	// The variant cells an image row may have only blank (Shopify leaves
	// them so): any other value there is reported as ignored.
	defaultedCells = []field{fTracker, fPolicy, fFulfillment, fShipping, fTaxable, fWeightUnit}
	// The product's cells, read from its first row only.
	productCells = []field{fTitle, fBody, fVendor, fCategory, fType, fTags, fPublished, fStatus, fGiftCard, fSEOTitle, fSEODesc, fOpt1Name, fOpt2Name, fOpt3Name}
)

// builder gathers the issues of one product.
type builder struct {
	r          *Reader
	handle     string
	issues     []Issue
	mediaLines []int // the line of each of the product's Media, as read
}

func (b *builder) refuse(line int, f field, format string, args ...any) {
	b.issues = append(b.issues, Issue{Line: line, Column: b.r.name(f), Handle: b.handle, Refused: true, Message: fmt.Sprintf(format, args...)})
}

func (b *builder) note(line int, f field, format string, args ...any) {
	b.issues = append(b.issues, Issue{Line: line, Column: b.r.name(f), Handle: b.handle, Message: fmt.Sprintf(format, args...)})
}

func (b *builder) refused() bool {
	return slices.ContainsFunc(b.issues, func(i Issue) bool { return i.Refused })
}

// message is the text of a validation error.
func message(err error) string {
	if e := vitrine.AsError(err); e != nil {
		return e.Message
	}
	return err.Error()
}

func (r *Reader) build(handle string, rows []*row) (*Record, []Issue, error) {
	b := &builder{r: r, handle: handle}
	for _, rw := range rows {
		if rw.bad != "" {
			b.issues = append(b.issues, Issue{Line: rw.line, Handle: handle, Refused: true, Message: rw.bad})
		}
	}
	if b.refused() {
		// Its cells are in the wrong columns: nothing of it can be trusted.
		return nil, b.issues, nil
	}
	first := rows[0]
	p := &vitrine.Product{
		Handle:      handle,
		Name:        r.cell(first, fTitle),
		Description: r.raw(first, fBody),
		Vendor:      r.cell(first, fVendor),
		ProductType: r.cell(first, fType),
		Tags:        splitTags(r.raw(first, fTags)),
		SEO:         vitrine.SEO{Title: r.cell(first, fSEOTitle), Description: r.cell(first, fSEODesc)},
		Currency:    r.currency,
	}
	rec := &Record{Product: p, Category: r.cell(first, fCategory), Line: first.line}
	if p.Name == "" {
		b.refuse(first.line, fTitle, "the product's first row has no Title")
	}
	if s := r.cell(first, fPublished); s != "" {
		v, ok := parseBool(s)
		if !ok {
			b.refuse(first.line, fPublished, "%s must be TRUE or FALSE; got %q", r.name(fPublished), s)
		}
		rec.Published = &v
	}
	switch s := strings.ToLower(r.cell(first, fStatus)); {
	case s != "":
		st, err := vitrine.ParseProductStatus(r.name(fStatus), s)
		if err != nil {
			b.refuse(first.line, fStatus, "%s must be active, draft or archived; got %q", r.name(fStatus), r.cell(first, fStatus))
		}
		p.Status = st
	case rec.Published != nil && !*rec.Published:
		p.Status = vitrine.ProductDraft
	default:
		// Published TRUE or blank: Shopify publishes a product whose
		// Published cell is blank.
		p.Status = vitrine.ProductActive
	}
	if s := r.cell(first, fGiftCard); s != "" {
		if v, ok := parseBool(s); ok && v {
			b.note(first.line, fGiftCard, "the product is a gift card in Shopify; Vitrine has no gift cards and reads it as an ordinary product")
		}
	}
	for _, m := range r.metafields {
		if m.index >= len(first.cells) {
			continue
		}
		if v := strings.TrimSpace(first.cells[m.index]); v != "" {
			if p.Attributes == nil {
				p.Attributes = map[string]any{}
			}
			p.Attributes[m.Attribute] = v
		}
	}

	// The options, named on the first row.
	type opt struct {
		i    int // 0 to 2: Option1 to Option3
		name string
	}
	var opts []opt
	for i := range 3 {
		name := r.cell(first, optName[i])
		if name == "" {
			continue
		}
		if j := slices.IndexFunc(opts, func(o opt) bool { return vitrine.OptionKey(o.name) == vitrine.OptionKey(name) }); j >= 0 {
			b.refuse(first.line, optName[i], "the option %q is named twice (Option%d Name and Option%d Name)", name, opts[j].i+1, i+1)
			continue
		}
		opts = append(opts, opt{i, name})
	}

	combos := map[string]int{} // option values → the line of their variant
	untracked := false
	for n, rw := range rows {
		if n > 0 {
			for _, f := range productCells {
				if s := r.cell(rw, f); s != "" && s != r.cell(first, f) {
					b.note(rw.line, f, "ignored: the product's fields are read from its first row (line %d), which has %q", first.line, r.cell(first, f))
				}
			}
			for _, m := range r.metafields {
				if m.index < len(rw.cells) && m.index < len(first.cells) {
					if s := strings.TrimSpace(rw.cells[m.index]); s != "" && s != strings.TrimSpace(first.cells[m.index]) {
						b.issues = append(b.issues, Issue{Line: rw.line, Column: m.Column, Handle: handle,
							Message: fmt.Sprintf("ignored: the product's metafields are read from its first row (line %d)", first.line)})
					}
				}
			}
		}
		for i := range 3 {
			if v := r.cell(rw, optValue[i]); v != "" && !slices.ContainsFunc(opts, func(o opt) bool { return o.i == i }) {
				b.refuse(rw.line, optValue[i], "%s is %q but the product has no Option%d Name (on its first row, line %d)", r.name(optValue[i]), v, i+1, first.line)
			}
		}
		if n == 0 || slices.ContainsFunc(variantCells, func(f field) bool { return r.cell(rw, f) != "" }) {
			v := r.variant(b, rw)
			v.Position = len(p.Variants) + 1
			combo := make([]string, 0, len(opts))
			for _, o := range opts {
				val := r.cell(rw, optValue[o.i])
				if val == "" {
					b.refuse(rw.line, optValue[o.i], "the variant has no value for the option %q", o.name)
				}
				v.Options[o.name] = val
				combo = append(combo, val)
			}
			key := strings.Join(combo, "\x00")
			if line, ok := combos[key]; ok {
				what := strings.Join(combo, " / ")
				if what == "" {
					what = "no options"
				}
				b.refuse(rw.line, optValue[0], "the row has variant cells but repeats the option values of the variant at line %d (%s): each combination of option values is one variant", line, what)
			}
			combos[key] = rw.line
			if r.col[fTracker] >= 0 && r.cell(rw, fTracker) == "" {
				untracked = true
				v.Stock, v.Policy = 0, vitrine.PolicyContinue
			}
			p.Variants = append(p.Variants, v)
		} else {
			for _, f := range defaultedCells {
				if s := r.cell(rw, f); s != "" {
					b.note(rw.line, f, "ignored: the row has no option values nor variant cells, so it only adds an image")
				}
			}
		}
		r.image(b, p, rw)
	}
	if untracked {
		b.note(first.line, fTracker, "%s is blank: Shopify does not track the stock of that variant; it is read with stock 0 and inventory policy continue, so that it stays on sale", r.name(fTracker))
	}

	for _, o := range opts {
		var vals []string
		for _, v := range p.Variants {
			if val := v.Options[o.name]; !slices.Contains(vals, val) {
				vals = append(vals, val)
			}
		}
		p.Options = append(p.Options, vitrine.Option{Name: o.name, Values: vals})
	}
	// Shopify names the one variant of a product without options
	// Title: Default Title.
	if len(p.Options) == 1 && p.Options[0].Name == "Title" && slices.Equal(p.Options[0].Values, []string{"Default Title"}) {
		p.Options = nil
		for _, v := range p.Variants {
			v.Options = map[string]string{}
		}
	}
	r.finishMedia(b, p)
	slices.SortStableFunc(b.issues, func(x, y Issue) int { return x.Line - y.Line })
	if b.refused() {
		return nil, b.issues, nil
	}
	return rec, b.issues, nil
}

// variant reads a variant row's variant cells (not its option values).
func (r *Reader) variant(b *builder, rw *row) *vitrine.Variant {
	v := &vitrine.Variant{
		SKU:     r.cell(rw, fSKU),
		Options: map[string]string{},
		Barcode: r.cell(rw, fBarcode),
		Image:   r.cell(rw, fVariantImage),
		Policy:  vitrine.PolicyDeny,
	}
	if s := r.cell(rw, fPrice); s == "" {
		b.refuse(rw.line, fPrice, "%s is blank: every variant needs a price (0.00 for a free one)", r.name(fPrice))
	} else if n, err := vitrine.ParsePrice(r.name(fPrice), s, r.scale); err != nil {
		b.refuse(rw.line, fPrice, "%s", message(err))
	} else {
		v.Price = n
	}
	if s := r.cell(rw, fCompare); s != "" {
		if n, err := vitrine.ParsePrice(r.name(fCompare), s, r.scale); err != nil {
			b.refuse(rw.line, fCompare, "%s", message(err))
		} else {
			v.CompareAtPrice = &n
		}
	}
	if s := r.cell(rw, fQty); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		switch {
		case err != nil:
			b.refuse(rw.line, fQty, "%s must be a whole number; got %q", r.name(fQty), s)
		case n < 0:
			// Shopify lets a tracked variant be oversold; Vitrine's stock
			// is never negative.
			b.note(rw.line, fQty, "%s is %d (oversold): read as 0", r.name(fQty), n)
		default:
			v.Stock = n
		}
	}
	switch s := strings.ToLower(r.cell(rw, fPolicy)); s {
	case "", "deny", "false":
	case "continue", "true":
		v.Policy = vitrine.PolicyContinue
	default:
		b.refuse(rw.line, fPolicy, "%s must be deny or continue; got %q", r.name(fPolicy), r.cell(rw, fPolicy))
	}
	v.RequiresShipping = r.boolCell(b, rw, fShipping)
	v.Taxable = r.boolCell(b, rw, fTaxable)
	v.Weight = r.weight(b, rw)
	return v
}

// boolCell reads a TRUE/FALSE cell that is true when blank.
func (r *Reader) boolCell(b *builder, rw *row, f field) bool {
	s := r.cell(rw, f)
	if s == "" {
		return true
	}
	v, ok := parseBool(s)
	if !ok {
		b.refuse(rw.line, f, "%s must be TRUE or FALSE; got %q", r.name(f), s)
	}
	return v
}

func parseBool(s string) (v, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// splitTags splits a Tags cell: comma-separated, trimmed, blanks dropped.
func splitTags(s string) []string {
	var tags []string
	for t := range strings.SplitSeq(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	return tags
}

var decimalRE = regexp.MustCompile(`^[0-9]{1,12}(?:\.[0-9]{1,9})?$`)

// The grams in one of each unit, exactly; and the decimals a weight in that
// unit keeps when it is written as whole grams, as the format writes it:
// finer ones do not survive the way through grams.
var (
	gramsPer = map[vitrine.WeightUnit]*big.Rat{
		"g":  big.NewRat(1, 1),
		"kg": big.NewRat(1000, 1),
		"lb": big.NewRat(45359237, 100000),
		"oz": big.NewRat(28349523125, 1000000000),
	}
	unitDecimals = map[vitrine.WeightUnit]int{"g": 0, "kg": 3, "lb": 2, "oz": 1}
)

// weight reads Variant Grams, Variant Weight and Variant Weight Unit: the
// weight in the unit (Variant Weight, when given, else the grams
// converted), kept to the decimals whole grams hold in that unit.
func (r *Reader) weight(b *builder, rw *row) *vitrine.Weight {
	grams, value := r.cell(rw, fGrams), r.cell(rw, fWeight)
	unitCell := r.cell(rw, fWeightUnit)
	unit := vitrine.WeightUnit(strings.ToLower(unitCell))
	if unit == "lbs" {
		unit = "lb"
	}
	if grams == "" && value == "" {
		return nil
	}
	if unit == "" {
		unit = "g"
	} else if gramsPer[unit] == nil {
		b.refuse(rw.line, fWeightUnit, "%s must be g, kg, lb or oz; got %q", r.name(fWeightUnit), unitCell)
		return nil
	}
	var g *big.Rat // whole grams
	if value != "" {
		if !decimalRE.MatchString(value) {
			b.refuse(rw.line, fWeight, "%s must be a decimal number such as \"0.25\"; got %q", r.name(fWeight), value)
			return nil
		}
		v, _ := new(big.Rat).SetString(value)
		g = roundRat(new(big.Rat).Mul(v, gramsPer[unit]), 0)
		w := fromGrams(g, unit)
		if v.Cmp(mustRat(w)) != 0 {
			b.note(rw.line, fWeight, "%s %s %s is kept as %s %s: the format holds whole grams", r.name(fWeight), value, unit, w, unit)
		}
		return &vitrine.Weight{Value: w, Unit: unit}
	}
	if !decimalRE.MatchString(grams) {
		b.refuse(rw.line, fGrams, "%s must be a whole number of grams such as \"250\"; got %q", r.name(fGrams), grams)
		return nil
	}
	exact, _ := new(big.Rat).SetString(grams)
	g = roundRat(exact, 0)
	if g.Cmp(exact) != 0 {
		b.note(rw.line, fGrams, "%s %s is kept as %s: the format holds whole grams", r.name(fGrams), grams, g.FloatString(0))
	}
	return &vitrine.Weight{Value: fromGrams(g, unit), Unit: unit}
}

// fromGrams expresses whole grams in a unit, to the unit's decimals, in the
// one form of vitrine.ValidateWeight (no trailing zeros).
func fromGrams(g *big.Rat, unit vitrine.WeightUnit) string {
	v := new(big.Rat).Quo(g, gramsPer[unit])
	return trimDecimal(v.FloatString(unitDecimals[unit]))
}

// toGrams turns a weight into whole grams, rounded half away from zero.
func toGrams(w *vitrine.Weight) (string, error) {
	per := gramsPer[w.Unit]
	if per == nil {
		return "", fmt.Errorf("the weight unit %q is not g, kg, lb or oz", w.Unit)
	}
	v, ok := new(big.Rat).SetString(strings.TrimSpace(w.Value))
	if !ok || v.Sign() < 0 || !decimalRE.MatchString(strings.TrimSpace(w.Value)) {
		return "", fmt.Errorf("the weight %q is not a decimal number", w.Value)
	}
	return new(big.Rat).Mul(v, per).FloatString(0), nil
}

func roundRat(x *big.Rat, decimals int) *big.Rat {
	r, _ := new(big.Rat).SetString(x.FloatString(decimals))
	return r
}

func mustRat(s string) *big.Rat {
	r, _ := new(big.Rat).SetString(s)
	return r
}

func trimDecimal(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// image reads a row's Image Src, Image Position and Image Alt Text.
func (r *Reader) image(b *builder, p *vitrine.Product, rw *row) {
	src, pos, alt := r.cell(rw, fImageSrc), r.cell(rw, fImagePos), r.cell(rw, fImageAlt)
	if src == "" {
		if pos != "" || alt != "" {
			b.note(rw.line, fImageSrc, "ignored: %s and %s without an %s", r.name(fImagePos), r.name(fImageAlt), r.name(fImageSrc))
		}
		return
	}
	m := vitrine.Media{URL: src, Alt: alt}
	if pos != "" {
		n, err := strconv.Atoi(pos)
		if err != nil || n < 0 {
			b.refuse(rw.line, fImagePos, "%s must be a whole number from 1; got %q", r.name(fImagePos), pos)
		}
		m.Position = n
	}
	p.Media = append(p.Media, m)
	// The row's line, for the notes of finishMedia.
	b.mediaLines = append(b.mediaLines, rw.line)
}

// finishMedia orders the images by Image Position (those without one after,
// in the file's order), keeps the first of images with one URL, adds the
// variants' images that are not among them, and numbers them from 1.
func (r *Reader) finishMedia(b *builder, p *vitrine.Product) {
	type img struct {
		m    vitrine.Media
		line int
	}
	imgs := make([]img, len(p.Media))
	for i, m := range p.Media {
		imgs[i] = img{m, b.mediaLines[i]}
	}
	slices.SortStableFunc(imgs, func(a, b img) int {
		switch {
		case a.m.Position == b.m.Position:
			return 0
		case a.m.Position == 0:
			return 1
		case b.m.Position == 0:
			return -1
		}
		return a.m.Position - b.m.Position
	})
	var media []vitrine.Media
	lines := map[string]int{}
	for _, im := range imgs {
		if line, ok := lines[im.m.URL]; ok {
			if j := slices.IndexFunc(media, func(m vitrine.Media) bool { return m.URL == im.m.URL }); media[j].Alt != im.m.Alt {
				b.note(im.line, fImageAlt, "ignored: the image %q is at line %d already, with the alt text %q", im.m.URL, line, media[j].Alt)
			}
			continue
		}
		lines[im.m.URL] = im.line
		media = append(media, im.m)
	}
	for _, v := range p.Variants {
		if v.Image != "" && !slices.ContainsFunc(media, func(m vitrine.Media) bool { return m.URL == v.Image }) {
			media = append(media, vitrine.Media{URL: v.Image})
		}
	}
	for i := range media {
		media[i].Position = i + 1
	}
	p.Media = media
}
