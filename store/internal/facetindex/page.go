package facetindex

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/vitrine/vitrine"
)

// Page is a page of the products a query keeps, as the store's keyset
// reads it: the first Limit of them in the order Sort, after the key
// After (nil: from the first).
type Page struct {
	Sort  vitrine.ProductSort
	After *vitrine.ProductKey
	Limit int
	// Skip, for a relevance page, are the products of its rank 0 (the
	// SKU's, which the store reads by key): left out of the other ranks.
	Skip []string
	// Levels, for a relevance page, are the query's clauses at each level
	// of its alternatives (vitrine.ProductFilter.Levels: the words as
	// written, their stems, with synonyms, with typos; the last level's
	// those the filter's products match): its ranks. Nil: one level, the
	// filter's words.
	Levels [][]vitrine.Clause
}

// order is a page's sort order as the index compares it: the column the
// store's ORDER BY names (name_key, price, updated_at; none for
// created_at, which orders by id), then the id, each compared as both
// databases do: the name's key byte by byte (SQLite's BINARY, PostgreSQL's
// COLLATE "C"), the numbers as numbers, the time to the microsecond, the
// id by its 16 bytes (a UUID's order; its lower-case text's, the form
// both databases hold), all reversed for a descending sort.
type order struct {
	ix   *Index
	col  int
	desc bool
	// The cursor's key, when the page is after one.
	after bool
	name  []byte
	num   int64
	id    [16]byte
}

// The columns an order compares before the id.
const (
	byID = iota
	byName
	byPrice
	byUpdated
)

// orderOf returns the order of p, or false when the index holds no such
// order (relevance: its ranks are the search's) or cannot place its cursor.
func (ix *Index) orderOf(p Page) (order, bool) {
	o := order{ix: ix, desc: p.Sort.Desc()}
	switch p.Sort.Key() {
	case "name":
		o.col = byName
	case "price":
		o.col = byPrice
	case "updated_at":
		o.col = byUpdated
	case "created_at":
		o.col = byID
	default:
		return order{}, false
	}
	if a := p.After; a != nil {
		id, err := parseID(a.ID)
		if err != nil {
			return order{}, false
		}
		o.after, o.id = true, id
		switch o.col {
		case byName:
			o.name = []byte(a.Name)
		case byPrice:
			o.num = a.Price
		case byUpdated:
			// Truncated to the microsecond, as the drivers send a time.
			o.num = a.Updated.UnixMicro()
		}
	}
	return o, true
}

// compare compares the key of the product at ordinal a with the key of
// name, num and id, in the order: below 0 when a comes first.
func (o *order) compare(a uint32, name []byte, num int64, id *[16]byte) int {
	c := 0
	switch o.col {
	case byName:
		c = bytes.Compare(o.ix.nameOf(a), name)
	case byPrice:
		c = cmp.Compare(o.ix.price[a], num)
	case byUpdated:
		c = cmp.Compare(o.ix.updated[a], num)
	}
	if c == 0 {
		c = bytes.Compare(o.ix.ids[a][:], id[:])
	}
	if o.desc {
		return -c
	}
	return c
}

// before reports whether the product at ordinal a comes before the one at b.
func (o *order) before(a, b uint32) bool {
	if o.col == byName {
		if ra, rb := o.ix.nameRank[a], o.ix.nameRank[b]; ra != 0 && rb != 0 {
			return (ra < rb) != o.desc
		}
	}
	var name []byte
	var num int64
	switch o.col {
	case byName:
		name = o.ix.nameOf(b)
	case byPrice:
		num = o.ix.price[b]
	case byUpdated:
		num = o.ix.updated[b]
	}
	return o.compare(a, name, num, &o.ix.ids[b]) < 0
}

// rankNames sets each product's nameRank: its place in the order of names,
// then ids, from 1.
func (ix *Index) rankNames() {
	ords := ix.live.ToArray()
	slices.SortFunc(ords, func(a, b uint32) int {
		if c := bytes.Compare(ix.nameOf(a), ix.nameOf(b)); c != 0 {
			return c
		}
		return bytes.Compare(ix.ids[a][:], ix.ids[b][:])
	})
	for i, o := range ords {
		ix.nameRank[o] = uint32(i + 1)
	}
}

// page returns the first limit products of cand in the order, after its
// cursor: the best limit kept sorted as cand is read (a candidate that
// beats the last is put in its place by a binary search), in dst.
func (ix *Index) page(cand *roaring.Bitmap, o *order, limit int, dst []uint32) []uint32 {
	top := dst[:0]
	it := cand.ManyIterator()
	var buf [256]uint32
	for n := it.NextMany(buf[:]); n > 0; n = it.NextMany(buf[:]) {
		for _, p := range buf[:n] {
			if o.after && o.compare(p, o.name, o.num, &o.id) <= 0 {
				continue
			}
			if len(top) == limit && !o.before(p, top[limit-1]) {
				continue
			}
			lo, hi := 0, len(top)
			for lo < hi {
				m := int(uint(lo+hi) >> 1)
				if o.before(p, top[m]) {
					hi = m
				} else {
					lo = m + 1
				}
			}
			if len(top) < limit {
				top = append(top, 0)
			}
			copy(top[lo+1:], top[lo:len(top)-1])
			top[lo] = p
		}
	}
	return top
}

// PageOf returns the ids of the page's products among those the query
// keeps, in the page's order, or false when the index holds no such order:
// the store's keyset page of the same filter, for the tests.
func (ix *Index) PageOf(q Query, p Page) ([]string, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	o, ok := ix.orderOf(p)
	if !ok || p.Limit <= 0 {
		return nil, false
	}
	s := scratches.Get().(*scratch)
	defer scratches.Put(s)
	return ix.pageIDs(ix.candidates(&q, s), &o, p.Limit, s), true
}

// pageIDs returns the ids of the page of cand, as page finds it.
func (ix *Index) pageIDs(cand *roaring.Bitmap, o *order, limit int, s *scratch) []string {
	s.top = ix.page(cand, o, limit, s.top)
	ids := make([]string, len(s.top))
	for i, p := range s.top {
		ids[i] = uuidString(ix.ids[p])
	}
	return ids
}

// relevancePage returns the ids of a relevance page of cand, the products
// holding the query's words, and the rank of each, as the store's search
// ranks them past its rank 0 (the SKU's product, p.Skip): by level l of
// p.Levels, the products matching every clause at that level and at none
// before it, rank 1+3l those whose name matches every clause at it, then
// rank 2+3l those whose name's and label's words (vendor, type, tags) do,
// then rank 3+3l the others, each rank in the order of names (then ids)
// after the cursor when it is of that rank, from the first otherwise (a
// cursor leaves the ranks before its own). Without levels, ranks 1 to 3
// are of the words alone. False when words are none or the cursor's id is
// no UUID.
func (ix *Index) relevancePage(cand *roaring.Bitmap, words []string, p Page, s *scratch) ([]string, []int, bool) {
	if len(words) == 0 || p.Limit <= 0 {
		return nil, nil, false
	}
	levels := p.Levels
	if len(levels) == 0 {
		levels = [][]vitrine.Clause{vitrine.PlainClauses(words)}
	}
	first := 1
	if p.After != nil {
		first = max(p.After.Rank, 1)
	}
	var skip []uint32
	for _, id := range p.Skip {
		if b, err := parseID(id); err == nil {
			if o, ok := ix.byID[b]; ok {
				skip = append(skip, o)
			}
		}
	}
	// The candidates by level, those of the earlier levels taken out; at
	// each, those whose name matches (by the names' postings or each
	// one's name words read from its record) then the others.
	rest := cand
	if len(skip) > 0 {
		rest = cand.Clone()
		for _, o := range skip {
			rest.Remove(o)
		}
	}
	ids, rs := []string{}, []int{}
	for l, clauses := range levels {
		if len(ids) >= p.Limit || rest.IsEmpty() {
			break
		}
		at := rest
		if l < len(levels)-1 {
			at = rest.Clone()
			for _, cl := range clauses {
				if at = ix.matchClause(at, cl, s); at.IsEmpty() {
					break
				}
			}
			rest = roaring.AndNot(rest, at)
		}
		base := vitrine.RankTiers * l
		if base+vitrine.RankTiers < first || at.IsEmpty() {
			continue
		}
		names := ix.nameMatchesClauses(at, clauses, s)
		var labels *roaring.Bitmap
		for rank := max(first, base+1); rank <= base+vitrine.RankTiers && len(ids) < p.Limit; rank++ {
			q := Page{Sort: vitrine.SortName, Limit: p.Limit - len(ids)}
			if p.After != nil && p.After.Rank == rank {
				q.After = p.After
			}
			o, ok := ix.orderOf(q)
			if !ok {
				return nil, nil, false
			}
			among := names
			if rank > base+1 && labels == nil {
				labels = ix.labelMatchesClauses(at, clauses, s)
			}
			switch rank - base {
			case 2:
				among = roaring.AndNot(labels, names)
			case 3:
				among = roaring.AndNot(at, labels)
			}
			s.top = ix.page(among, &o, q.Limit, s.top)
			for _, o := range s.top {
				ids, rs = append(ids, uuidString(ix.ids[o])), append(rs, rank)
			}
		}
	}
	return ids, rs, true
}

// labelMatchesClauses returns the products of cand whose name's and
// label's words (vendor, type, tags) match every clause: those whose name
// does among them.
func (ix *Index) labelMatchesClauses(cand *roaring.Bitmap, clauses []vitrine.Clause, s *scratch) *roaring.Bitmap {
	out := cand.Clone()
	for _, cl := range clauses {
		if out.IsEmpty() {
			break
		}
		u := roaring.New()
		for _, terms := range cl.Ways() {
			way := out.Clone()
			for _, w := range terms {
				if w == "" {
					continue // held by any
				}
				if way.IsEmpty() {
					break
				}
				ix.andPrefix(way, w, s, &ix.words.names, &ix.words.labels)
			}
			u.Or(way)
		}
		out = u
	}
	return out
}

// nameMatchesClauses returns the products of cand whose name matches
// every clause: holds a word starting with each term of one of its ways.
func (ix *Index) nameMatchesClauses(cand *roaring.Bitmap, clauses []vitrine.Clause, s *scratch) *roaring.Bitmap {
	out := cand
	for _, cl := range clauses {
		if out.IsEmpty() {
			break
		}
		ways := cl.Ways()
		if len(ways) == 1 {
			out = ix.nameMatches(out, ways[0], s)
			continue
		}
		u := roaring.New()
		for _, terms := range ways {
			u.Or(ix.nameMatches(out, terms, s))
		}
		out = u
	}
	if out == cand {
		out = cand.Clone()
	}
	return out
}

// nameMatches returns the products of cand whose name holds a word
// starting with each of words (rank 1), in a new bitmap: cand intersected,
// for each word, with the union of the names' postings of the terms it
// starts, or, when those terms cost more than the candidates, each
// candidate's name words read from its record (nameHolds). namePlan
// forces one.
func (ix *Index) nameMatches(cand *roaring.Bitmap, words []string, s *scratch) *roaring.Bitmap {
	walk := namePlan == 1
	if namePlan == 0 {
		terms := 0
		for _, w := range words {
			if w != "" {
				terms += ix.words.count(w)
			}
		}
		walk = float64(cand.GetCardinality())*nameWalkNs < float64(terms)*nameTermNs
	}
	if walk {
		return ix.keep(cand, s, func(o uint32) bool { return ix.nameHolds(o, words, &s.v.names) })
	}
	out := cand.Clone()
	for _, w := range words {
		if w == "" {
			continue // held by any name
		}
		ix.andPrefix(out, w, s, &ix.words.names)
		if out.IsEmpty() {
			break
		}
	}
	return out
}

// The costs the plans of rank 1 weigh, in nanoseconds (BenchmarkNamePlans).
const (
	nameWalkNs = 130 // a candidate's name words read and compared
	nameTermNs = 15  // a term's names' posting added to the union
)

// nameHolds reports whether the name of the product at ordinal o holds a
// word starting with each of words, as the store's name_words match: a
// word "" is held by any. It reads the name's words alone, after the
// name's key at the record's start, into names.
func (ix *Index) nameHolds(o uint32, words []string, names *[]uint32) bool {
	r := reader{b: ix.pool, i: int(ix.rec[o])}
	r.i += r.int()
	*names = r.sorted((*names)[:0], r.int())
next:
	for _, w := range words {
		for _, id := range *names {
			if strings.HasPrefix(ix.words.text(id), w) {
				continue next
			}
		}
		if w != "" {
			return false
		}
	}
	return true
}
