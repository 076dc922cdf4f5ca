package facetindex

import "github.com/RoaringBitmap/roaring/v2"

// bmFlag marks a posting held in a bitmap: the rest of the word is the
// bitmap's slot. Below it, a posting is the one product holding the entry,
// as its ordinal + 1; 0 is no product.
const bmFlag = 1 << 31

// maxOrdinal bounds the product ordinals a posting can hold inline.
const maxOrdinal = bmFlag - 2

// postings holds, for each entry of a dictionary (a facet value, a term),
// the ordinals of the products holding it: none, one kept inline in the
// entry's word, or a roaring bitmap. Most terms of a catalog (a SKU, a
// barcode) belong to one product, for which a bitmap would cost some 150
// bytes against 4.
type postings struct {
	p     []uint32
	bms   []*roaring.Bitmap
	freed []uint32 // slots of bms free for reuse
	// What the plans weigh: the entries held by some product, and the
	// pairs of an entry and a product holding it.
	entries, pairs int
}

// grow makes room for entry e.
func (ps *postings) grow(e uint32) {
	for uint32(len(ps.p)) <= e {
		ps.p = append(ps.p, 0)
	}
}

func (ps *postings) add(e, o uint32) {
	ps.grow(e)
	w := ps.p[e]
	switch {
	case w == 0:
		ps.p[e] = o + 1
		ps.entries++
		ps.pairs++
	case w&bmFlag != 0:
		if ps.bms[w&^bmFlag].CheckedAdd(o) {
			ps.pairs++
		}
	case w != o+1:
		ps.pairs++
		bm := roaring.New()
		bm.Add(min(w-1, o))
		bm.Add(max(w-1, o))
		var slot uint32
		if n := len(ps.freed); n > 0 {
			slot = ps.freed[n-1]
			ps.freed = ps.freed[:n-1]
			ps.bms[slot] = bm
		} else {
			slot = uint32(len(ps.bms))
			ps.bms = append(ps.bms, bm)
		}
		ps.p[e] = bmFlag | slot
	}
}

// remove takes o out of entry e, reporting whether the entry is left
// empty; a bitmap left with one product goes back inline.
func (ps *postings) remove(e, o uint32) (empty bool) {
	if e >= uint32(len(ps.p)) {
		return true
	}
	w := ps.p[e]
	switch {
	case w == 0:
	case w&bmFlag == 0:
		if w == o+1 {
			ps.p[e] = 0
			ps.entries--
			ps.pairs--
		}
	default:
		slot := w &^ bmFlag
		bm := ps.bms[slot]
		if bm.CheckedRemove(o) {
			ps.pairs--
		}
		if n := bm.GetCardinality(); n <= 1 {
			ps.p[e] = 0
			if n == 0 {
				ps.entries--
			}
			if n == 1 {
				ps.p[e] = bm.Minimum() + 1
			}
			ps.bms[slot] = nil
			ps.freed = append(ps.freed, slot)
		}
	}
	return ps.p[e] == 0
}

func (ps *postings) word(e uint32) uint32 {
	if e >= uint32(len(ps.p)) {
		return 0
	}
	return ps.p[e]
}

// card returns the number of products holding e.
func (ps *postings) card(e uint32) uint64 {
	w := ps.word(e)
	switch {
	case w == 0:
		return 0
	case w&bmFlag == 0:
		return 1
	}
	return ps.bms[w&^bmFlag].GetCardinality()
}

// bitmap returns the products holding e: the entry's own bitmap, which
// the caller must not change, or a new one.
func (ps *postings) bitmap(e uint32) *roaring.Bitmap {
	w := ps.word(e)
	switch {
	case w == 0:
		return roaring.New()
	case w&bmFlag == 0:
		return roaring.BitmapOf(w - 1)
	}
	return ps.bms[w&^bmFlag]
}

// collect adds the products holding e to one (the inline ones) or bms
// (the entries' own bitmaps, which the caller must not change).
func (ps *postings) collect(e uint32, one []uint32, bms []*roaring.Bitmap) ([]uint32, []*roaring.Bitmap) {
	w := ps.word(e)
	switch {
	case w == 0:
	case w&bmFlag == 0:
		one = append(one, w-1)
	default:
		bms = append(bms, ps.bms[w&^bmFlag])
	}
	return one, bms
}

// optimize compresses the bitmaps' runs, after a build.
func (ps *postings) optimize() {
	for _, bm := range ps.bms {
		if bm != nil {
			bm.RunOptimize()
		}
	}
}

// bytes estimates the memory the postings hold.
func (ps *postings) bytes() int64 {
	n := int64(cap(ps.p))*4 + int64(cap(ps.bms))*8 + int64(cap(ps.freed))*4
	for _, bm := range ps.bms {
		if bm != nil {
			n += int64(bm.GetSizeInBytes()) + bitmapOverhead
		}
	}
	return n
}

// bitmapOverhead is what a roaring bitmap costs beside its containers'
// data, as GetSizeInBytes leaves it out: the Bitmap, its slices' headers
// and one container's header, rounded to the allocator's size classes.
const bitmapOverhead = 128
