package facetindex

// Builder builds a company's index from a snapshot of its catalog, faster
// than puts one by one: terms are found by a hash while it adds, sorted
// once at the end. It is not safe for concurrent use.
type Builder struct{ ix *Index }

// NewBuilder starts a build of about n products. The products are best
// added in the order of their ids (ordinals then follow it), but any order
// gives the same answers.
func NewBuilder(n int) *Builder {
	ix := New()
	ix.words.build = make(map[string]uint32, n)
	ix.byID = make(map[[16]byte]uint32, n)
	ix.ids = make([][16]byte, 0, n)
	ix.rec = make([]uint32, 0, n)
	ix.price = make([]int64, 0, n)
	ix.priceMax = make([]int64, 0, n)
	ix.updated = make([]int64, 0, n)
	ix.nameRank = make([]uint32, 0, n)
	ix.pool = make([]byte, 0, 96*n) // a record of the benchmark's catalog: 87 bytes
	return &Builder{ix: ix}
}

// Add adds (or replaces) a product.
func (b *Builder) Add(p *Product) error { return b.ix.put(p) }

// SetCategories sets the category tree (see Index.SetCategories).
func (b *Builder) SetCategories(cats []Category) { b.ix.setCategories(cats) }

// Bytes returns the bytes of the index built so far, by its estimate.
func (b *Builder) Bytes() int64 { return b.ix.Bytes() }

// Finish returns the index, at sequence seq: the snapshot's.
func (b *Builder) Finish(seq uint64) *Index {
	ix := b.ix
	b.ix = nil
	ix.words.finish()
	for _, d := range ix.dicts() {
		d.post.optimize()
	}
	ix.below.optimize()
	ix.vpost.optimize()
	ix.live.RunOptimize()
	ix.rankNames()
	ix.seq = seq
	return ix
}
