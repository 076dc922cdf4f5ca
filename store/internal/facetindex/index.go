package facetindex

import (
	"fmt"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/google/uuid"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/fuzzy"
)

// Index is the in-memory index of one company's catalog. Its methods are
// safe for concurrent use: readers share a read lock, a write holds the
// lock for what the product it writes holds (microseconds).
type Index struct {
	mu  sync.RWMutex
	seq uint64

	// Products by ordinal: dense, a deleted product's ordinal reused.
	ids     [][16]byte
	byID    map[[16]byte]uint32
	live    *roaring.Bitmap
	free    []uint32
	rec     []uint32 // where the product's record starts in pool
	pool    []byte   // the records: what a product holds, as varints
	garbage int      // bytes of pool no record uses
	// The columns range filters scan.
	price, priceMax, updated []int64
	// nameRank is each product's place in the order of names (then ids)
	// as the index was built, from 1: a page in that order compares two
	// products so ranked by it, not by their names read from the records
	// (a relevance page orders thousands of names). 0 for a product added
	// or renamed since, which a page compares by its name.
	nameRank []uint32

	onSale, inStock                                                       *roaring.Bitmap
	status, currency, vendor, ptype, tags, optNames, optVals, attrs, cats dict
	// translated holds, by locale, the products translated whole and
	// current in it (Product.Translated): a company's locales are few, so
	// a write takes a product out of each rather than record them.
	translated dict
	// By key of optVals: the option's key (a key of optNames) and the value;
	// and the keys of optVals by those.
	optValKey  []uint32
	optValText []string
	optValOrds map[optionValue]uint32
	// Variants by their own ordinals (dense, reused): the product's
	// ordinal (noNode when free), the price above the product's lowest
	// (wide ones apart), the variants holding each option value (by key
	// of optVals: a variant's places past its product's options hold the
	// empty key's empty value, as the variants' table does), those in stock.
	vprod  []uint32
	vdelta []uint32
	vwide  map[uint32]int64
	vfree  []uint32
	vpost  postings
	vstock *roaring.Bitmap
	// The category tree, by key of cats; below holds, by the same key, the
	// products counted in the category: in it or in one under it.
	tree  []node
	below postings
	words terms

	v   view     // the writers' own
	anc []uint32 // likewise
}

// New returns an empty index at sequence 0.
func New() *Index {
	return &Index{
		byID: map[[16]byte]uint32{}, optValOrds: map[optionValue]uint32{}, live: roaring.New(), onSale: roaring.New(), inStock: roaring.New(),
		vwide: map[uint32]int64{}, vstock: roaring.New(),
		status: newDict(nil), currency: newDict(nil), vendor: newDict(vitrine.Fold), ptype: newDict(vitrine.Fold),
		tags: newDict(vitrine.TagKey), optNames: newDict(vitrine.OptionKey), optVals: newDict(nil), attrs: newDict(nil), cats: newDict(nil),
		translated: newDict(nil),
	}
}

func (ix *Index) dicts() []*dict {
	return []*dict{&ix.status, &ix.currency, &ix.vendor, &ix.ptype, &ix.tags, &ix.optNames, &ix.optVals, &ix.attrs, &ix.cats, &ix.translated}
}

// Seq returns the sequence of the company's changes the index holds: every
// change up to it, none after.
func (ix *Index) Seq() uint64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.seq
}

// Len returns the number of products.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.byID)
}

// Put adds a product, or replaces the product of its id.
func (ix *Index) Put(p *Product) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.put(p)
}

// Delete removes the product of the id, if the index holds it.
func (ix *Index) Delete(id string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.delete(id)
}

// Apply brings the index to sequence seq with the products written
// (added or replaced) and deleted since its own, all at once for readers.
// A product both in puts and deletes is deleted. Changes older than the
// index (seq below its own) are not applied: Apply reports whether they were.
func (ix *Index) Apply(seq uint64, puts []*Product, deletes []string) (bool, error) {
	return ix.ApplyChanges(seq, Changes{Puts: puts, Deletes: deletes})
}

// Changes are what changed in a company's catalog between two sequences.
type Changes struct {
	// Puts are the products written (added or replaced), Deletes the ids
	// of those deleted; a product in both is deleted.
	Puts    []*Product
	Deletes []string
	// Tree, when TreeChanged, is the company's category tree after them.
	Tree        []Category
	TreeChanged bool
}

// ApplyChanges brings the index to sequence seq with c, all at once for
// readers, as Apply does; the tree first, when it changed. A product the
// index cannot hold (Check) fails it before anything changes: the index
// is then as it was.
func (ix *Index) ApplyChanges(seq uint64, c Changes) (bool, error) {
	for _, p := range c.Puts {
		if err := Check(p); err != nil {
			return false, err
		}
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if seq < ix.seq {
		return false, nil
	}
	if len(c.Puts) > len(ix.free)+maxOrdinal+1-len(ix.ids) {
		return false, fmt.Errorf("facetindex: more than %d products", maxOrdinal)
	}
	if c.TreeChanged {
		ix.setCategories(c.Tree)
	}
	for _, p := range c.Puts {
		if err := ix.put(p); err != nil {
			return false, err // not met: Check passed
		}
	}
	for _, id := range c.Deletes {
		ix.delete(id)
	}
	ix.seq = seq
	return true, nil
}

// Check returns why the index cannot hold p, or nil: an id that is not a
// UUID, more option values than a record holds, a stock below 0.
func Check(p *Product) error {
	if _, err := parseID(p.ID); err != nil {
		return err
	}
	if n := min(len(p.Options), 3); n*len(p.Variants) > maxSlotValues && distinctValues(p, n) > maxSlotValues {
		return fmt.Errorf("facetindex: product %s holds more than %d option values", p.ID, maxSlotValues)
	}
	for _, v := range p.Variants {
		if v.Stock < 0 {
			// Stock is never below 0: in stock is then stock > 0, and
			// out of it stock = 0, for a variant as for its product.
			return fmt.Errorf("facetindex: product %s has a variant of stock %d", p.ID, v.Stock)
		}
	}
	return nil
}

func parseID(s string) ([16]byte, error) {
	u, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return [16]byte{}, fmt.Errorf("facetindex: product id %q is not a UUID", s)
	}
	return u, nil
}

func (ix *Index) put(p *Product) error {
	if err := Check(p); err != nil {
		return err
	}
	id, _ := parseID(p.ID)
	o, ok := ix.byID[id]
	if ok {
		if ix.nameRank[o] != 0 && string(ix.nameOf(o)) != p.NameKey {
			ix.nameRank[o] = 0 // its place is not known any more
		}
		ix.unindex(o)
	} else {
		var err error
		if o, err = ix.alloc(id); err != nil {
			return err
		}
	}
	ix.index(o, p)
	ix.compactPool()
	return nil
}

// maxSlotValues bounds the option values of one product (a variant's
// record names its values by their place among them, in 10 bits): three
// options of 100 values each hold at most 300.
const maxSlotValues = 1<<10 - 2

func distinctValues(p *Product, n int) int {
	seen := map[[2]string]bool{}
	for _, v := range p.Variants {
		for s := range n {
			val := ""
			if s < len(v.Values) {
				val = v.Values[s]
			}
			seen[[2]string{vitrine.OptionKey(p.Options[s]), val}] = true
		}
	}
	return len(seen)
}

func (ix *Index) alloc(id [16]byte) (uint32, error) {
	var o uint32
	if n := len(ix.free); n > 0 {
		o = ix.free[n-1]
		ix.free = ix.free[:n-1]
		ix.ids[o] = id
	} else {
		if len(ix.ids) > maxOrdinal {
			return 0, fmt.Errorf("facetindex: more than %d products", maxOrdinal)
		}
		o = uint32(len(ix.ids))
		ix.ids = append(ix.ids, id)
		ix.rec = append(ix.rec, 0)
		ix.price = append(ix.price, 0)
		ix.priceMax = append(ix.priceMax, 0)
		ix.updated = append(ix.updated, 0)
		ix.nameRank = append(ix.nameRank, 0)
	}
	ix.nameRank[o] = 0
	ix.byID[id] = o
	ix.live.Add(o)
	return o, nil
}

func (ix *Index) delete(s string) {
	id, err := parseID(s)
	if err != nil {
		return
	}
	o, ok := ix.byID[id]
	if !ok {
		return
	}
	ix.unindex(o)
	delete(ix.byID, id)
	ix.live.Remove(o)
	ix.ids[o] = [16]byte{}
	ix.free = append(ix.free, o)
	ix.compactPool()
}

// index writes p at ordinal o, which holds nothing.
func (ix *Index) index(o uint32, p *Product) {
	v := &ix.v
	v.reset()
	v.status = ix.status.intern(string(p.Status))
	ix.status.post.add(v.status, o)
	v.currency = ix.currency.intern(p.Currency)
	ix.currency.post.add(v.currency, o)
	v.vendor = ix.vendor.form(p.Vendor)
	ix.vendor.post.add(ix.vendor.formKey[v.vendor], o)
	ix.vendor.hold(v.vendor)
	v.ptype = ix.ptype.form(p.ProductType)
	ix.ptype.post.add(ix.ptype.formKey[v.ptype], o)
	ix.ptype.hold(v.ptype)

	for _, t := range p.Tags {
		f := ix.tags.form(t)
		if !slices.ContainsFunc(v.tags, func(g uint32) bool { return ix.tags.formKey[g] == ix.tags.formKey[f] }) {
			v.tags = append(v.tags, f)
		}
	}
	slices.Sort(v.tags)
	for _, f := range v.tags {
		ix.tags.post.add(ix.tags.formKey[f], o)
		ix.tags.hold(f)
	}

	for _, id := range p.Categories {
		v.cats = append(v.cats, ix.cats.intern(id))
	}
	slices.Sort(v.cats)
	v.cats = slices.Compact(v.cats)
	for _, c := range v.cats {
		ix.cats.post.add(c, o)
	}
	ix.growTree()
	ix.anc = ix.counted(v.cats, ix.anc)
	for _, c := range ix.anc {
		ix.below.add(c, o)
	}

	for k, val := range p.Attributes {
		v.attrs = append(v.attrs, ix.attrs.intern(k+"\x00"+val))
	}
	slices.Sort(v.attrs)
	for _, a := range v.attrs {
		ix.attrs.post.add(a, o)
	}

	nOpts := min(len(p.Options), 3)
	for _, name := range p.Options[:nOpts] {
		v.optNames = append(v.optNames, ix.optNames.form(name))
	}
	if len(p.Variants) > 0 {
		// A product holds its options' names through its variants' rows.
		ix.eachOptionKey(v.optNames, func(f uint32) {
			ix.optNames.post.add(ix.optNames.formKey[f], o)
			ix.optNames.hold(f)
		})
	}
	var pmin, pmax, stock int64
	sale := false
	pad := noNode
	if nOpts < 3 && len(p.Variants) > 0 {
		pad = ix.optVal(ix.optNames.intern(""), "")
	}
	for i, pv := range p.Variants {
		vv := variantView{vo: ix.allocVariant(o), slots: [3]uint32{pad, pad, pad}}
		for s := range nOpts {
			val := ""
			if s < len(pv.Values) {
				val = pv.Values[s]
			}
			vv.slots[s] = ix.optVal(ix.optNames.formKey[v.optNames[s]], val)
		}
		for s, e := range vv.slots {
			if !slices.Contains(vv.slots[:s], e) {
				ix.vpost.add(e, vv.vo)
				v.optVals = append(v.optVals, e)
			}
		}
		if pv.Stock > 0 {
			ix.vstock.Add(vv.vo)
		}
		v.variants = append(v.variants, vv)
		if i == 0 {
			pmin, pmax = pv.Price, pv.Price
		}
		pmin, pmax = min(pmin, pv.Price), max(pmax, pv.Price)
		stock += pv.Stock
		sale = sale || pv.CompareAtPrice != nil && *pv.CompareAtPrice > pv.Price
	}
	for i, vv := range v.variants {
		if d := uint64(p.Variants[i].Price - pmin); d < wide {
			ix.vdelta[vv.vo] = uint32(d)
		} else {
			ix.vdelta[vv.vo] = wide
			ix.vwide[vv.vo] = p.Variants[i].Price
		}
	}
	slices.Sort(v.optVals)
	v.optVals = slices.Compact(v.optVals)
	for _, e := range v.optVals {
		ix.optVals.post.add(e, o)
	}

	for _, w := range p.Words {
		if w != "" {
			id := ix.words.intern(w)
			v.words = append(v.words, id)
			if slices.Contains(p.NameWords, w) {
				v.names = append(v.names, id)
			}
			if slices.Contains(p.LabelWords, w) {
				v.labels = append(v.labels, id)
			}
		}
	}
	slices.Sort(v.words)
	v.words = slices.Compact(v.words)
	for _, id := range v.words {
		ix.words.post.add(id, o)
	}
	slices.Sort(v.names)
	v.names = slices.Compact(v.names)
	for _, id := range v.names {
		ix.words.names.add(id, o)
	}
	for _, id := range v.labels {
		ix.words.labels.add(id, o) // repeated ids: add keeps one
	}

	for _, l := range p.Translated {
		ix.translated.post.add(ix.translated.intern(l), o)
	}

	ix.price[o], ix.priceMax[o], ix.updated[o] = pmin, pmax, p.UpdatedAt.UnixMicro()
	if sale {
		ix.onSale.Add(o)
	}
	if stock > 0 {
		ix.inStock.Add(o)
	}
	v.name = p.NameKey
	ix.rec[o] = uint32(len(ix.pool))
	ix.pool = v.encode(ix.pool)
}

// wide marks a variant whose price is too far above its product's lowest
// for 32 bits: vwide holds it.
const wide = 1<<32 - 1

func (ix *Index) allocVariant(o uint32) uint32 {
	if n := len(ix.vfree); n > 0 {
		vo := ix.vfree[n-1]
		ix.vfree = ix.vfree[:n-1]
		ix.vprod[vo] = o
		return vo
	}
	ix.vprod = append(ix.vprod, o)
	ix.vdelta = append(ix.vdelta, 0)
	return uint32(len(ix.vprod) - 1)
}

// variantPrice returns the price of variant vo.
func (ix *Index) variantPrice(vo uint32) int64 {
	if d := ix.vdelta[vo]; d != wide {
		return ix.price[ix.vprod[vo]] + int64(d)
	}
	return ix.vwide[vo]
}

// eachOptionKey calls fn with the first form of each option key of forms.
func (ix *Index) eachOptionKey(forms []uint32, fn func(f uint32)) {
	for i, f := range forms {
		k := ix.optNames.formKey[f]
		if !slices.ContainsFunc(forms[:i], func(g uint32) bool { return ix.optNames.formKey[g] == k }) {
			fn(f)
		}
	}
}

// optionValue is a value of an option, by the option's key in optNames.
type optionValue struct {
	key uint32
	val string
}

// optVal returns the key of option key k's value val.
func (ix *Index) optVal(k uint32, val string) uint32 {
	if e, ok := ix.optValOrds[optionValue{k, val}]; ok {
		return e
	}
	e := ix.optVals.intern(ix.optNames.keys[k] + "\x00" + val)
	ix.optValOrds[optionValue{k, val}] = e
	ix.optValKey = append(ix.optValKey, k)
	ix.optValText = append(ix.optValText, val)
	return e
}

// unindex takes the product at ordinal o out of every posting.
func (ix *Index) unindex(o uint32) {
	v := &ix.v
	ix.decode(o, v, withWords)
	ix.status.post.remove(v.status, o)
	ix.currency.post.remove(v.currency, o)
	ix.vendor.post.remove(ix.vendor.formKey[v.vendor], o)
	ix.vendor.release(v.vendor)
	ix.ptype.post.remove(ix.ptype.formKey[v.ptype], o)
	ix.ptype.release(v.ptype)
	for _, f := range v.tags {
		ix.tags.post.remove(ix.tags.formKey[f], o)
		ix.tags.release(f)
	}
	for _, c := range v.cats {
		ix.cats.post.remove(c, o)
	}
	ix.anc = ix.counted(v.cats, ix.anc)
	for _, c := range ix.anc {
		ix.below.remove(c, o)
	}
	for _, a := range v.attrs {
		ix.attrs.post.remove(a, o)
	}
	if v.nVariants > 0 {
		ix.eachOptionKey(v.optNames, func(f uint32) {
			ix.optNames.post.remove(ix.optNames.formKey[f], o)
			ix.optNames.release(f)
		})
	}
	for _, e := range v.optVals {
		ix.optVals.post.remove(e, o)
	}
	for _, vv := range v.variants {
		for s, e := range vv.slots {
			if !slices.Contains(vv.slots[:s], e) {
				ix.vpost.remove(e, vv.vo)
			}
		}
		ix.vstock.Remove(vv.vo)
		if ix.vdelta[vv.vo] == wide {
			delete(ix.vwide, vv.vo)
		}
		ix.vprod[vv.vo] = noNode
		ix.vfree = append(ix.vfree, vv.vo)
	}
	for _, id := range v.names {
		ix.words.names.remove(id, o)
	}
	for _, id := range v.words {
		// The label's words are not recorded: each word is taken out of
		// the labels' postings (nothing, when not there).
		ix.words.labels.remove(id, o)
		if ix.words.post.remove(id, o) {
			ix.words.release(id)
		}
	}
	for k := range ix.translated.keys {
		ix.translated.post.remove(uint32(k), o)
	}
	ix.onSale.Remove(o)
	ix.inStock.Remove(o)
	ix.garbage += v.end - int(ix.rec[o])
}

// compactAt is the garbage (bytes) under which a pool or an arena of
// terms is never compacted; a variable for the tests.
var compactAt = 1 << 16

// compactPool copies the live records to a new pool when most of the
// pool is garbage.
func (ix *Index) compactPool() {
	if ix.garbage < compactAt || 2*ix.garbage < len(ix.pool) {
		return
	}
	pool := make([]byte, 0, len(ix.pool)-ix.garbage+ix.garbage/8)
	var v view
	for o := range ix.live.Iterate {
		ix.decode(o, &v, withWords)
		start := len(pool)
		pool = append(pool, ix.pool[ix.rec[o]:v.end]...)
		ix.rec[o] = uint32(start)
	}
	ix.pool, ix.garbage = pool, 0
}

// Bytes estimates the memory the index holds, for a cache's budget.
func (ix *Index) Bytes() int64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n := int64(cap(ix.ids))*16 + int64(len(ix.byID))*idMapEntryBytes + int64(cap(ix.free)+cap(ix.rec))*4 + int64(cap(ix.pool)) +
		int64(cap(ix.price)+cap(ix.priceMax)+cap(ix.updated))*8 + int64(cap(ix.nameRank))*4
	for _, bm := range []*roaring.Bitmap{ix.live, ix.onSale, ix.inStock} {
		n += int64(bm.GetSizeInBytes()) + bitmapOverhead
	}
	for _, d := range ix.dicts() {
		n += d.bytes()
	}
	n += int64(cap(ix.optValKey))*4 + int64(cap(ix.optValText))*16 + int64(cap(ix.tree))*32 + ix.below.bytes() + ix.words.bytes()
	n += int64(cap(ix.vprod)+cap(ix.vdelta)+cap(ix.vfree))*4 + int64(len(ix.vwide))*mapEntryBytes + ix.vpost.bytes() +
		int64(ix.vstock.GetSizeInBytes()) + bitmapOverhead
	return n
}

// idMapEntryBytes is what an entry of the map of ids costs, about: a
// 16-byte key and a 4-byte value in a table kept at most 7/8 full.
const idMapEntryBytes = 28

// Typos returns the prefixes of the index's terms within typos of the
// folded word w, at most max, none starting with one of skip
// (fuzzy.Prefixes over the term dictionary: a Levenshtein automaton that
// seeks past what it rejects).
func (ix *Index) Typos(w string, typos, max int, skip []string) []string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return fuzzy.Prefixes(&ix.words, w, typos, max, skip...)
}
