package shopwindow

import (
	"context"
	"slices"

	"github.com/vitrine/vitrine"
)

// notFound is get_product's answer for an identifier that names nothing
// the window shows: UCP's application outcome, not a transport error.
func notFound(id string) *productResponse {
	return &productResponse{UCP: envelopeFor(CapLookup, "error"), Messages: []message{{Type: "error", Code: "not_found",
		Content: "Product not found: " + id, Severity: "unrecoverable"}}}
}

// getProduct answers get_product: the product with its options' signals
// relative to the effective selections, the featured variant first, then
// the others that match the selections.
func (c *catalog) getProduct(ctx context.Context, win *Window, req *productRequest) (*productResponse, error) {
	if err := checkID("id", req.ID); err != nil {
		return nil, err
	}
	if len(req.Selected) > maxSelected || len(req.Preferences) > maxFilterValues {
		return nil, invalid("selected names at most %d options, preferences at most %d", maxSelected, maxFilterValues)
	}
	seen := map[string]bool{}
	for i, s := range req.Selected {
		if s.Name == "" || seen[vitrine.OptionKey(s.Name)] {
			return nil, invalid("selected[%d]: each option is named once, with its name and label", i)
		}
		seen[vitrine.OptionKey(s.Name)] = true
	}
	fl, err := c.readFilters(ctx, win, req.Filters, req.Context)
	if err != nil {
		return nil, err
	}
	p, variantID, err := win.reader.Product(ctx, req.ID)
	if err != nil {
		return nil, err
	}
	if p == nil || !fl.keepsProduct(p) {
		return notFound(req.ID), nil
	}
	var candidates []*vitrine.Variant
	for _, v := range p.Variants {
		if fl.keepsVariant(v) {
			candidates = append(candidates, v)
		}
	}
	if len(candidates) == 0 {
		return notFound(req.ID), nil
	}
	// The effective selections: a variant's own options when a variant is
	// named; else those asked, relaxed from the end of the preferences
	// until a variant matches; else the featured variant's.
	var sel []selectedOption
	var feat *vitrine.Variant
	if variantID != "" {
		if i := slices.IndexFunc(candidates, func(v *vitrine.Variant) bool { return v.ID == variantID }); i >= 0 {
			feat = candidates[i]
			sel = optionsOf(p, feat)
		} else {
			return notFound(req.ID), nil
		}
	} else if len(req.Selected) > 0 {
		sel = relax(p, candidates, req.Selected, req.Preferences)
	}
	if variantID == "" && len(sel) == 0 {
		// Nothing asked, or every selection relaxed: the featured
		// variant's options are the selection, which UCP asks to be
		// present whenever the product has options.
		fid := featured(p, fl)
		feat = candidates[slices.IndexFunc(candidates, func(v *vitrine.Variant) bool { return v.ID == fid })]
		sel = optionsOf(p, feat)
	}
	matching := slices.DeleteFunc(slices.Clone(candidates), func(v *vitrine.Variant) bool { return !matches(v, sel, "") })
	if feat == nil {
		feat = matching[0]
		if i := slices.IndexFunc(matching, func(v *vitrine.Variant) bool { return availabilityOf(v).Available }); i >= 0 {
			feat = matching[i]
		}
	}
	v, err := c.newView(ctx, win, []*vitrine.Product{p})
	if err != nil {
		return nil, err
	}
	pp := v.productOf(p)
	byID := map[string]*variant{}
	for _, pv := range pp.Variants {
		byID[pv.ID] = pv
	}
	pp.Variants = []*variant{byID[feat.ID]}
	for _, m := range matching {
		if m.ID != feat.ID {
			pp.Variants = append(pp.Variants, byID[m.ID])
		}
	}
	// Each option value's signals, relative to the other selections.
	for oi, o := range pp.Options {
		for vi, val := range o.Values {
			exists, available := false, false
			for _, cv := range candidates {
				if matches(cv, sel, o.Name) && vitrine.OptionKey(cv.Options[o.Name]) == vitrine.OptionKey(val.Label) {
					exists = true
					available = available || availabilityOf(cv).Available
				}
			}
			pp.Options[oi].Values[vi].Exists, pp.Options[oi].Values[vi].Available = &exists, &available
		}
	}
	pp.Selected = sel // nil only for a product without options
	return &productResponse{UCP: envelopeFor(CapLookup, ""), Product: pp, Messages: fl.notes}, nil
}

// optionsOf is a variant's options as selections, in the product's order.
func optionsOf(p *vitrine.Product, v *vitrine.Variant) []selectedOption {
	var out []selectedOption
	for _, o := range p.Options {
		if val, ok := v.Options[o.Name]; ok {
			out = append(out, selectedOption{Name: o.Name, Label: val})
		}
	}
	return out
}

// matches reports whether a variant holds every selection but the one of
// option except.
func matches(v *vitrine.Variant, sel []selectedOption, except string) bool {
	for _, s := range sel {
		if vitrine.OptionKey(s.Name) == vitrine.OptionKey(except) {
			continue
		}
		found := false
		for name, val := range v.Options {
			if vitrine.OptionKey(name) == vitrine.OptionKey(s.Name) && vitrine.OptionKey(val) == vitrine.OptionKey(s.Label) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// relax drops selections until a variant matches the rest: first those
// the preferences do not name, then the preferences from their end. The
// selections kept are written with the product's own names and labels.
func relax(p *vitrine.Product, vs []*vitrine.Variant, selected []selectedOption, prefs []string) []selectedOption {
	rank := func(s selectedOption) int {
		if i := slices.IndexFunc(prefs, func(n string) bool { return vitrine.OptionKey(n) == vitrine.OptionKey(s.Name) }); i >= 0 {
			return i
		}
		return len(prefs)
	}
	sel := slices.Clone(selected)
	slices.SortStableFunc(sel, func(a, b selectedOption) int { return rank(a) - rank(b) })
	for ; len(sel) > 0; sel = sel[:len(sel)-1] {
		if slices.ContainsFunc(vs, func(v *vitrine.Variant) bool { return matches(v, sel, "") }) {
			break
		}
	}
	// In the product's order and spelling.
	var out []selectedOption
	for _, o := range p.Options {
		for _, s := range sel {
			if vitrine.OptionKey(s.Name) != vitrine.OptionKey(o.Name) {
				continue
			}
			label := s.Label
			for _, val := range o.Values {
				if vitrine.OptionKey(val) == vitrine.OptionKey(s.Label) {
					label = val
				}
			}
			out = append(out, selectedOption{Name: o.Name, Label: label})
		}
	}
	return out
}
