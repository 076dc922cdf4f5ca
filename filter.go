package vitrine

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxQueryLength bounds a text query, in characters.
const MaxQueryLength = 200

// MaxFilterTags bounds the tags a query names.
const MaxFilterTags = 20

// MaxFilterCategories bounds the categories one query names in
// CategoryIDs (each a query of the categories under it).
const MaxFilterCategories = 20

// ProductFilter is a ProductQuery in its one form, as the store reads it:
// the query checked, its texts trimmed, its tags as keys, its sort chosen,
// and what is derived from it (the query's words and SKU key, the prices
// in minor units, the time read), with the page to read.
//
// Its fields are unexported, and the compiler holds what that means: a
// filter is made only by NewProductFilter, from a query it checks, so no
// adapter can set a derived field (words that are not the query's, a price
// bound that is not the query's price). service/catalog is the one package
// that makes filters, and the store the one that reads them; adapters send
// a ProductQuery to service/catalog.
type ProductFilter struct {
	q     ProductQuery
	words []string
	// written are the words as the query wrote them, folded, one for
	// each of words (its stem).
	written []string
	// x expands words into clauses (the company's synonyms); nil: each
	// word its own clause.
	x        Expander
	clauses  []Clause
	sku      string
	min, max *int64
	since    *time.Time
	limit    int
	after    *ProductKey
}

// Query is the filter's query in its one form. Its maps and slices are
// the filter's own: read them, never write them.
func (f ProductFilter) Query() ProductQuery { return f.q }

// Words are the terms of the query (QueryWords: its words less stop
// words, stemmed): a product matches when what search covers of it holds
// a word starting with each.
func (f ProductFilter) Words() []string { return f.words }

// WithWordsOf returns f searching only those of its words that keep says
// (the store's reading of a phrase no product matches whole): never a
// word that is not the query's. Its clauses are those of the words kept.
func (f ProductFilter) WithWordsOf(keep func(i int, w string) bool) ProductFilter {
	var words, written []string
	for i, w := range f.words {
		if keep(i, w) {
			words, written = append(words, w), append(written, f.written[i])
		}
	}
	f.words, f.written = words, written
	return f.WithExpansion(f.x)
}

// A Clause is one part of a text query that a product must match: the
// product holds a word starting with each of Terms (the query's own terms,
// stemmed: one, or the words of a synonym of several), or with each of
// the terms of one of Alternatives. A query matches the products that
// match every one of its clauses.
type Clause struct {
	Terms        []string
	Alternatives []Alternative
}

// Ways returns the terms of each way the clause matches: its own, then
// each alternative's.
func (c Clause) Ways() [][]string {
	out := make([][]string, 0, 1+len(c.Alternatives))
	out = append(out, c.Terms)
	for _, a := range c.Alternatives {
		out = append(out, a.Terms)
	}
	return out
}

// An Alternative is what a clause's terms may be matched by instead: the
// terms of a synonym (analyzed as the query is), each of which the product
// must hold a word starting with.
type Alternative struct {
	Terms []string
	Kind  MatchKind
}

// MatchKind says why an alternative stands for a query's terms.
type MatchKind int

// The kinds of alternatives.
const (
	// MatchSynonym: a synonym the company taught (save_synonyms).
	MatchSynonym MatchKind = iota + 1
)

// An Expander turns a query's terms (its Words, in order) into the
// clauses a product must match: every term in exactly one clause, in
// their order.
type Expander interface {
	Expand(terms []string) []Clause
}

// Clauses are the query's terms as a search matches them: each word its
// own clause, but for those the filter's expander (WithExpansion) gave
// alternatives. None without words.
func (f ProductFilter) Clauses() []Clause {
	if f.clauses != nil || len(f.words) == 0 {
		return f.clauses
	}
	return PlainClauses(f.words)
}

// PlainClauses returns a clause of each term, without alternatives.
func PlainClauses(terms []string) []Clause {
	out := make([]Clause, len(terms))
	for i, w := range terms {
		out[i] = Clause{Terms: []string{w}}
	}
	return out
}

// Expanded says that some clause of f has alternatives.
func (f ProductFilter) Expanded() bool {
	for _, c := range f.clauses {
		if len(c.Alternatives) > 0 {
			return true
		}
	}
	return false
}

// WithExpansion returns f with its words' clauses as x expands them (the
// company's synonyms); nil: each word its own clause.
func (f ProductFilter) WithExpansion(x Expander) ProductFilter {
	f.x, f.clauses = x, nil
	if x != nil && len(f.words) > 0 {
		f.clauses = x.Expand(f.words)
	}
	return f
}

// SKU is the query as a SKU key: the product with that SKU ranks first in
// a relevance search.
func (f ProductFilter) SKU() string { return f.sku }

// MinMinor and MaxMinor are the query's MinPrice and MaxPrice in minor
// units of its Currency; nil when not given.
func (f ProductFilter) MinMinor() *int64 { return f.min }

// MaxMinor: see MinMinor.
func (f ProductFilter) MaxMinor() *int64 { return f.max }

// Since is the query's UpdatedSince, read; nil when not given.
func (f ProductFilter) Since() *time.Time { return f.since }

// Limit is the number of products the store reads; 0 reads none.
func (f ProductFilter) Limit() int { return f.limit }

// After is the position the page starts after; nil for the first page.
func (f ProductFilter) After() *ProductKey { return f.after }

// Page returns f reading limit products after the position after (nil
// for the first page).
func (f ProductFilter) Page(limit int, after *ProductKey) ProductFilter {
	f.limit, f.after = limit, after
	return f
}

// WithoutFacets returns f counting no facets.
func (f ProductFilter) WithoutFacets() ProductFilter {
	f.q.Facets = nil
	return f
}

// QueryWords checks a text query's length and words, and returns its
// terms as the language of locale reads them (Analyzer.QueryTerms; ""
// reads DefaultLocale's): none for a text without a letter or a digit; a
// ValidationError for one of stop words alone. A query is read in the
// locale it is asked in, else in its company's default locale
// (Tenant.DefaultLanguage).
func QueryWords(query, locale string) ([]string, error) {
	words, _, err := queryWords(query, locale)
	return words, err
}

// queryWords returns QueryWords' terms and, for each, the word as
// written (folded).
func queryWords(query, locale string) (words, written []string, err error) {
	if n := utf8.RuneCountInString(query); n > MaxQueryLength {
		return nil, nil, Invalid("query", "query is %d characters long; the limit is %d", n, MaxQueryLength)
	}
	words, written, stopOnly := AnalyzerFor(cmp.Or(locale, DefaultLocale)).TermsWritten(query)
	if stopOnly {
		return nil, nil, Invalid("query", "query holds only stop words (such as %q), which every product would match; add a word of the products sought", Words(query)[0])
	}
	if len(words) > MaxSearchWords {
		return nil, nil, Invalid("query", "query holds %d different words; the limit is %d", len(words), MaxSearchWords)
	}
	return words, written, nil
}

// NewProductFilter checks the query's fields that need no storage, in the
// order list_products lists them, and returns the query in its one form:
// the query's words, the tags' keys, the texts trimmed, the prices in
// minor units, the time read, the sort chosen; its page is empty (Page).
// It writes new slices and maps, never the caller's. A filter's query in
// its one form makes the same filter again.
//
// What needs the company's data (its currency, the option values it
// holds, its attribute definitions, the facets' names) service/catalog
// settles on the filter's query, then makes the filter again from it.
func NewProductFilter(q ProductQuery) (ProductFilter, error) {
	f := ProductFilter{q: q}
	query := string(q.Query)
	var err error
	sort := SortName
	if f.words, f.written, err = queryWords(query, string(q.Locale)); err != nil {
		return f, err
	} else if len(f.words) > 0 {
		sort = SortRelevance
		f.sku = SKUKey(strings.TrimSpace(query))
	} else if strings.TrimSpace(query) != "" {
		return f, Invalid("query", "query must hold at least one letter or digit")
	}
	if q.Status != "" {
		if _, err := ParseProductStatus("status", string(q.Status)); err != nil {
			return f, err
		}
	}
	if q.MinPrice != "" || q.MaxPrice != "" {
		code, scale, err := NormalizeCurrency("currency", cmp.Or(string(q.Currency), DefaultCurrency))
		if err != nil {
			return f, err
		}
		f.q.Currency = CurrencyCode(code)
		for _, b := range []struct {
			field string
			value Decimal
			dst   **int64
		}{{"min_price", q.MinPrice, &f.min}, {"max_price", q.MaxPrice, &f.max}} {
			if b.value == "" {
				continue
			}
			v, err := ParsePrice(b.field, string(b.value), scale)
			if err != nil {
				return f, err
			}
			*b.dst = &v
		}
		if f.min != nil && f.max != nil && *f.min > *f.max {
			return f, Invalid("max_price", "max_price must not be below min_price")
		}
	} else if q.Currency != "" {
		return f, Invalid("currency", "currency applies to min_price and max_price; give one of them too")
	}
	if q.UpdatedSince != "" {
		t, err := time.Parse(time.RFC3339, q.UpdatedSince)
		if err != nil {
			return f, Invalid("updated_since", "updated_since must be a time in RFC 3339, such as \"2026-11-30T09:00:00Z\"; got %q", q.UpdatedSince)
		}
		t = Timestamp(t)
		f.since = &t
	}
	var tags []QueryText
	for i, t := range q.Tags {
		t, err := ValidateText(fmt.Sprintf("tags[%d]", i), string(t), MaxTagLength)
		if err != nil {
			return f, err
		}
		if t != "" {
			tags = append(tags, QueryText(TagKey(t)))
		}
	}
	if len(tags) > MaxFilterTags {
		return f, Invalid("tags", "a filter names at most %d tags; got %d", MaxFilterTags, len(tags))
	}
	f.q.Tags = tags
	for _, t := range []struct {
		field string
		dst   *QueryText
	}{{"vendor", &f.q.Vendor}, {"product_type", &f.q.ProductType}} {
		v, err := ValidateText(t.field, string(*t.dst), MaxVendorLength)
		if err != nil {
			return f, err
		}
		*t.dst = QueryText(v)
	}
	if q.CategoryID != "" && !ValidID(q.CategoryID) {
		return f, Invalid("category_id", "category_id must be a category's id (list_categories lists them); got %q", q.CategoryID)
	}
	if len(q.CategoryIDs) > MaxFilterCategories {
		return f, Invalid("categories", "a filter names at most %d categories; got %d", MaxFilterCategories, len(q.CategoryIDs))
	}
	for _, id := range q.CategoryIDs {
		if !ValidID(id) {
			return f, Invalid("categories", "categories must be categories' ids; got %q", id)
		}
	}
	if len(q.Options) > MaxOptions {
		return f, Invalid("options", "a product has at most %d options; the filter names %d", MaxOptions, len(q.Options))
	}
	var options map[string]string
	for _, name := range slices.Sorted(maps.Keys(q.Options)) {
		v, err := ValidateText("options."+name, q.Options[name], MaxOptionLength)
		if err != nil {
			return f, err
		}
		if options == nil {
			options = map[string]string{}
		}
		options[name] = v
	}
	f.q.Options = options
	if q.Sort != "" {
		if !slices.Contains(ProductSorts, q.Sort) {
			return f, Invalid("sort", "sort must be one of %s; got %q", Quoted(ProductSorts), q.Sort)
		}
		if q.Sort == SortRelevance && len(f.words) == 0 {
			return f, Invalid("sort", "sort \"relevance\" needs a query")
		}
		sort = q.Sort
	}
	f.q.Sort = sort
	if q.Among != nil {
		among := &MarketInclude{}
		for _, id := range q.Among.CategoryIDs {
			if !ValidID(id) {
				return f, Invalid("categories", "a market's categories must be categories' ids; got %q", id)
			}
			among.CategoryIDs = append(among.CategoryIDs, id)
		}
		for _, t := range q.Among.Tags {
			among.Tags = append(among.Tags, TagKey(t))
		}
		f.q.Among = among
	}
	if r := q.MarketPrices; r != nil {
		if !ValidID(r.MarketID) {
			return f, Invalid("market", "a market's price range names the market by its id; got %q", r.MarketID)
		}
		if q.MinPrice != "" || q.MaxPrice != "" {
			return f, Invalid("min_price", "a market's price range replaces min_price and max_price")
		}
		if r.Min != nil && r.Max != nil && *r.Min > *r.Max {
			return f, Invalid("max_price", "max_price must not be below min_price")
		}
		c := *r
		code, _, err := NormalizeCurrency("currency", cmp.Or(string(r.Currency), DefaultCurrency))
		if err != nil {
			return f, err
		}
		c.Currency = CurrencyCode(code)
		f.q.MarketPrices = &c
	}
	return f, nil
}

// Canonical is the one byte form of a filter in its one form: what a
// cursor is signed over, so that a cursor serves the very filter it came
// from and no other. It holds what keeps and orders the products (the
// derived fields, not the text they were read from), neither the facets
// nor the page: a line a field, in a fixed order, its name then its
// values, each quoted (strconv.Quote), maps by key.
func (f ProductFilter) Canonical() []byte {
	q := f.q
	b := []byte("vitrine product filter 1\n")
	line := func(name string, values ...string) {
		b = append(b, name...)
		for _, v := range values {
			b = append(b, ' ')
			b = strconv.AppendQuote(b, v)
		}
		b = append(b, '\n')
	}
	optional := func(v any) []string {
		switch x := v.(type) {
		case *bool:
			if x != nil {
				return []string{strconv.FormatBool(*x)}
			}
		case *int64:
			if x != nil {
				return []string{strconv.FormatInt(*x, 10)}
			}
		case *time.Time:
			if x != nil {
				return []string{x.UTC().Format(time.RFC3339Nano)}
			}
		}
		return nil
	}
	pairs := func(m map[string]string) []string {
		var out []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out = append(out, k, m[k])
		}
		return out
	}
	tags := make([]string, len(q.Tags))
	for i, t := range q.Tags {
		tags[i] = string(t)
	}
	attributes := make(map[string]string, len(q.Attributes))
	for k, v := range q.Attributes {
		attributes[k] = AttributeString(v)
	}
	line("words", f.words...)
	line("sku", f.sku)
	line("status", string(q.Status))
	line("tags", tags...)
	line("vendor", string(q.Vendor))
	line("product_type", string(q.ProductType))
	line("category_id", q.CategoryID)
	line("category_ids", q.CategoryIDs...)
	line("options", pairs(q.Options)...)
	line("attributes", pairs(attributes)...)
	line("on_sale", optional(q.OnSale)...)
	line("in_stock", optional(q.InStock)...)
	line("currency", string(q.Currency))
	line("min_price", optional(f.min)...)
	line("max_price", optional(f.max)...)
	line("updated_since", optional(f.since)...)
	line("sort", string(q.Sort))
	if q.Among != nil {
		// Only a market's filter has these lines: every other filter's
		// form, and its cursors, stay as they were.
		line("among_categories", q.Among.CategoryIDs...)
		line("among_tags", q.Among.Tags...)
	}
	if r := q.MarketPrices; r != nil {
		// Only a market's price filter has this line, as above.
		line("market_prices", r.MarketID, bound(r.Min), bound(r.Max), string(r.Currency), bound(r.CatalogMin), bound(r.CatalogMax))
	}
	return b
}

// bound is a bound of a range as Canonical writes it: "" for none.
func bound(b *int64) string {
	if b == nil {
		return ""
	}
	return strconv.FormatInt(*b, 10)
}

// ShownVariant is the variant a list row of p shows under f, its price and
// compare-at price the row's: the cheapest variant that f's terms on one
// variant keep (the option values, the price range, the stock, the sale),
// else the cheapest of all (a product kept by a price range that no one
// variant falls in). nil for a product without variants. Under a market's
// price range (MarketPrices), p is read at its prices in the market (the
// store's rows are the catalog's: the window picks their variants again
// once it has priced them).
func (f ProductFilter) ShownVariant(p *Product) *Variant {
	q := f.q
	min, max := f.min, f.max
	if r := q.MarketPrices; r != nil {
		min, max = r.Min, r.Max
	}
	keep := func(v *Variant) bool {
		for name, want := range q.Options {
			held := false
			for n, val := range v.Options {
				if OptionKey(n) == OptionKey(name) && val == want {
					held = true
					break
				}
			}
			if !held {
				return false
			}
		}
		if min != nil && v.Price < *min || max != nil && v.Price > *max {
			return false
		}
		if q.InStock != nil && (v.Stock > 0) != *q.InStock {
			return false
		}
		onSale := v.CompareAtPrice != nil && *v.CompareAtPrice > v.Price
		return q.OnSale == nil || onSale == *q.OnSale
	}
	if v := p.CheapestVariant(keep); v != nil {
		return v
	}
	return p.CheapestVariant(nil)
}
