package facetindex

import (
	"encoding/binary"
	"slices"
)

// view is a product's record, decoded.
type view struct {
	name                            string // the name's key: only encoded, never decoded (nameOf reads it)
	vendor, ptype, status, currency uint32
	tags, cats, attrs, optNames     []uint32
	optVals, words                  []uint32
	names                           []uint32 // the name's words: those of words it holds
	labels                          []uint32 // the label's words, likewise: only written to the postings, never encoded
	variants                        []variantView
	nVariants                       int
	end                             int // where the record ends in the pool
}

type variantView struct {
	vo    uint32    // the variant's ordinal
	slots [3]uint32 // keys of optVals
}

func (v *view) reset() {
	v.tags, v.cats, v.attrs, v.optNames = v.tags[:0], v.cats[:0], v.attrs[:0], v.optNames[:0]
	v.optVals, v.words, v.names, v.labels, v.variants = v.optVals[:0], v.words[:0], v.names[:0], v.labels[:0], v.variants[:0]
}

// How much of a record decode reads: it stops before what is not asked.
const (
	facetsOnly = iota
	withVariants
	withWords
)

// encode appends the record to b: the name's key first (its length, its
// bytes: a sort reads it there, nameOf), then counts, the scalars, each
// list (sorted ones as deltas), the variants (their ordinals, their values
// as places in optVals), the words last. The name's words come after its
// key (their count, their terms as deltas), where a relevance page reads
// them without the rest (nameHolds).
func (v *view) encode(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v.name)))
	b = append(b, v.name...)
	b = binary.AppendUvarint(b, uint64(len(v.names)))
	b = appendSorted(b, v.names)
	for _, n := range []int{len(v.tags), len(v.cats), len(v.attrs), len(v.optNames), len(v.optVals), len(v.variants), len(v.words)} {
		b = binary.AppendUvarint(b, uint64(n))
	}
	for _, x := range []uint32{v.vendor, v.ptype, v.status, v.currency} {
		b = binary.AppendUvarint(b, uint64(x))
	}
	b = appendSorted(b, v.tags)
	b = appendSorted(b, v.cats)
	b = appendSorted(b, v.attrs)
	for _, f := range v.optNames {
		b = binary.AppendUvarint(b, uint64(f))
	}
	b = appendSorted(b, v.optVals)
	for _, vv := range v.variants {
		var slots uint64
		for s, e := range vv.slots {
			i, _ := slices.BinarySearch(v.optVals, e)
			slots |= uint64(i) << (10 * s)
		}
		b = binary.AppendUvarint(b, uint64(vv.vo))
		b = binary.AppendUvarint(b, slots)
	}
	return appendSorted(b, v.words)
}

func appendSorted(b []byte, xs []uint32) []byte {
	prev := uint32(0)
	for _, x := range xs {
		b = binary.AppendUvarint(b, uint64(x-prev))
		prev = x
	}
	return b
}

// decode reads the record of ordinal o into v, up to what level asks.
func (ix *Index) decode(o uint32, v *view, level int) {
	v.reset()
	r := reader{b: ix.pool, i: int(ix.rec[o])}
	r.i += r.int() // the name's key
	v.names = r.sorted(v.names, r.int())
	nTags, nCats, nAttrs, nOpts, nVals, nVars, nWords := r.int(), r.int(), r.int(), r.int(), r.int(), r.int(), r.int()
	v.vendor, v.ptype, v.status, v.currency = r.u32(), r.u32(), r.u32(), r.u32()
	v.nVariants = nVars
	v.tags = r.sorted(v.tags, nTags)
	v.cats = r.sorted(v.cats, nCats)
	v.attrs = r.sorted(v.attrs, nAttrs)
	for range nOpts {
		v.optNames = append(v.optNames, r.u32())
	}
	v.optVals = r.sorted(v.optVals, nVals)
	if level == facetsOnly {
		return
	}
	for range nVars {
		vv := variantView{vo: r.u32()}
		slots := r.next()
		for s := range 3 {
			vv.slots[s] = v.optVals[uint32(slots>>(10*s))&(1<<10-1)]
		}
		v.variants = append(v.variants, vv)
	}
	if level == withVariants {
		return
	}
	v.words = r.sorted(v.words, nWords)
	v.end = r.i
}

// nameOf returns the key of the name of the product at ordinal o: the
// bytes of its record, not a copy.
func (ix *Index) nameOf(o uint32) []byte {
	r := reader{b: ix.pool, i: int(ix.rec[o])}
	n := r.int()
	return ix.pool[r.i : r.i+n : r.i+n]
}

type reader struct {
	b []byte
	i int
}

func (r *reader) next() uint64 {
	var x uint64
	var s uint
	for {
		c := r.b[r.i]
		r.i++
		if c < 0x80 {
			return x | uint64(c)<<s
		}
		x |= uint64(c&0x7f) << s
		s += 7
	}
}

func (r *reader) u32() uint32 { return uint32(r.next()) }
func (r *reader) int() int    { return int(r.next()) }

func (r *reader) sorted(dst []uint32, n int) []uint32 {
	prev := uint32(0)
	for range n {
		prev += uint32(r.next())
		dst = append(dst, prev)
	}
	return dst
}
