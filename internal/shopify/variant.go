package shopify

import (
	"slices"
	"strconv"
	"strings"

	"github.com/vitrine/vitrine"
)

var (
	optName  = [3]field{fOpt1Name, fOpt2Name, fOpt3Name}
	optValue = [3]field{fOpt1Value, fOpt2Value, fOpt3Value}
	// The cells that make a following row a variant; without any, the row
	// only adds an image.
	variantCells = []field{fOpt1Value, fOpt2Value, fOpt3Value, fSKU, fGrams, fWeight, fQty, fPrice, fCompare, fBarcode, fVariantImage}
	// The variant cells an image row may have only blank (Shopify leaves
	// them so): any other value there is reported as ignored.
	defaultedCells = []field{fTracker, fPolicy, fFulfillment, fShipping, fTaxable, fWeightUnit}
)

// option is an option named on a product's first row.
type option struct {
	i    int // 0 to 2: Option1 to Option3
	name string
}

// options reads the options named on the product's first row.
func (r *Reader) options(b *builder, first *row) []option {
	var opts []option
	for i := range 3 {
		name := r.cell(first, optName[i])
		if name == "" {
			continue
		}
		if j := slices.IndexFunc(opts, func(o option) bool { return vitrine.OptionKey(o.name) == vitrine.OptionKey(name) }); j >= 0 {
			b.refuse(first.line, optName[i], "the option %q is named twice (Option%d Name and Option%d Name)", name, opts[j].i+1, i+1)
			continue
		}
		opts = append(opts, option{i, name})
	}
	return opts
}

// variantOptions reads the option values of a variant's row into v:
// every option of the product takes one, and no two variants of a product
// take the same ones (combos holds the line of each combination read).
func (r *Reader) variantOptions(b *builder, rw *row, v *vitrine.Variant, opts []option, combos map[string]int) {
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
}

// finishOptions gives the product its options, each with its values in the
// order of its variants.
func finishOptions(p *vitrine.Product, opts []option) {
	for _, o := range opts {
		var vals []string
		seen := map[string]bool{}
		for _, v := range p.Variants {
			if val := v.Options[o.name]; !seen[val] {
				seen[val] = true
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
