package facetindex

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/vitrine/vitrine"
)

// The alphabets of random catalogs: few values, written in several forms
// that compare alike, so that filters and facets meet them often.
var (
	rVendors  = []string{"Acme", "ACME", "acme", "Zeta", "Maçã", "MACA", "", "Nord"}
	rTypes    = []string{"Chair", "chair", "Table", "", "Lâmpada", "LAMPADA"}
	rTags     = []string{"Sale", "sale", "New", "Red", "blue", "Blue", "summer", "Summer Sale"}
	rOptNames = []string{"Size", "size", "Color", "Material", "Fit"}
	rOptVals  = []string{"S", "M", "L", "m", "", "Blue", "Red"}
	rAttrKeys = []string{"material", "weight"}
	rAttrVals = []string{"cotton", "wool", "1", "2.5", "true"}
	rWords    = []string{"cadeira", "cadeiras", "mesa", "m", "12", "123", "azul", "az", "x", "lamp", "maçã"}
	rQuery    = []string{"ca", "cad", "cadeiras", "m", "me", "1", "12", "sku1", "sku", "zz", "az", "x", "lamp", "maçã"}
	// Names' keys with ties, prefixes of each other, and bytes past ASCII
	// (as a name's key holds them: ø, ß folded to ss, 日本) that sort apart
	// from their letters' order.
	rNames    = []string{"cadeira", "cadeira", "cadeira azul", "cadeiras", "", "mesa", "mesa 1", "mesa 10", "mesa 2", "øre", "zebra", "é", "日本", "z"}
	rStatuses = []vitrine.ProductStatus{vitrine.ProductDraft, vitrine.ProductActive, vitrine.ProductArchived}
	rBase     = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
)

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

func randomID(rng *rand.Rand) string {
	var b [16]byte
	for i := range b {
		b[i] = byte(rng.IntN(256))
	}
	return uuid.UUID(b).String()
}

// randomTree makes a tree of up to n categories, each under an earlier
// one or at the root.
func randomTree(rng *rand.Rand, n int) []Category {
	var cats []Category
	for i := range rng.IntN(n + 1) {
		c := Category{ID: randomID(rng), Name: fmt.Sprintf("Cat %d", i)}
		if i > 0 && rng.IntN(4) > 0 {
			c.ParentID = cats[rng.IntN(i)].ID
		}
		cats = append(cats, c)
	}
	return cats
}

func randomProduct(rng *rand.Rand, id string, i int, cats []Category) *Product {
	p := &Product{ID: id, NameKey: pick(rng, rNames), Status: pick(rng, rStatuses), Vendor: pick(rng, rVendors), ProductType: pick(rng, rTypes),
		Currency: pick(rng, []string{"BRL", "BRL", "USD"}), UpdatedAt: rBase.Add(time.Duration(rng.IntN(10)) * time.Minute)}
	for range rng.IntN(4) {
		p.Tags = append(p.Tags, pick(rng, rTags))
	}
	for range rng.IntN(3) {
		if len(cats) > 0 {
			p.Categories = append(p.Categories, pick(rng, cats).ID)
		}
	}
	if rng.IntN(30) == 0 {
		p.Categories = append(p.Categories, randomID(rng)) // a category the tree does not hold
	}
	if rng.IntN(2) == 0 {
		p.Attributes = map[string]string{}
		for range 1 + rng.IntN(2) {
			p.Attributes[pick(rng, rAttrKeys)] = pick(rng, rAttrVals)
		}
	}
	nOpts := rng.IntN(4)
	if rng.IntN(40) == 0 {
		nOpts = 4 // past the three the variants' table holds
	}
	for range nOpts {
		p.Options = append(p.Options, pick(rng, rOptNames))
	}
	for range 1 + rng.IntN(rng.IntN(20)+1) {
		v := Variant{Price: int64(rng.IntN(20)), Stock: int64(rng.IntN(4) * rng.IntN(2))}
		for range nOpts {
			v.Values = append(v.Values, pick(rng, rOptVals))
		}
		if rng.IntN(10) == 0 && len(v.Values) > 0 {
			v.Values = v.Values[:len(v.Values)-1] // a value missing
		}
		if rng.IntN(4) == 0 {
			c := v.Price + int64(rng.IntN(5)) - 1
			v.CompareAtPrice = &c
		}
		p.Variants = append(p.Variants, v)
	}
	if rng.IntN(50) == 0 {
		p.Variants = nil
	}
	for range rng.IntN(6) {
		p.Words = append(p.Words, pick(rng, rWords))
	}
	p.Words = append(p.Words, fmt.Sprintf("sku%d", i))
	// The name's words: some of its words (drawn without the generator,
	// which the seeds' catalogs keep as they were), and now and then one
	// that is not among them (the index ignores it).
	for j, w := range p.Words {
		if (i+j)%2 == 0 {
			p.NameWords = append(p.NameWords, w)
		}
	}
	if i%7 == 0 {
		p.NameWords = append(p.NameWords, "mesa")
	}
	// The label's words, likewise: some of its words, the name's among
	// them now and then, and one not among them.
	for j, w := range p.Words {
		if (i+j)%3 == 1 {
			p.LabelWords = append(p.LabelWords, w)
		}
	}
	if i%11 == 0 {
		p.LabelWords = append(p.LabelWords, "lamp")
	}
	// The locales it is translated in whole, likewise without the
	// generator.
	if i%3 == 0 {
		p.Translated = append(p.Translated, "es")
	}
	if i%5 < 2 {
		p.Translated = append(p.Translated, "en")
	}
	return p
}

func randomFilter(rng *rand.Rand, b *brute) Query {
	var q Query
	f := &q.Filter
	ptr := func(v bool) *bool { return &v }
	price := func() *int64 { v := int64(rng.IntN(22)) - 1; return &v }
	if rng.IntN(4) == 0 {
		f.Status = pick(rng, rStatuses)
	}
	if rng.IntN(5) == 0 {
		f.Vendor = vitrine.QueryText(pick(rng, append(rVendors[:len(rVendors):len(rVendors)], "nobody")))
	}
	if rng.IntN(7) == 0 {
		f.ProductType = vitrine.QueryText(pick(rng, rTypes))
	}
	for range rng.IntN(3) * rng.IntN(2) {
		f.Tags = append(f.Tags, vitrine.QueryText(vitrine.TagKey(pick(rng, append(rTags[:len(rTags):len(rTags)], "nope")))))
	}
	if rng.IntN(6) == 0 && len(b.cats) > 0 {
		f.CategoryID = pick(rng, b.cats).ID
		if rng.IntN(2) == 0 {
			q.Categories = b.categoryAndBelow(f.CategoryID) // as the store resolves it
		}
	}
	if rng.IntN(8) == 0 {
		f.Attributes = map[string]any{pick(rng, rAttrKeys): pick(rng, rAttrVals)}
	}
	if rng.IntN(5) == 0 {
		if rng.IntN(3) > 0 {
			f.MinMinor = price()
		}
		if rng.IntN(3) > 0 {
			f.MaxMinor = price()
		}
		f.Currency = vitrine.CurrencyCode(pick(rng, []string{"BRL", "USD"}))
	}
	if rng.IntN(7) == 0 {
		f.OnSale = ptr(rng.IntN(2) == 0)
	}
	if rng.IntN(5) == 0 {
		f.InStock = ptr(rng.IntN(2) == 0)
	}
	if rng.IntN(10) == 0 {
		t := rBase.Add(time.Duration(rng.IntN(11)) * time.Minute)
		f.Since = &t
	}
	if rng.IntN(3) == 0 {
		f.Options = map[string]string{}
		for range 1 + rng.IntN(2) {
			name := pick(rng, append(rOptNames[:len(rOptNames):len(rOptNames)], "Nope"))
			if rng.IntN(40) == 0 {
				name = "" // the empty key: a variant's places past its options
			}
			f.Options[name] = pick(rng, rOptVals)
		}
	}
	if rng.IntN(4) == 0 {
		for range 1 + rng.IntN(2) {
			f.Words = append(f.Words, pick(rng, rQuery))
		}
		if rng.IntN(2) == 0 {
			// Alternatives: synonyms of one or two words, typos.
			for _, w := range f.Words {
				cl := vitrine.Clause{Terms: []string{w}}
				for rng.IntN(2) == 0 {
					a := vitrine.Alternative{Terms: []string{pick(rng, rQuery)}, Kind: pick(rng, []vitrine.MatchKind{vitrine.MatchSynonym, vitrine.MatchTypo})}
					if rng.IntN(3) == 0 {
						a.Terms = append(a.Terms, pick(rng, rQuery))
					}
					cl.Alternatives = append(cl.Alternatives, a)
				}
				f.Clauses = append(f.Clauses, cl)
			}
		}
	}
	if rng.IntN(5) == 0 {
		f.Untranslated = pick(rng, []string{"es", "en", "fr"})
	}
	return q
}

func randomFacets(rng *rand.Rand) []vitrine.FacetName {
	var out []vitrine.FacetName
	for _, n := range vitrine.FacetNames {
		if rng.IntN(2) == 0 {
			out = append(out, n)
		}
	}
	return out
}

// plans runs fn under every plan of the index: facets walked or
// intersected, words walked or looked up.
func plans(t *testing.T, fn func(plan string)) {
	t.Helper()
	defer func(c, w, v, n int) { countPlan, wordPlan, variantPlan, namePlan = c, w, v, n }(countPlan, wordPlan, variantPlan, namePlan)
	for _, p := range [][4]int{{1, 1, 1, 1}, {1, 2, 2, 2}, {2, 1, 2, 1}, {2, 2, 1, 2}, {3, 1, 2, 2}, {5, 2, 1, 1}, {0, 0, 0, 0}} {
		countPlan, wordPlan, variantPlan, namePlan = p[0], p[1], p[2], p[3]
		fn(fmt.Sprintf("count plan %d, word plan %d, variant plan %d, name plan %d", p[0], p[1], p[2], p[3]))
	}
}

// check compares the index's answers with brute's for n random filters.
func check(t *testing.T, rng *rand.Rand, ix *Index, b *brute, n int) {
	t.Helper()
	for range n {
		q, names := randomFilter(rng, b), randomFacets(rng)
		f := q.Filter
		want := b.match(q)
		wantFacets := b.facets(want, names)
		plans(t, func(plan string) {
			got := ix.Match(q)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: filter %s:\n got %d products %v\nwant %d %v", plan, describeFilter(f), len(got), got, len(want), want)
			}
			if gotFacets := ix.Facets(Query{Filter: f, Categories: q.Categories, Facets: names}); !reflect.DeepEqual(gotFacets, wantFacets) {
				t.Fatalf("%s: filter %s, facets %v:\n got %v\nwant %v", plan, describeFilter(f), names, gotFacets, wantFacets)
			}
		})
		checkPages(t, rng, ix, b, q, want)
		if len(f.Words) > 0 && q.Found == nil {
			// Every plan of rank 1 (and of counting), the same pages.
			seed := rng.Uint64()
			plans(t, func(plan string) {
				t.Helper()
				checkRelevance(t, plan, rand.New(rand.NewPCG(seed, 1)), ix, b, q, want)
			})
		}
		if len(f.Words) > 0 {
			// The caller's own search: the index takes the products found.
			g := f
			g.Words, g.Clauses = nil, nil
			found := b.match(Query{Filter: Terms{Words: f.Words, Clauses: f.Clauses}})
			if got := ix.Match(Query{Filter: g, Categories: q.Categories, Found: found}); !slices.Equal(got, want) {
				t.Fatalf("found by the caller: filter %s: got %v, want %v", describeFilter(f), got, want)
			}
		}
	}
}

// checkPages compares the index's pages of q's products with the store's
// keyset pages, brute's: in a random order, from the first page to the
// last, each after the last key of the one before, and after a key that
// is no product's.
func checkPages(t *testing.T, rng *rand.Rand, ix *Index, b *brute, q Query, want []string) {
	t.Helper()
	sorts := slices.DeleteFunc(slices.Clone(vitrine.ProductSorts), func(s vitrine.ProductSort) bool { return s == vitrine.SortRelevance })
	p := Page{Sort: pick(rng, sorts), Limit: 1 + rng.IntN(7)}
	if _, ok := ix.PageOf(q, Page{Sort: vitrine.SortRelevance, Limit: 5}); ok {
		t.Fatal("a page in relevance order: the index holds no ranks")
	}
	var all []string
	for range len(want) + 1 {
		got, ok := ix.PageOf(q, p)
		if w := b.page(want, p); !ok || !slices.Equal(got, w) {
			t.Fatalf("filter %s, page %s after %+v, limit %d:\n got %v\nwant %v", describeFilter(q.Filter), p.Sort, p.After, p.Limit, got, w)
		}
		if len(got) == 0 {
			break
		}
		all = append(all, got...)
		p.After = b.keyOf(got[len(got)-1], p.Sort)
	}
	if len(all) != len(want) {
		t.Fatalf("filter %s, sort %s: the pages hold %d products, the filter %d", describeFilter(q.Filter), p.Sort, len(all), len(want))
	}
	// After a key of no product: a name, price or time between theirs,
	// an id of none.
	p.After = &vitrine.ProductKey{Name: pick(rng, rNames) + pick(rng, []string{"", " ", "a", "\xff"}), Price: int64(rng.IntN(22)) - 1,
		Updated: rBase.Add(time.Duration(rng.IntN(600)) * time.Second).Add(time.Duration(rng.IntN(2000)) * time.Nanosecond), ID: randomID(rng)}
	if got, _ := ix.PageOf(q, p); !slices.Equal(got, b.page(want, p)) {
		t.Fatalf("filter %s, page %s after %+v: got %v, want %v", describeFilter(q.Filter), p.Sort, p.After, got, b.page(want, p))
	}
}

// checkRelevance compares the index's relevance pages of q's products
// with the store's: past a product left out (the SKU's, rank 0), rank 1
// (names holding a word starting with each of the query's) then rank 2,
// each in name-key order, every page after the last key of the one before
// with its rank, the first one now and then after a key of rank 0.
func checkRelevance(t *testing.T, plan string, rng *rand.Rand, ix *Index, b *brute, q Query, want []string) {
	t.Helper()
	var skip []string
	if len(want) > 0 && rng.IntN(2) == 0 {
		skip = []string{pick(rng, want)}
	}
	// The levels: the clauses' own terms, with synonyms, with typos (as
	// the store's filter gives them); now and then none, one level of the
	// words.
	levels := [][]vitrine.Clause{vitrine.PlainClauses(q.Filter.Words)}
	var pageLevels [][]vitrine.Clause
	if q.Filter.Clauses != nil && rng.IntN(4) != 0 {
		levels = nil
		for l := range vitrine.MatchLevels {
			var cs []vitrine.Clause
			for _, cl := range q.Filter.Clauses {
				c := vitrine.Clause{Terms: cl.Terms}
				for _, a := range cl.Alternatives {
					if l > 0 && a.Kind.Level() <= l {
						c.Alternatives = append(c.Alternatives, a)
					}
				}
				cs = append(cs, c)
			}
			levels = append(levels, cs)
		}
		pageLevels = levels
	}
	const tiers = vitrine.RankTiers
	var ranked [tiers*vitrine.MatchLevels + 1][]string
	for _, id := range want {
		if slices.Contains(skip, id) {
			continue
		}
		r := 0
		for l, clauses := range levels {
			if l == len(levels)-1 || b.holds(id, clauses) {
				switch {
				case b.nameMatches(id, clauses):
					r = 1 + tiers*l
				case b.labelMatches(id, clauses):
					r = 2 + tiers*l
				default:
					r = 3 + tiers*l
				}
				break
			}
		}
		ranked[r] = append(ranked[r], id)
	}
	var wantIDs []string
	var wantRanks []int
	for r := 1; r <= tiers*vitrine.MatchLevels; r++ {
		for _, id := range b.page(ranked[r], Page{Sort: vitrine.SortName, Limit: len(ranked[r])}) {
			wantIDs, wantRanks = append(wantIDs, id), append(wantRanks, r)
		}
	}
	p := Page{Sort: vitrine.SortRelevance, Limit: 1 + rng.IntN(7), Skip: skip, Levels: pageLevels}
	if pageLevels != nil {
		p.Limit += 8 * rng.IntN(4) // fewer pages: each computes the levels again
	}
	if rng.IntN(4) == 0 {
		p.After = &vitrine.ProductKey{Rank: 0, ID: randomID(rng)}
	}
	at := 0
	for range len(wantIDs) + 1 {
		_, ids, ranks, ok := ix.FacetsPageAt(ix.Seq(), q, p, 1<<30)
		end := min(at+p.Limit, len(wantIDs))
		if !ok || !slices.Equal(ids, wantIDs[at:end]) || !slices.Equal(ranks, wantRanks[at:end]) {
			t.Fatalf("%s: filter %s, relevance page after %+v, limit %d, skip %v:\n got %v %v\nwant %v %v", plan, describeFilter(q.Filter), p.After, p.Limit, skip,
				ids, ranks, wantIDs[at:end], wantRanks[at:end])
		}
		if len(ids) == 0 {
			break
		}
		at = end
		p.After = b.keyOf(ids[len(ids)-1], vitrine.SortName)
		p.After.Rank = ranks[len(ranks)-1]
	}
	if at != len(wantIDs) {
		t.Fatalf("%s: filter %s: the relevance pages hold %d products, want %d", plan, describeFilter(q.Filter), at, len(wantIDs))
	}
}

func describeFilter(f Terms) string {
	s := fmt.Sprintf("%+v", f)
	for _, p := range []*int64{f.MinMinor, f.MaxMinor} {
		if p != nil {
			s += fmt.Sprintf(" price %d", *p)
		}
	}
	for _, p := range []*bool{f.InStock, f.OnSale} {
		if p != nil {
			s += fmt.Sprintf(" %v", *p)
		}
	}
	return s
}

// Random catalogs of many companies' shapes, built at once and put one by
// one, answer every random filter and facet set as the store's semantics,
// written plainly, do.
func TestRandomCatalogs(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 7))
		size := rng.IntN(120)
		if seed%10 == 9 {
			size = 1500 + rng.IntN(1500)
		}
		b := newBrute()
		b.cats = randomTree(rng, 12)
		var ps []*Product
		for i := range size {
			p := randomProduct(rng, randomID(rng), i, b.cats)
			ps = append(ps, p)
			b.products[p.ID] = p
		}
		built := NewBuilder(size)
		built.SetCategories(b.cats)
		for _, p := range ps {
			if err := built.Add(p); err != nil {
				t.Fatal(err)
			}
		}
		put := New()
		for i, p := range ps {
			if i == len(ps)/2 {
				put.SetCategories(b.cats) // the tree arrives between products
			}
			if err := put.Put(p); err != nil {
				t.Fatal(err)
			}
		}
		if len(ps) < 2 {
			put.SetCategories(b.cats)
		}
		t.Run(fmt.Sprintf("seed %d, %d products", seed, size), func(t *testing.T) {
			check(t, rng, built.Finish(1), b, 30)
			check(t, rng, put, b, 30)
		})
	}
}

// FuzzCatalog draws a catalog, its writes and its filters from the fuzzer's
// seeds: `go test -fuzz FuzzCatalog` searches further than the random
// tests' fixed seeds.
func FuzzCatalog(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3} {
		f.Add(seed, uint8(40))
	}
	f.Fuzz(func(t *testing.T, seed uint64, size uint8) {
		rng := rand.New(rand.NewPCG(seed, 13))
		b := newBrute()
		b.cats = randomTree(rng, 8)
		ix := New()
		ix.SetCategories(b.cats)
		var ids []string
		for i := range int(size) {
			id := randomID(rng)
			if len(ids) > 0 && rng.IntN(4) == 0 {
				id = pick(rng, ids) // a replace
			}
			ids = append(ids, id)
			p := randomProduct(rng, id, i, b.cats)
			b.products[id] = p
			if err := ix.Put(p); err != nil {
				t.Fatal(err)
			}
			if rng.IntN(6) == 0 {
				gone := pick(rng, ids)
				delete(b.products, gone)
				ix.Delete(gone)
			}
		}
		check(t, rng, ix, b, 10)
	})
}
