package facetindex

import (
	"slices"
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/vitrine/vitrine"
)

// Query is what a faceted list asks of the index: the filter of the page
// (its sort, limit and position are not read) and the facets to count.
type Query struct {
	Filter Terms
	// Categories, when not empty, are the filter's category and those
	// under it, as the store resolves them; else the index reads
	// Filter.CategoryID's in its own tree.
	Categories []string
	Facets     []vitrine.FacetName
	// Found, when not nil, are the ids of the products a text search of
	// the caller found for Filter.Words, which the index then does not
	// look up in its own terms.
	Found []string
}

// Thresholds of the plans, variables for the tests and benchmarks, which
// run every plan.
var (
	// wordPlan forces a plan of matching a query word: 0 chooses, 1
	// checks each candidate's words, 2 takes the union of the terms the
	// word starts.
	wordPlan = 0
	// countPlan forces a plan of counting facets: 0 chooses, 1 walks the
	// candidates, 2 intersects each value's bitmap with them, 3 tests
	// each value's products in a bitset of them, 5 intersects each value
	// by the cheaper of 2 and 3 (what 0 does when it does not walk); 4
	// chooses between 1 and 2 alone (the choice before the bitset, for
	// the benchmarks).
	countPlan = 0
	// variantPlan forces a plan of the options' terms: 0 chooses, 1
	// starts from the candidates' variants, 2 from the rarest value's.
	variantPlan = 0
	// namePlan forces a plan of a relevance page's rank 1: 0 chooses, 1
	// reads each candidate's name words, 2 unites the names' postings.
	namePlan = 0
)

// scratch is what one read needs for itself, pooled.
type scratch struct {
	v    view
	one  []uint32
	bms  []*roaring.Bitmap
	keep []uint32
	anc  []uint32
	top  []uint32
	bits []uint64  // a bitset of the candidates, by ordinal
	per  []float64 // the candidates in each range of 65,536 ordinals
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// Match returns the ids of the products the query's filter keeps, in
// order: what the facets count, for the tests and whoever needs the set.
func (ix *Index) Match(q Query) []string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	s := scratches.Get().(*scratch)
	defer scratches.Put(s)
	cand := ix.candidates(&q, s)
	out := make([]string, 0, cand.GetCardinality())
	for o := range cand.Iterate {
		out = append(out, uuidString(ix.ids[o]))
	}
	slices.Sort(out)
	return out
}

// Count returns the number of products the query's filter keeps.
func (ix *Index) Count(q Query) int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	s := scratches.Get().(*scratch)
	defer scratches.Put(s)
	return int(ix.candidates(&q, s).GetCardinality())
}

// candidates returns the products the filter keeps, as a bitmap of the
// caller's own: first the terms that are values' bitmaps, intersected
// from the smallest; then the terms on columns (time, price) and the
// words, on what is left; last the options' terms that one variant must
// meet together, checked on each product left.
func (ix *Index) candidates(q *Query, s *scratch) *roaring.Bitmap {
	f := &q.Filter
	var and, not []*roaring.Bitmap
	none := false
	need := func(d *dict, key string) {
		k, ok := d.key(key)
		if !ok || d.post.word(k) == 0 {
			none = true
			return
		}
		and = append(and, d.post.bitmap(k))
	}
	if f.Status != "" {
		need(&ix.status, string(f.Status))
	}
	if f.Vendor != "" {
		need(&ix.vendor, vitrine.Fold(string(f.Vendor)))
	}
	if f.ProductType != "" {
		need(&ix.ptype, vitrine.Fold(string(f.ProductType)))
	}
	for _, t := range f.Tags {
		need(&ix.tags, vitrine.TagKey(string(t)))
	}
	if len(q.Categories) > 0 || f.CategoryID != "" {
		if u := ix.inCategories(f, q.Categories, s); u.IsEmpty() {
			none = true
		} else {
			and = append(and, u)
		}
	}
	for k, v := range f.Attributes {
		need(&ix.attrs, k+"\x00"+vitrine.AttributeString(v))
	}
	priced := f.MinMinor != nil || f.MaxMinor != nil
	if priced {
		need(&ix.currency, string(f.Currency))
	}
	flag := func(bm *roaring.Bitmap, want *bool) {
		if *want {
			and = append(and, bm)
		} else {
			not = append(not, bm)
		}
	}
	if f.OnSale != nil {
		flag(ix.onSale, f.OnSale)
	}
	if f.Untranslated != "" {
		// Untranslated: not among the products translated whole there.
		if k, ok := ix.translated.key(f.Untranslated); ok {
			not = append(not, ix.translated.post.bitmap(k))
		}
	}
	if f.InStock != nil && (len(f.Options) == 0 || *f.InStock) {
		// With options, a variant in stock is in a product in stock (stock
		// is never below 0): the variants are then checked on those.
		flag(ix.inStock, f.InStock)
	}
	opts := ix.optionTerms(f)
	for _, t := range opts {
		if !t.ok {
			none = true
		} else {
			and = append(and, ix.optVals.post.bitmap(t.e))
		}
	}
	if none {
		return roaring.New()
	}
	var cand *roaring.Bitmap
	if len(and) == 0 {
		cand = ix.live.Clone()
	} else {
		slices.SortFunc(and, func(a, b *roaring.Bitmap) int { return int(a.GetCardinality()) - int(b.GetCardinality()) })
		cand = and[0].Clone()
		for _, bm := range and[1:] {
			if cand.IsEmpty() {
				break
			}
			cand.And(bm)
		}
	}
	for _, bm := range not {
		cand.AndNot(bm)
	}
	// The columns: with options, the price is the variants' (below).
	if byPrice := priced && len(f.Options) == 0; f.Since != nil || byPrice {
		since := int64(0)
		if f.Since != nil {
			since = f.Since.UnixMicro()
		}
		cand = ix.keep(cand, s, func(o uint32) bool {
			if f.Since != nil && ix.updated[o] < since {
				return false
			}
			// The product's range meets the filter's: some variant is in it.
			return !byPrice || (f.MinMinor == nil || ix.priceMax[o] >= *f.MinMinor) && (f.MaxMinor == nil || ix.price[o] <= *f.MaxMinor)
		})
	}
	if q.Found != nil {
		found := roaring.New()
		for _, id := range q.Found {
			if b, err := parseID(id); err == nil {
				if o, ok := ix.byID[b]; ok {
					found.Add(o)
				}
			}
		}
		cand.And(found)
	} else {
		for _, cl := range f.clauses() {
			if cand.IsEmpty() {
				break
			}
			cand = ix.matchClause(cand, cl, s)
		}
	}
	if len(opts) > 0 && !cand.IsEmpty() && (len(opts) > 1 || priced || f.InStock != nil) {
		cand = ix.variantsOf(cand, f, opts, s)
	}
	return cand
}

// inCategories returns the products in the categories cats (their own,
// not those under them: cats lists those, as the store resolves them), or
// in the filter's CategoryID and those under it in the index's tree.
func (ix *Index) inCategories(f *Terms, cats []string, s *scratch) *roaring.Bitmap {
	var keys []uint32
	if len(cats) > 0 {
		for _, id := range cats {
			if k, ok := ix.cats.key(id); ok {
				keys = append(keys, k)
			}
		}
	} else if k, ok := ix.cats.key(f.CategoryID); ok {
		keys = ix.under(k)
	}
	s.one, s.bms = s.one[:0], s.bms[:0]
	for _, k := range keys {
		s.one, s.bms = ix.cats.post.collect(k, s.one, s.bms)
	}
	return union(s.one, s.bms)
}

// union returns the products of one and of bms, in a new bitmap.
func union(one []uint32, bms []*roaring.Bitmap) *roaring.Bitmap {
	var u *roaring.Bitmap
	switch len(bms) {
	case 0:
		u = roaring.New()
	case 1:
		u = bms[0].Clone()
	default:
		u = roaring.FastOr(bms...)
	}
	if len(one) > 0 {
		slices.Sort(one)
		u.AddMany(one)
	}
	return u
}

// keep returns the products of cand that fn keeps, in a new bitmap.
func (ix *Index) keep(cand *roaring.Bitmap, s *scratch, fn func(o uint32) bool) *roaring.Bitmap {
	s.keep = s.keep[:0]
	it := cand.ManyIterator()
	var buf [256]uint32
	for n := it.NextMany(buf[:]); n > 0; n = it.NextMany(buf[:]) {
		for _, o := range buf[:n] {
			if fn(o) {
				s.keep = append(s.keep, o)
			}
		}
	}
	out := roaring.New()
	out.AddMany(s.keep)
	return out
}

// matchWord keeps the products of cand holding a word that starts with w:
// by each one's words when they are few, else by the union of the terms
// starting with w.
func (ix *Index) matchWord(cand *roaring.Bitmap, w string, s *scratch) *roaring.Bitmap {
	if w == "" {
		return cand
	}
	walk := wordPlan == 1
	if wordPlan == 0 {
		walk = float64(cand.GetCardinality())*wordWalkNs < float64(ix.words.count(w))*termNs
	}
	if walk {
		return ix.keep(cand, s, func(o uint32) bool {
			ix.decode(o, &s.v, withWords)
			// The words are sorted by id, not text: each is checked.
			for _, id := range s.v.words {
				if len(ix.words.text(id)) >= len(w) && ix.words.text(id)[:len(w)] == w {
					return true
				}
			}
			return false
		})
	}
	ix.andPrefix(cand, w, s, &ix.words.post)
	return cand
}

// matchClause keeps the products of cand matching the clause: holding a
// word that starts with each of its terms, or with each of one of its
// alternatives' terms (the union of the ways' matches).
func (ix *Index) matchClause(cand *roaring.Bitmap, cl vitrine.Clause, s *scratch) *roaring.Bitmap {
	ways := cl.Ways()
	if len(ways) == 1 {
		for _, w := range ways[0] {
			cand = ix.matchWord(cand, w, s)
		}
		return cand
	}
	out := roaring.New()
	for _, terms := range ways {
		way := cand.Clone()
		for _, w := range terms {
			if way.IsEmpty() {
				break
			}
			way = ix.matchWord(way, w, s)
		}
		out.Or(way)
	}
	return out
}

// andPrefix intersects bm with the union of posts' products of the terms
// that start with w.
func (ix *Index) andPrefix(bm *roaring.Bitmap, w string, s *scratch, posts ...*postings) {
	s.one, s.bms = s.one[:0], s.bms[:0]
	ix.words.prefix(w, func(id uint32) bool {
		for _, post := range posts {
			s.one, s.bms = post.collect(id, s.one, s.bms)
		}
		return true
	})
	if len(s.one) == 0 && len(s.bms) == 1 {
		bm.And(s.bms[0])
		return
	}
	bm.And(union(s.one, s.bms))
}

// The costs the plans of a word weigh, in nanoseconds (BenchmarkWordPlans).
const (
	wordWalkNs = 450 // a candidate's words read and compared
	termNs     = 30  // a term's products added to the union
	variantNs  = 5   // a variant of an option value's intersected and checked
)

// optionTerm is one option value a variant must hold: its key in optVals,
// if some product holds it.
type optionTerm struct {
	e  uint32
	ok bool
}

func (ix *Index) optionTerms(f *Terms) []optionTerm {
	if len(f.Options) == 0 {
		return nil
	}
	out := make([]optionTerm, 0, len(f.Options))
	for name, val := range f.Options {
		var t optionTerm
		if k, ok := ix.optNames.key(vitrine.OptionKey(name)); ok {
			t.e, t.ok = ix.optValOrds[optionValue{k, val}]
			t.ok = t.ok && ix.optVals.post.word(t.e) != 0
		}
		out = append(out, t)
	}
	return out
}

// variantsOf keeps the products of cand with one variant holding every
// option value asked, in the price range, in stock (or not) as asked: the
// variants of each value's, intersected (or, when the candidates' own
// variants are fewer than the rarest value's, theirs), the stock's, the
// prices checked on what is left, and their products.
func (ix *Index) variantsOf(cand *roaring.Bitmap, f *Terms, opts []optionTerm, s *scratch) *roaring.Bitmap {
	slices.SortFunc(opts, func(a, b optionTerm) int { return int(ix.vpost.card(a.e)) - int(ix.vpost.card(b.e)) })
	var vc *roaring.Bitmap
	// A candidate's record read costs about what 50 variants of a bitmap do.
	if own := float64(cand.GetCardinality())*walkNs < float64(ix.vpost.card(opts[0].e))*variantNs; variantPlan == 1 || variantPlan == 0 && own {
		s.keep = s.keep[:0]
		for o := range cand.Iterate {
			ix.decode(o, &s.v, withVariants)
			for _, vv := range s.v.variants {
				s.keep = append(s.keep, vv.vo)
			}
		}
		vc = roaring.New()
		vc.AddMany(s.keep)
	} else {
		vc = ix.vpost.bitmap(opts[0].e).Clone()
		opts = opts[1:]
	}
	for _, t := range opts {
		vc.And(ix.vpost.bitmap(t.e))
	}
	if f.InStock != nil {
		if *f.InStock {
			vc.And(ix.vstock)
		} else {
			vc.AndNot(ix.vstock)
		}
	}
	if f.MinMinor != nil || f.MaxMinor != nil {
		vc = ix.keep(vc, s, func(vo uint32) bool {
			p := ix.variantPrice(vo)
			return (f.MinMinor == nil || p >= *f.MinMinor) && (f.MaxMinor == nil || p <= *f.MaxMinor)
		})
	}
	// Their products, in a dense set first: variants come in any order.
	dense := make([]uint64, len(ix.ids)/64+1)
	for vo := range vc.Iterate {
		o := ix.vprod[vo]
		dense[o/64] |= 1 << (o % 64)
	}
	products := roaring.FromDense(dense, false)
	products.And(cand)
	return products
}

// Terms are a filter's terms as the index reads them (TermsOf): those
// of its query in its one form, and what is derived from it.
type Terms struct {
	Status              vitrine.ProductStatus
	Vendor, ProductType vitrine.QueryText
	Tags                []vitrine.QueryText
	CategoryID          string
	Options             map[string]string
	Attributes          map[string]any
	OnSale, InStock     *bool
	Currency            vitrine.CurrencyCode
	// Untranslated keeps the products not translated whole and current in
	// that locale (vitrine.ProductQuery.Untranslated).
	Untranslated string
	// Words are the query's own terms (a relevance page's rank 1 is of
	// the names holding them); Clauses what the products must match, each
	// word its own clause when nil.
	Words              []string
	Clauses            []vitrine.Clause
	MinMinor, MaxMinor *int64
	Since              *time.Time
}

// TermsOf returns the terms of f.
func TermsOf(f vitrine.ProductFilter) Terms {
	q := f.Query()
	return Terms{Status: q.Status, Vendor: q.Vendor, ProductType: q.ProductType, Tags: q.Tags, CategoryID: q.CategoryID,
		Options: q.Options, Attributes: q.Attributes, OnSale: q.OnSale, InStock: q.InStock, Currency: q.Currency,
		Untranslated: string(q.Untranslated), Words: f.Words(), Clauses: f.Clauses(), MinMinor: f.MinMinor(), MaxMinor: f.MaxMinor(), Since: f.Since()}
}

// clauses are the terms' clauses: each word its own when Clauses is nil.
func (t *Terms) clauses() []vitrine.Clause {
	if t.Clauses == nil {
		return vitrine.PlainClauses(t.Words)
	}
	return t.Clauses
}
