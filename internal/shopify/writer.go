package shopify

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/vitrine/vitrine"
)

// Writer writes products as a Shopify product CSV: the header in Shopify's
// documented column order (the older vocabulary, which every Shopify
// importer accepts) and one metafield column per attribute key,
// "key (product.metafields.custom.key)". Each product takes one row per
// variant, the first with the product's fields, and each row the next of
// its images; the images left take rows of their own.
//
// Cells are written as they are by default: a cell that starts with = + -
// @ is not escaped against spreadsheet formulas, unlike Vitrine's own CSV
// export, because this file is data for an importer (Shopify or Vitrine)
// and must come back unchanged; a ' before it would become part of the
// value. EscapeFormulas, for a file meant for a spreadsheet, escapes them.
type Writer struct {
	// EscapeFormulas puts a ' before every cell that a spreadsheet would
	// run as a formula (one starting with = + - @, a tab or a carriage
	// return, after any 's), as Vitrine's own CSV export does. Shopify's
	// importer then keeps the ' in the value.
	EscapeFormulas bool

	csv          *csv.Writer
	keys         []string
	categoryPath func(*vitrine.Product) string
	header       []string
	wrote        bool
	err          error // of the header, which every later call returns
}

// NewWriter returns a Writer whose metafield columns are attributeKeys, in
// that order (AttributeKeys gives those of a list of products).
// categoryPath gives the "Product Category" cell of a product (its
// category's path, such as "Apparel & Accessories > Clothing > Shirts");
// nil writes it blank.
func NewWriter(w io.Writer, attributeKeys []string, categoryPath func(*vitrine.Product) string) *Writer {
	h := slices.Clone(writeHeader[:])
	for _, k := range attributeKeys {
		h = append(h, metafieldColumn(k))
	}
	return &Writer{csv: csv.NewWriter(w), keys: slices.Clone(attributeKeys), categoryPath: categoryPath, header: h}
}

func metafieldColumn(key string) string { return key + " (product.metafields.custom." + key + ")" }

// AttributeKeys returns the attribute keys the products hold, sorted.
func AttributeKeys(products []*vitrine.Product) []string {
	var keys []string
	for _, p := range products {
		for k := range p.Attributes {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// Write writes the products to w, with a metafield column for each
// attribute key they hold, and flushes.
func Write(w io.Writer, products []*vitrine.Product, categoryPath func(*vitrine.Product) string) error {
	sw := NewWriter(w, AttributeKeys(products), categoryPath)
	for _, p := range products {
		if err := sw.Write(p); err != nil {
			return err
		}
	}
	return sw.Flush()
}

func (w *Writer) writeHeader() error {
	if w.wrote {
		return w.err
	}
	w.wrote = true
	for _, k := range w.keys {
		if !simpleKeyRE.MatchString(k) {
			w.err = fmt.Errorf("shopify: the attribute key %q is not simple (lower-case letters, digits and _): it would not read back as itself", k)
			return w.err
		}
	}
	w.err = w.csv.Write(w.header)
	return w.err
}

// Write writes one product. It refuses, rather than write what would not
// read back as the product, one without variants, with more than three
// options, without options but with several variants, with a tag holding a
// comma, with an attribute the Writer has no column for, or with a weight
// that is not a decimal in g, kg, lb or oz.
//
// What the format cannot hold is not written: ids, the summary, an option
// value no variant has, a weight's decimals finer than whole grams in its
// unit (see MAPPING.md).
func (w *Writer) Write(p *vitrine.Product) error {
	if err := w.writeHeader(); err != nil {
		return err
	}
	rows, err := w.rows(p)
	if err != nil {
		return fmt.Errorf("shopify: product %q: %w", p.Handle, err)
	}
	if w.EscapeFormulas {
		for _, row := range rows {
			for i, c := range row {
				row[i] = escapeFormula(c)
			}
		}
	}
	return w.csv.WriteAll(rows) // WriteAll flushes
}

// Flush writes the header when no product was written, and flushes.
func (w *Writer) Flush() error {
	if err := w.writeHeader(); err != nil {
		return err
	}
	w.csv.Flush()
	return w.csv.Error()
}

func boolCell(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}

func (w *Writer) rows(p *vitrine.Product) ([][]string, error) {
	if strings.TrimSpace(p.Handle) == "" {
		return nil, errors.New("no handle")
	}
	if len(p.Variants) == 0 {
		return nil, errors.New("no variant: a Shopify product has at least one")
	}
	if len(p.Options) > 3 {
		return nil, fmt.Errorf("%d options: Shopify has at most 3", len(p.Options))
	}
	if len(p.Options) == 0 && len(p.Variants) > 1 {
		return nil, fmt.Errorf("%d variants but no options to tell them apart", len(p.Variants))
	}
	for _, t := range p.Tags {
		if strings.Contains(t, ",") {
			return nil, fmt.Errorf("the tag %q holds a comma, which separates tags", t)
		}
	}
	for k := range p.Attributes {
		if !slices.Contains(w.keys, k) {
			return nil, fmt.Errorf("the attribute %q has no column in this file", k)
		}
	}
	scale := vitrine.CurrencyScale(p.Currency)
	n := max(len(p.Variants), len(p.Media))
	rows := make([][]string, n)
	for i := range rows {
		rows[i] = make([]string, len(w.header))
		rows[i][fHandle] = p.Handle
	}
	first := rows[0]
	first[fTitle] = p.Name
	first[fBody] = p.Description
	first[fVendor] = p.Vendor
	if w.categoryPath != nil {
		first[fCategory] = w.categoryPath(p)
	}
	first[fType] = p.ProductType
	first[fTags] = strings.Join(p.Tags, ", ")
	first[fPublished] = boolCell(p.Status == vitrine.ProductActive)
	first[fGiftCard] = "FALSE"
	first[fSEOTitle] = p.SEO.Title
	first[fSEODesc] = p.SEO.Description
	first[fStatus] = string(p.Status)
	for i, k := range w.keys {
		if v, ok := p.Attributes[k]; ok {
			first[int(nFields)-1+i] = vitrine.AttributeString(v)
		}
	}
	if len(p.Options) == 0 {
		first[fOpt1Name] = "Title"
	}
	for i, o := range p.Options {
		first[optName[i]] = o.Name
	}
	for i, v := range p.Variants {
		if v == nil {
			return nil, fmt.Errorf("variants[%d] is nil", i)
		}
		row := rows[i]
		if len(p.Options) == 0 {
			row[fOpt1Value] = "Default Title"
		}
		for j, o := range p.Options {
			val, ok := v.Options[o.Name]
			if !ok || strings.TrimSpace(val) == "" {
				return nil, fmt.Errorf("variants[%d] has no value for the option %q", i, o.Name)
			}
			row[optValue[j]] = val
		}
		row[fSKU] = v.SKU
		if v.Weight != nil {
			g, err := toGrams(v.Weight)
			if err != nil {
				return nil, fmt.Errorf("variants[%d]: %w", i, err)
			}
			row[fGrams] = g
			row[fWeightUnit] = string(v.Weight.Unit)
		}
		if !v.Untracked {
			row[fTracker] = "shopify"
		}
		row[fQty] = strconv.FormatInt(v.Stock, 10)
		policy := v.Policy
		if policy == "" {
			policy = vitrine.PolicyDeny
		}
		row[fPolicy] = string(policy)
		row[fFulfillment] = "manual"
		row[fPrice] = vitrine.FormatPrice(v.Price, scale)
		if v.CompareAtPrice != nil {
			row[fCompare] = vitrine.FormatPrice(*v.CompareAtPrice, scale)
		}
		row[fShipping] = boolCell(v.RequiresShipping)
		row[fTaxable] = boolCell(v.Taxable)
		row[fBarcode] = v.Barcode
		row[fVariantImage] = v.Image
	}
	for i, m := range p.Media {
		rows[i][fImageSrc] = m.URL
		rows[i][fImagePos] = strconv.Itoa(i + 1)
		rows[i][fImageAlt] = m.Alt
	}
	return rows, nil
}

// formulaStart holds the characters that make a spreadsheet read a cell as
// a formula (OWASP, CSV injection).
const formulaStart = "=+-@\t\r"

// escapeFormula puts a ' before a cell that a spreadsheet would run as a
// formula, past any 's it starts with (as Vitrine's own CSV export does).
func escapeFormula(s string) string {
	if t := strings.TrimLeft(s, "'"); t != "" && strings.IndexByte(formulaStart, t[0]) >= 0 {
		return "'" + s
	}
	return s
}
