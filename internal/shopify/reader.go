// Package shopify reads and writes Shopify's product CSV
// (https://help.shopify.com/en/manual/products/import-export/using-csv):
// the older header vocabulary ("Body (HTML)", "Variant Inventory Qty") and
// the 2024+ one ("Description", "Inventory quantity"), compared without
// regard to case or spacing. MAPPING.md says what becomes of every column.
//
// The reader gives products as the file has them, not validated: the
// service validates and sanitizes them (Product.ValidateCatalog,
// internal/sanitize) as it does any other input. What the file holds that
// Vitrine refuses or does not model is reported, never dropped in silence:
// Reader.Unmodelled for whole columns, once; the issues of Reader.Next for
// values, by line.
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
	// Kind tells issues of the same sort apart from others, whatever their
	// lines and values: the column with the message's pattern. Issues of
	// one kind can be reported once, with a count.
	Kind string
}

// KindOf is the issue's kind: Kind, or else its column and message.
func (i Issue) KindOf() string {
	if i.Kind != "" {
		return i.Kind
	}
	return i.Column + "\x00" + i.Message
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
			rd.metafield(name, i, m, attrs)
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
//
// A product is refused as soon as its rows pass what a product may hold
// (vitrine.MaxVariants variants, vitrine.MaxMedia images, and so at most
// maxRows rows): its other rows are read past, not gathered, so that a
// file's cost stays linear in its size.
func (r *Reader) Next() (*Record, []Issue, error) {
	return r.NextContext(context.Background())
}

// NextContext is Next, stopping with ctx's error, between rows, once ctx
// is done: a file read under a deadline stops at it.
func (r *Reader) NextContext(ctx context.Context) (*Record, []Issue, error) {
	if r.err != nil {
		return nil, nil, r.err
	}
	first, err := r.take(ctx)
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
	t := tally{images: map[string]bool{}}
	over := r.count(&t, first, true, handle)
	for {
		nx, err := r.take(ctx)
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
		if over != nil {
			continue // the product is refused: its other rows are read past
		}
		rows = append(rows, nx)
		over = r.count(&t, nx, false, handle)
	}
	if line, ok := r.seen[handle]; ok {
		return nil, []Issue{{Line: first.line, Column: r.name(fHandle), Handle: handle, Refused: true,
			Message: fmt.Sprintf("the handle %q was a product at line %d already: the rows of a product must follow one another", handle, line)}}, nil
	}
	r.seen[handle] = first.line
	if over != nil {
		return nil, []Issue{*over}, nil
	}
	return r.build(handle, rows)
}

// maxRows bounds a product's rows: each row is a variant or adds an image.
const maxRows = vitrine.MaxVariants + vitrine.MaxMedia

// tally counts what a product's rows hold so far.
type tally struct {
	rows, variants int
	images         map[string]bool // the URLs of Image Src and Variant Image
}

// count adds a row of a product to t, and returns the issue that refuses
// the product when the row passes one of its bounds.
func (r *Reader) count(t *tally, rw *row, first bool, handle string) *Issue {
	t.rows++
	if first || slices.ContainsFunc(variantCells, func(f field) bool { return r.cell(rw, f) != "" }) {
		t.variants++
	}
	for _, f := range []field{fImageSrc, fVariantImage} {
		if s := r.cell(rw, f); s != "" {
			t.images[s] = true
		}
	}
	refuse := func(f field, format string, args ...any) *Issue {
		return &Issue{Line: rw.line, Column: r.name(f), Handle: handle, Refused: true,
			Message: fmt.Sprintf(format, args...) + "; its rows after this line were not read"}
	}
	switch {
	case t.variants > vitrine.MaxVariants:
		return refuse(fPrice, "the product passes %d variants here: a product has at most %d variants", vitrine.MaxVariants, vitrine.MaxVariants)
	case len(t.images) > vitrine.MaxMedia:
		return refuse(fImageSrc, "the product passes %d images here: a product has at most %d images", vitrine.MaxMedia, vitrine.MaxMedia)
	case t.rows > maxRows:
		return refuse(fHandle, "the product passes %d rows here: a product has at most %d variants and %d images, a row each", maxRows, vitrine.MaxVariants, vitrine.MaxMedia)
	}
	return nil
}

// take returns the pending row or reads the next one that is not blank,
// unless ctx is done.
func (r *Reader) take(ctx context.Context) (*row, error) {
	if p := r.pending; p != nil {
		r.pending = nil
		return p, nil
	}
	if r.eof {
		return nil, io.EOF
	}
	for {
		if err := ctx.Err(); err != nil {
			line, _ := r.csv.FieldPos(0)
			return nil, fmt.Errorf("shopify: stopped after line %d: %w", line, err)
		}
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
