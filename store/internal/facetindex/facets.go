package facetindex

import (
	"bytes"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/google/uuid"
	"github.com/vitrine/vitrine"
)

func uuidString(b [16]byte) string { return uuid.UUID(b).String() }

// Facets returns the counts of the query's facets under its filter, as
// the store's FindProducts returns them: for each facet asked, its values
// held by the filter's products, the most frequent first, then by key, at
// most vitrine.MaxFacetValues; options by option name.
//
// A value written in several forms that compare alike (a vendor "Acme"
// and "ACME", a tag "Sale" and "sale", an option name "Size" and "size")
// is shown in the form of the product with the lowest id among the
// filter's products holding it: the first one the store's facet read,
// reading them in the order of their ids.
func (ix *Index) Facets(q Query) *vitrine.Facets {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	s := scratches.Get().(*scratch)
	defer scratches.Put(s)
	cand := ix.candidates(&q, s)
	return ix.count(cand, q.Facets, s)
}

// FacetsAt returns what Facets returns if the index is at sequence seq,
// the sequence of the caller's snapshot, reporting whether it was: the
// counts then match the page the snapshot reads. (An index ahead of the
// snapshot, brought there by a newer call, answers for no older one.)
func (ix *Index) FacetsAt(seq uint64, q Query) (*vitrine.Facets, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.seq != seq {
		return nil, false
	}
	s := scratches.Get().(*scratch)
	defer scratches.Put(s)
	return ix.count(ix.candidates(&q, s), q.Facets, s), true
}

// FacetsPageAt returns what FacetsAt returns and, when the filter keeps
// at most max products and the index holds the page's order, the ids of
// the page's products, in its order (empty, not nil, when none is left;
// nil otherwise): the page a caller then reads by their ids alone, in the
// same snapshot. A relevance page (of a query's words) is of ranks 1 and
// 2, past p.Skip (relevancePage); ranks holds each product's rank.
func (ix *Index) FacetsPageAt(seq uint64, q Query, p Page, max int) (facets *vitrine.Facets, ids []string, ranks []int, ok bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.seq != seq {
		return nil, nil, nil, false
	}
	s := scratches.Get().(*scratch)
	defer scratches.Put(s)
	cand := ix.candidates(&q, s)
	if cand.GetCardinality() <= uint64(max) {
		if p.Sort == vitrine.SortRelevance {
			if q.Found == nil {
				ids, ranks, _ = ix.relevancePage(cand, q.Filter.Words, p, s)
			}
		} else if o, ok := ix.orderOf(p); ok && p.Limit > 0 {
			ids = ix.pageIDs(cand, &o, p.Limit, s)
		}
	}
	if ids == nil {
		ranks = nil
	} else if ranks == nil {
		ranks = []int{}
	}
	return ix.count(cand, q.Facets, s), ids, ranks, true
}

// counts are the counts of one call, by facet, by key of the facet's dictionary.
type counts struct {
	vendor, ptype, status, tags, cats, opts []uint32
}

func (ix *Index) count(cand *roaring.Bitmap, names []vitrine.FacetName, s *scratch) *vitrine.Facets {
	out := &vitrine.Facets{Values: map[vitrine.FacetName][]vitrine.FacetValue{}}
	asked := func(n vitrine.FacetName) bool { return slices.Contains(names, n) }
	for _, name := range names {
		if name == vitrine.FacetOptions {
			out.Options = map[string][]vitrine.FacetValue{}
		} else {
			out.Values[name] = []vitrine.FacetValue{}
		}
	}
	n := cand.GetCardinality()
	if n == 0 {
		return out
	}
	var c counts
	want := func(n vitrine.FacetName, d *dict, dst *[]uint32) {
		if asked(n) {
			*dst = make([]uint32, len(d.keys))
		}
	}
	want(vitrine.FacetVendor, &ix.vendor, &c.vendor)
	want(vitrine.FacetProductType, &ix.ptype, &c.ptype)
	want(vitrine.FacetStatus, &ix.status, &c.status)
	want(vitrine.FacetTags, &ix.tags, &c.tags)
	want(vitrine.FacetCategories, &ix.cats, &c.cats)
	want(vitrine.FacetOptions, &ix.optVals, &c.opts)

	// Past half the products, the others are counted, and taken from
	// each value's own count: a filter that keeps most costs what it drops.
	live := ix.live.GetCardinality()
	work, rest := cand, n == live
	if !rest && 2*n > live {
		work, rest = roaring.AndNot(ix.live, cand), true
	}
	facets := c.each(ix)
	s.per = ix.perChunk(work, s.per)
	switch m := work.GetCardinality(); {
	case m == live:
		// every product: the values' own counts, taken from nothing
	case ix.walks(m, s.per, facets):
		ix.walk(work, &c, s)
	default:
		ix.intersect(work, s.per, facets, s)
	}
	if rest {
		for _, f := range facets {
			for k := range f.counts {
				if work == cand {
					f.counts[k] = uint32(f.ps.card(uint32(k)))
				} else {
					f.counts[k] = uint32(f.ps.card(uint32(k))) - f.counts[k]
				}
			}
		}
	}

	noKey := func(d *dict, dst []uint32) {
		if k, ok := d.ords[""]; ok && dst != nil {
			dst[k] = 0 // no vendor (or type, or option name) is not a value
		}
	}
	noKey(&ix.vendor, c.vendor)
	noKey(&ix.ptype, c.ptype)
	if c.vendor != nil {
		out.Values[vitrine.FacetVendor] = ix.values(&ix.vendor, c.vendor, cand, func(v *view) []uint32 { return []uint32{v.vendor} })
	}
	if c.ptype != nil {
		out.Values[vitrine.FacetProductType] = ix.values(&ix.ptype, c.ptype, cand, func(v *view) []uint32 { return []uint32{v.ptype} })
	}
	if c.status != nil {
		out.Values[vitrine.FacetStatus] = ix.values(&ix.status, c.status, cand, nil)
	}
	if c.tags != nil {
		out.Values[vitrine.FacetTags] = ix.values(&ix.tags, c.tags, cand, func(v *view) []uint32 { return v.tags })
	}
	if c.cats != nil {
		vs := top(c.cats, func(k uint32) string { return ix.cats.keys[k] })
		fv := make([]vitrine.FacetValue, len(vs))
		for i, k := range vs {
			fv[i] = vitrine.FacetValue{Value: ix.cats.keys[k], Name: ix.tree[k].name, Count: int64(c.cats[k])}
		}
		out.Values[vitrine.FacetCategories] = fv
	}
	if c.opts != nil {
		// Each option key's values, counted apart.
		byKey := map[uint32][]uint32{}
		for e, n := range c.opts {
			if k := ix.optValKey[e]; n > 0 && ix.optNames.keys[k] != "" {
				byKey[k] = append(byKey[k], uint32(e))
			}
		}
		for k, es := range byKey {
			sub := make([]uint32, len(c.opts))
			for _, e := range es {
				sub[e] = c.opts[e]
			}
			vs := top(sub, func(e uint32) string { return ix.optValText[e] })
			fv := make([]vitrine.FacetValue, len(vs))
			for i, e := range vs {
				fv[i] = vitrine.FacetValue{Value: ix.optValText[e], Count: int64(sub[e])}
			}
			name := ix.shown(&ix.optNames, k, cand, func(v *view) []uint32 { return v.optNames })
			out.Options[name] = fv
		}
	}
	return out
}

// facetCounts are a facet's counts and the postings they count.
type facetCounts struct {
	ps     *postings
	counts []uint32
}

// each returns the facets counted.
func (c *counts) each(ix *Index) []facetCounts {
	var out []facetCounts
	for _, f := range []facetCounts{{&ix.vendor.post, c.vendor}, {&ix.ptype.post, c.ptype}, {&ix.status.post, c.status},
		{&ix.tags.post, c.tags}, {&ix.below, c.cats}, {&ix.optVals.post, c.opts}} {
		if f.counts != nil {
			out = append(out, f)
		}
	}
	return out
}

// walks chooses the plan of counting n products, per of them in each
// range of 65,536 ordinals: a walk of their records, or an intersection
// of each value's products with them, by what each would cost. A walk
// costs about the same for every product (a record read, mostly a cache
// miss); an intersection costs, for each value, the cheaper of its
// products tested in a bitset of the candidates (bitNs each) and what
// roaring's containers cost to intersect in each range (andCost).
// BenchmarkCountPlans measures them.
func (ix *Index) walks(n uint64, per []float64, facets []facetCounts) bool {
	switch countPlan {
	case 1:
		return true
	case 2, 3, 5:
		return false
	}
	if countPlan == 4 {
		// The choice before the bitset: the candidates spread evenly.
		even := make([]float64, len(per))
		for i := range even {
			even[i] = float64(n) / float64(len(per))
		}
		per = even
	}
	intersect := 0.0
	for _, f := range facets {
		if f.ps.entries == 0 {
			continue
		}
		values := float64(f.ps.entries)
		cost := bitmapsCost(float64(f.ps.pairs)/values, per)
		if countPlan != 4 {
			cost = min(cost, float64(f.ps.pairs)/values*bitNs)
		}
		intersect += values * (cost + valueNs)
	}
	if countPlan != 4 {
		intersect += float64(len(ix.ids))/64 + float64(n) // the bitset cleared and set
	}
	return float64(n)*walkNs < intersect
}

// perChunk returns the products of cand in each range of 65,536
// ordinals, in dst.
func (ix *Index) perChunk(cand *roaring.Bitmap, dst []float64) []float64 {
	dst = dst[:0]
	prev := uint64(0)
	for ch := range uint64(len(ix.ids)/65536 + 1) {
		r := cand.Rank(uint32(ch<<16 | 0xFFFF))
		dst = append(dst, float64(r-prev))
		prev = r
	}
	return dst
}

// bitmapsCost is what intersecting a value of c products (spread evenly)
// with the candidates, per of them in each range, costs by roaring's
// containers.
func bitmapsCost(c float64, per []float64) float64 {
	avg := c / float64(len(per))
	cost := 0.0
	for _, p := range per {
		if p > 0 {
			cost += andCost(avg, p)
		}
	}
	return cost
}

// intersect counts each value's products among the candidates, per of
// them in each range: a value walks its products, testing each in a dense
// bitset of the candidates (built once), or intersects its bitmap with
// them, as each would cost (countPlan 3 forces the bitset, 2 and 4 the
// bitmaps).
func (ix *Index) intersect(cand *roaring.Bitmap, per []float64, facets []facetCounts, s *scratch) {
	var bits []uint64
	if countPlan != 2 && countPlan != 4 {
		s.bits = slices.Grow(s.bits[:0], len(ix.ids)/64+1)[:len(ix.ids)/64+1]
		clear(s.bits)
		bits = s.bits
		it := cand.ManyIterator()
		var buf [256]uint32
		for n := it.NextMany(buf[:]); n > 0; n = it.NextMany(buf[:]) {
			for _, o := range buf[:n] {
				bits[o>>6] |= 1 << (o & 63)
			}
		}
	}
	var buf [256]uint32
	for _, f := range facets {
		for k := range f.counts {
			w := f.ps.word(uint32(k))
			switch {
			case w == 0:
				f.counts[k] = 0
			case w&bmFlag == 0:
				if cand.Contains(w - 1) {
					f.counts[k] = 1
				} else {
					f.counts[k] = 0
				}
			default:
				bm := f.ps.bms[w&^bmFlag]
				c := float64(bm.GetCardinality())
				if bits == nil || countPlan != 3 && c*bitNs > bitmapsCost(c, per) {
					f.counts[k] = uint32(bm.AndCardinality(cand))
					continue
				}
				n := uint32(0)
				it := bm.ManyIterator()
				for got := it.NextMany(buf[:]); got > 0; got = it.NextMany(buf[:]) {
					for _, o := range buf[:got] {
						n += uint32(bits[o>>6] >> (o & 63) & 1)
					}
				}
				f.counts[k] = n
			}
		}
	}
}

// andCost is what intersecting, in one range of 65,536 ordinals, a value's
// avg products with a set's perChunk costs, by roaring's container kinds.
func andCost(avg, perChunk float64) float64 {
	switch {
	case avg > arrayMax && perChunk > arrayMax:
		return bitmapsNs
	case avg > arrayMax:
		return perChunk * probeNs
	case perChunk > arrayMax:
		return avg * probeNs
	case avg > 64*perChunk || perChunk > 64*avg:
		return min(avg, perChunk) * gallopNs
	default:
		return (avg + perChunk) * mergeNs
	}
}

// The costs the plans weigh, in nanoseconds, as BenchmarkCountPlans
// measured them on 2 cores of an AMD EPYC (CPU time).
const (
	arrayMax  = 4096 // roaring's largest array container
	walkNs    = 250  // a candidate's record read and counted (a cache miss at 300,000)
	bitmapsNs = 150  // two bitmap containers' cardinality
	probeNs   = 3.0  // a value of an array probed in a bitmap
	mergeNs   = 4.5  // a value of two arrays merged
	gallopNs  = 8.0  // a value of the smaller array found in the larger
	valueNs   = 30   // a value's call
	bitNs     = 3.5  // a value's product tested in the candidates' bitset
)

// walk counts the facets of c by each candidate's record.
func (ix *Index) walk(cand *roaring.Bitmap, c *counts, s *scratch) {
	it := cand.ManyIterator()
	var buf [256]uint32
	for n := it.NextMany(buf[:]); n > 0; n = it.NextMany(buf[:]) {
		for _, o := range buf[:n] {
			ix.decode(o, &s.v, facetsOnly)
			v := &s.v
			if c.vendor != nil {
				c.vendor[ix.vendor.formKey[v.vendor]]++
			}
			if c.ptype != nil {
				c.ptype[ix.ptype.formKey[v.ptype]]++
			}
			if c.status != nil {
				c.status[v.status]++
			}
			for _, f := range v.tags {
				if c.tags != nil {
					c.tags[ix.tags.formKey[f]]++
				}
			}
			if c.cats != nil {
				s.anc = ix.counted(v.cats, s.anc)
				for _, k := range s.anc {
					c.cats[k]++
				}
			}
			if c.opts != nil {
				for _, e := range v.optVals {
					c.opts[e]++
				}
			}
		}
	}
}

// top returns the keys counted, the most frequent first, then by key, at
// most vitrine.MaxFacetValues.
func top(counts []uint32, key func(uint32) string) []uint32 {
	var ks []uint32
	for k, n := range counts {
		if n > 0 {
			ks = append(ks, uint32(k))
		}
	}
	slices.SortFunc(ks, func(a, b uint32) int {
		if counts[a] != counts[b] {
			if counts[a] > counts[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(key(a), key(b))
	})
	return ks[:min(len(ks), vitrine.MaxFacetValues)]
}

// values returns a facet's values of dictionary d, each in its form shown
// (formsOf gives a record's forms; nil when a key has one form).
func (ix *Index) values(d *dict, counts []uint32, cand *roaring.Bitmap, formsOf func(*view) []uint32) []vitrine.FacetValue {
	ks := top(counts, func(k uint32) string { return d.keys[k] })
	out := make([]vitrine.FacetValue, len(ks))
	for i, k := range ks {
		shown := d.keys[k]
		if formsOf != nil {
			shown = ix.shown(d, k, cand, formsOf)
		}
		out[i] = vitrine.FacetValue{Value: shown, Count: int64(counts[k])}
	}
	return out
}

// shown returns the form key k is shown in: its one form, or, when
// products write it in several, the form of the candidate with the
// lowest id among those holding it.
func (ix *Index) shown(d *dict, k uint32, cand *roaring.Bitmap, formsOf func(*view) []uint32) string {
	if d.nForms[k] == 1 {
		return d.forms[d.aForm[k]]
	}
	best, found := uint32(0), false
	for o := range roaring.And(d.post.bitmap(k), cand).Iterate {
		if !found || bytes.Compare(ix.ids[o][:], ix.ids[best][:]) < 0 {
			best, found = o, true
		}
	}
	var v view
	ix.decode(best, &v, facetsOnly)
	for _, f := range formsOf(&v) {
		if d.formKey[f] == k {
			return d.forms[f]
		}
	}
	return d.keys[k]
}
