package facetindex

import (
	"bytes"
	"cmp"

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

// pageIDs returns the ids of the page of cand, as pageOf finds it.
func (ix *Index) pageIDs(cand *roaring.Bitmap, o *order, limit int, s *scratch) []string {
	s.top = ix.page(cand, o, limit, s.top)
	ids := make([]string, len(s.top))
	for i, p := range s.top {
		ids[i] = uuidString(ix.ids[p])
	}
	return ids
}
