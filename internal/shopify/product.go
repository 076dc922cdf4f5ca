package shopify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
)

// productCells are the product's cells, read from its first row only.
var productCells = []field{fTitle, fBody, fVendor, fCategory, fType, fTags, fPublished, fStatus, fGiftCard, fSEOTitle, fSEODesc, fOpt1Name, fOpt2Name, fOpt3Name}

// builder gathers the issues of one product.
type builder struct {
	r          *Reader
	handle     string
	issues     []Issue
	mediaLines []int // the line of each of the product's Media, as read
}

func (b *builder) refuse(line int, f field, format string, args ...any) {
	b.issues = append(b.issues, Issue{Line: line, Column: b.r.name(f), Handle: b.handle, Refused: true, Message: fmt.Sprintf(format, args...), Kind: b.r.name(f) + "\x00" + format})
}

func (b *builder) note(line int, f field, format string, args ...any) {
	b.issues = append(b.issues, Issue{Line: line, Column: b.r.name(f), Handle: b.handle, Message: fmt.Sprintf(format, args...), Kind: b.r.name(f) + "\x00" + format})
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

// build reads a product of its rows: the product's fields from the first,
// a variant from the first and from each that has option values or variant
// cells, an image from any (Next says how).
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
	p.Attributes = r.attributes(first)
	opts := r.options(b, first)

	combos := map[string]int{} // option values → the line of their variant
	for n, rw := range rows {
		if n > 0 {
			for _, f := range productCells {
				if s := r.cell(rw, f); s != "" && s != r.cell(first, f) {
					b.note(rw.line, f, "ignored: the product's fields are read from its first row (line %d), which has %q", first.line, r.cell(first, f))
				}
			}
			r.noteMetafields(b, first, rw)
		}
		for i := range 3 {
			if v := r.cell(rw, optValue[i]); v != "" && !slices.ContainsFunc(opts, func(o option) bool { return o.i == i }) {
				b.refuse(rw.line, optValue[i], "%s is %q but the product has no Option%d Name (on its first row, line %d)", r.name(optValue[i]), v, i+1, first.line)
			}
		}
		if n == 0 || slices.ContainsFunc(variantCells, func(f field) bool { return r.cell(rw, f) != "" }) {
			v := r.variant(b, rw)
			v.Position = len(p.Variants) + 1
			r.variantOptions(b, rw, v, opts, combos)
			// A blank tracker: Shopify does not track the variant's
			// stock; its quantity and policy are kept as given.
			v.Untracked = r.col[fTracker] >= 0 && r.cell(rw, fTracker) == ""
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

	finishOptions(p, opts)
	r.finishMedia(b, p)
	slices.SortStableFunc(b.issues, func(x, y Issue) int { return x.Line - y.Line })
	if b.refused() {
		return nil, b.issues, nil
	}
	return rec, b.issues, nil
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
