package catalog

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// ProductPage is a page of products and the cursor of the next one, empty
// at the end.
type ProductPage struct {
	Products []*vitrine.Product
	// Shown[i] is the variant a list row of Products[i] shows
	// (vitrine.FoundProducts.Shown).
	Shown      []*vitrine.Variant
	NextCursor string
	// Facets holds the counts asked for, or nil.
	Facets *vitrine.Facets
}

// ListProducts returns a page of limit of the tenant's products (0 for
// the default) that q keeps, in its order, after cursor's position. q is
// checked and put in its one form here (vitrine.NewProductFilter), in the
// order the tool lists its arguments, then its option values, its
// attributes against the company's definitions and its facets; the cursor
// is signed over that form (Canonical).
func (s *Catalog) ListProducts(ctx context.Context, a *service.Access, q vitrine.ProductQuery, limit int, cursor string) (*ProductPage, error) {
	if err := a.Allow(service.OpListProducts); err != nil {
		return nil, err
	}
	priced := q.MinPrice != "" || q.MaxPrice != ""
	if priced && q.Currency == "" {
		// Prices are the company's currency's unless the query says.
		c, err := s.currencyOf(ctx, a)
		if err != nil {
			return nil, err
		}
		q.Currency = vitrine.CurrencyCode(c)
	}
	f, err := s.filter(ctx, a.TenantID, q, limit)
	if err != nil {
		return nil, err
	}
	// The cursor belongs to this tenant and this filter.
	pg, err := service.OpenPage[vitrine.ProductKey](ctx, s.svc, a.TenantID+"\x00"+string(f.Canonical()), limit, cursor)
	if err != nil {
		return nil, err
	}
	found, err := s.store.FindProducts(ctx, a.TenantID, f.Page(pg.Fetch(), pg.After))
	if err != nil {
		return nil, err
	}
	if priced && len(found.Products) == 0 && cursor == "" {
		if err := s.otherCurrencies(ctx, a, f); err != nil {
			return nil, err
		}
	}
	page := &ProductPage{Facets: found.Facets}
	page.Products, page.NextCursor = service.ClosePage(pg, found.Products, func(i int) vitrine.ProductKey { return found.Keys[i] })
	page.Shown = found.Shown[:len(page.Products)]
	if l := f.Query().Locale; l != "" {
		if err := s.pageInLocale(ctx, a.TenantID, string(l), page); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// filter puts q in its one form: the checks that need no storage
// (vitrine.NewProductFilter) and the page's size, then the option values
// as the company's products hold them, the attributes checked against
// its definitions, the facets in their order; the filter is made again
// from the query so settled. It is the one place a filter is made.
func (s *Catalog) filter(ctx context.Context, tenantID string, q vitrine.ProductQuery, limit int) (vitrine.ProductFilter, error) {
	if q.Locale != "" || q.Untranslated != "" || hasText(q.Query) {
		if err := s.settleLocales(ctx, tenantID, &q); err != nil {
			return vitrine.ProductFilter{}, err
		}
	}
	f, err := vitrine.NewProductFilter(q)
	if err != nil {
		return f, err
	}
	if _, err := service.PageSize(limit); err != nil {
		return f, err
	}
	q = f.Query()
	if len(q.Options) > 0 {
		if q.Options, err = s.foldOptions(ctx, tenantID, q.Options); err != nil {
			return f, err
		}
	}
	if len(q.Attributes) > 0 {
		if q.Attributes, err = s.attributeFilter(ctx, tenantID, q.Attributes); err != nil {
			return f, err
		}
	}
	if q.Facets, err = facetNames(q.Facets); err != nil {
		return f, err
	}
	return vitrine.NewProductFilter(q)
}

// hasText reports whether a query holds more than spaces: words to read in
// a language, or a text NewProductFilter refuses.
func hasText(q vitrine.QueryText) bool { return strings.TrimSpace(string(q)) != "" }

// attributeFilter checks the attribute values of a filter against the
// company's definitions, and returns them in their canonical text.
func (s *Catalog) attributeFilter(ctx context.Context, tenantID string, values map[string]any) (map[string]any, error) {
	defs, err := s.attributeDefs(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(values))
	for _, k := range slices.Sorted(maps.Keys(values)) {
		def := defs[k]
		if def == nil {
			return nil, vitrine.Invalid("attributes."+k, "no attribute %q is defined in this company (list_attributes lists them)", k)
		}
		v, err := def.Check("attributes."+k, values[k])
		if err != nil {
			return nil, err
		}
		out[k] = vitrine.AttributeString(v)
	}
	return out, nil
}

// facetNames checks the facets asked for and puts them in their order,
// each once.
func facetNames(names []vitrine.FacetName) ([]vitrine.FacetName, error) {
	var out []vitrine.FacetName
	for i, n := range names {
		if !slices.Contains(vitrine.FacetNames, n) {
			return nil, vitrine.Invalid(fmt.Sprintf("facets[%d]", i), "facets may name %s; got %q", vitrine.Quoted(vitrine.FacetNames), n)
		}
	}
	for _, n := range vitrine.FacetNames {
		if slices.Contains(names, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// otherCurrencies answers a price filter that kept nothing: when no product
// the rest of the filter keeps is priced in its currency, but some are in
// others, a ValidationError says which, rather than an empty page that
// reads as "none in that range".
func (s *Catalog) otherCurrencies(ctx context.Context, a *service.Access, f vitrine.ProductFilter) error {
	find := func(q vitrine.ProductQuery) ([]*vitrine.Product, error) {
		g, err := vitrine.NewProductFilter(q)
		if err != nil {
			return nil, err
		}
		found, err := s.store.FindProducts(ctx, a.TenantID, g.Page(20, nil))
		if err != nil {
			return nil, err
		}
		return found.Products, nil
	}
	rest := f.Query()
	rest.MinPrice, rest.MaxPrice, rest.Facets = "", "", nil
	same := rest
	same.MinPrice = "0" // priced in the filter's currency, at any price
	rest.Currency = ""
	if ps, err := find(same); err != nil || len(ps) > 0 {
		return err
	}
	ps, err := find(rest)
	if err != nil || len(ps) == 0 {
		return err
	}
	var others []string
	for _, p := range ps {
		if !slices.Contains(others, p.Currency) {
			others = append(others, p.Currency)
		}
	}
	slices.Sort(others)
	return vitrine.Invalid("currency", "no product here is priced in %s, the currency of min_price and max_price; they are priced in %s: give currency %q",
		f.Query().Currency, strings.Join(others, ", "), others[0])
}

// foldOptions matches the filter's option values in any case, as vendor
// and tags are: a value the company's products do not hold as written
// becomes the one they hold that folds alike (the most frequent, if
// several), read from the company's option facet. It returns a new map.
func (s *Catalog) foldOptions(ctx context.Context, tenantID string, in map[string]string) (map[string]string, error) {
	all, err := vitrine.NewProductFilter(vitrine.ProductQuery{Facets: []vitrine.FacetName{vitrine.FacetOptions}})
	if err != nil {
		return nil, err
	}
	found, err := s.store.FindProducts(ctx, tenantID, all.Page(1, nil))
	if err != nil || found.Facets == nil {
		return in, err
	}
	options := maps.Clone(in)
	for name, val := range in {
		for held, values := range found.Facets.Options {
			if vitrine.OptionKey(held) != vitrine.OptionKey(name) {
				continue
			}
			best := int64(-1)
			for _, v := range values {
				if v.Value == val {
					best = -1
					options[name] = val
					break
				}
				if vitrine.Fold(v.Value) == vitrine.Fold(val) && v.Count > best {
					best, options[name] = v.Count, v.Value
				}
			}
		}
	}
	return options, nil
}
