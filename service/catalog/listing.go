package catalog

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// ProductPage is a page of products and the cursor of the next one, empty
// at the end.
type ProductPage struct {
	Products   []*vitrine.Product
	NextCursor string
	// Facets holds the counts asked for, or nil.
	Facets *vitrine.Facets
}

// maxQueryLength bounds a text query.
const maxQueryLength = 200

// maxFilterTags bounds the tags a filter names.
const maxFilterTags = 20

// ListProducts returns a page of limit of the tenant's products (0 for
// the default) that f keeps, in its order, after cursor's position. f is
// checked and put in its one form here, in the order the tool lists its
// arguments, then its attributes against the company's definitions and
// its facets; the cursor is signed over that form (Canonical).

// maxFilterCategories bounds the categories one filter names (each a
// query of the categories under it).
const maxFilterCategories = 20

func (s *Catalog) ListProducts(ctx context.Context, a *service.Access, f vitrine.ProductFilter, limit int, cursor string) (*ProductPage, error) {
	if err := a.Allow(service.OpListProducts); err != nil {
		return nil, err
	}
	priced := f.MinPrice != "" || f.MaxPrice != ""
	if priced && f.Currency == "" {
		// Prices are the company's currency's unless the filter says.
		c, err := s.currencyOf(ctx, a)
		if err != nil {
			return nil, err
		}
		f.Currency = vitrine.CurrencyCode(c)
	}
	if err := normalize(&f, limit); err != nil {
		return nil, err
	}
	if len(f.Options) > 0 {
		if err := s.foldOptions(ctx, a, &f); err != nil {
			return nil, err
		}
	}
	if len(f.Attributes) > 0 {
		var err error
		if f.Attributes, err = s.attributeFilter(ctx, a, f.Attributes); err != nil {
			return nil, err
		}
	}
	var err error
	if f.Facets, err = facetNames(f.Facets); err != nil {
		return nil, err
	}
	// The cursor belongs to this tenant and this filter.
	pg, err := service.OpenPage[vitrine.ProductKey](ctx, s.svc, a.TenantID+"\x00"+string(f.Canonical()), limit, cursor)
	if err != nil {
		return nil, err
	}
	f.After, f.Limit = pg.After, pg.Fetch()
	found, err := s.store.FindProducts(ctx, a.TenantID, f)
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
	return page, nil
}

// normalize checks the filter's fields that need no storage, in the order
// the tool lists them, and puts them in their one form: the query's words,
// the tags' keys, the texts trimmed, the prices in minor units, the time
// read, the sort chosen. It writes new slices and maps, never the
// caller's.
func normalize(f *vitrine.ProductFilter, limit int) error {
	query := string(f.Query)
	if n := utf8.RuneCountInString(query); n > maxQueryLength {
		return vitrine.Invalid("query", "query is %d characters long; the limit is %d", n, maxQueryLength)
	}
	sort := vitrine.SortName
	if f.Words = vitrine.SearchWords(query); len(f.Words) > vitrine.MaxSearchWords {
		return vitrine.Invalid("query", "query holds %d different words; the limit is %d", len(f.Words), vitrine.MaxSearchWords)
	} else if len(f.Words) > 0 {
		sort = vitrine.SortRelevance
		f.SKU = vitrine.SKUKey(strings.TrimSpace(query))
	} else if strings.TrimSpace(query) != "" {
		return vitrine.Invalid("query", "query must hold at least one letter or digit")
	}
	if f.Status != "" {
		if _, err := vitrine.ParseProductStatus("status", string(f.Status)); err != nil {
			return err
		}
	}
	if f.MinPrice != "" || f.MaxPrice != "" {
		code, scale, err := vitrine.NormalizeCurrency("currency", or(string(f.Currency), vitrine.DefaultCurrency))
		if err != nil {
			return err
		}
		f.Currency = vitrine.CurrencyCode(code)
		for _, b := range []struct {
			field string
			value vitrine.Decimal
			dst   **int64
		}{{"min_price", f.MinPrice, &f.MinMinor}, {"max_price", f.MaxPrice, &f.MaxMinor}} {
			if b.value == "" {
				continue
			}
			v, err := vitrine.ParsePrice(b.field, string(b.value), scale)
			if err != nil {
				return err
			}
			*b.dst = &v
		}
		if f.MinMinor != nil && f.MaxMinor != nil && *f.MinMinor > *f.MaxMinor {
			return vitrine.Invalid("max_price", "max_price must not be below min_price")
		}
	} else if f.Currency != "" {
		return vitrine.Invalid("currency", "currency applies to min_price and max_price; give one of them too")
	}
	if f.UpdatedSince != "" {
		t, err := time.Parse(time.RFC3339, f.UpdatedSince)
		if err != nil {
			return vitrine.Invalid("updated_since", "updated_since must be a time in RFC 3339, such as \"2026-11-30T09:00:00Z\"; got %q", f.UpdatedSince)
		}
		t = vitrine.Timestamp(t)
		f.Since = &t
	}
	var tags []vitrine.QueryText
	for i, t := range f.Tags {
		t, err := vitrine.ValidateText(fmt.Sprintf("tags[%d]", i), string(t), vitrine.MaxTagLength)
		if err != nil {
			return err
		}
		if t != "" {
			tags = append(tags, vitrine.QueryText(vitrine.TagKey(t)))
		}
	}
	if len(tags) > maxFilterTags {
		return vitrine.Invalid("tags", "a filter names at most %d tags; got %d", maxFilterTags, len(tags))
	}
	f.Tags = tags
	for _, t := range []struct {
		field string
		dst   *vitrine.QueryText
	}{{"vendor", &f.Vendor}, {"product_type", &f.ProductType}} {
		v, err := vitrine.ValidateText(t.field, string(*t.dst), vitrine.MaxVendorLength)
		if err != nil {
			return err
		}
		*t.dst = vitrine.QueryText(v)
	}
	if f.CategoryID != "" && !vitrine.ValidID(f.CategoryID) {
		return vitrine.Invalid("category_id", "category_id must be a category's id (list_categories lists them); got %q", f.CategoryID)
	}
	if len(f.CategoryIDs) > maxFilterCategories {
		return vitrine.Invalid("categories", "a filter names at most %d categories; got %d", maxFilterCategories, len(f.CategoryIDs))
	}
	for _, id := range f.CategoryIDs {
		if !vitrine.ValidID(id) {
			return vitrine.Invalid("categories", "categories must be categories' ids; got %q", id)
		}
	}
	if len(f.Options) > vitrine.MaxOptions {
		return vitrine.Invalid("options", "a product has at most %d options; the filter names %d", vitrine.MaxOptions, len(f.Options))
	}
	var options map[string]string
	for _, name := range slices.Sorted(maps.Keys(f.Options)) {
		v, err := vitrine.ValidateText("options."+name, f.Options[name], vitrine.MaxOptionLength)
		if err != nil {
			return err
		}
		if options == nil {
			options = map[string]string{}
		}
		options[name] = v
	}
	f.Options = options
	if f.Sort != "" {
		if !slices.Contains(vitrine.ProductSorts, f.Sort) {
			return vitrine.Invalid("sort", "sort must be one of %s; got %q", vitrine.Quoted(vitrine.ProductSorts), f.Sort)
		}
		if f.Sort == vitrine.SortRelevance && len(f.Words) == 0 {
			return vitrine.Invalid("sort", "sort \"relevance\" needs a query")
		}
		sort = f.Sort
	}
	f.Sort = sort
	_, err := service.PageSize(limit)
	return err
}

// attributeFilter checks the attribute values of a filter against the
// company's definitions, and returns them in their canonical text.
func (s *Catalog) attributeFilter(ctx context.Context, a *service.Access, values map[string]any) (map[string]any, error) {
	defs, err := s.attributeDefs(ctx, a.TenantID)
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
	rest := f
	rest.MinMinor, rest.MaxMinor, rest.MinPrice, rest.MaxPrice = nil, nil, "", ""
	rest.Facets, rest.After, rest.Limit = nil, nil, 20
	zero := int64(0)
	same := rest
	same.MinMinor = &zero // priced in the filter's currency, at any price
	found, err := s.store.FindProducts(ctx, a.TenantID, same)
	if err != nil || len(found.Products) > 0 {
		return err
	}
	if found, err = s.store.FindProducts(ctx, a.TenantID, rest); err != nil || len(found.Products) == 0 {
		return err
	}
	var others []string
	for _, p := range found.Products {
		if !slices.Contains(others, p.Currency) {
			others = append(others, p.Currency)
		}
	}
	slices.Sort(others)
	return vitrine.Invalid("currency", "no product here is priced in %s, the currency of min_price and max_price; they are priced in %s: give currency %q",
		f.Currency, strings.Join(others, ", "), others[0])
}

// foldOptions matches the filter's option values in any case, as vendor
// and tags are: a value the company's products do not hold as written
// becomes the one they hold that folds alike (the most frequent, if
// several), read from the company's option facet.
func (s *Catalog) foldOptions(ctx context.Context, a *service.Access, f *vitrine.ProductFilter) error {
	all := vitrine.ProductFilter{Facets: []vitrine.FacetName{vitrine.FacetOptions}}
	if err := normalize(&all, 1); err != nil {
		return err
	}
	all.Limit = 1
	found, err := s.store.FindProducts(ctx, a.TenantID, all)
	if err != nil || found.Facets == nil {
		return err
	}
	options := maps.Clone(f.Options)
	for name, val := range f.Options {
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
	f.Options = options
	return nil
}
