package facetindex

import "slices"

// The category tree: which category is under which, and the products
// each counts (in it or in one under it).

type node struct {
	parent uint32 // noNode at a root
	in     bool   // a category of the tree (not only an id a product names)
	name   string
}

const noNode = ^uint32(0)

// maxDepth is how many categories a product counts in along a path up the
// tree: its own and 63 above, as the store's facet counted them.
const maxDepth = 64

// SetCategories sets the company's category tree: the facet counts a
// product in its categories and those above them, and a filter by a
// category id alone (without the ids under it) finds those under it here.
func (ix *Index) SetCategories(cats []Category) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.setCategories(cats)
}

// growTree makes the tree as long as the categories' dictionary.
func (ix *Index) growTree() {
	for len(ix.tree) < len(ix.cats.keys) {
		ix.tree = append(ix.tree, node{parent: noNode})
	}
}

// counted returns the categories a product in cats counts in: each of
// them and those above it, each once, up to maxDepth along a path, as
// long as the path is in the tree.
func (ix *Index) counted(cats []uint32, dst []uint32) []uint32 {
	dst = dst[:0]
	for _, c := range cats {
		for n := 0; n < maxDepth && c != noNode && int(c) < len(ix.tree) && ix.tree[c].in; n++ {
			if !slices.Contains(dst, c) {
				dst = append(dst, c)
			}
			c = ix.tree[c].parent
		}
	}
	return dst
}

func (ix *Index) setCategories(cats []Category) {
	for i := range ix.tree {
		ix.tree[i] = node{parent: noNode}
	}
	for _, c := range cats {
		k := ix.cats.intern(c.ID)
		parent := noNode
		if c.ParentID != "" {
			parent = ix.cats.intern(c.ParentID)
		}
		ix.growTree()
		ix.tree[k] = node{parent: parent, in: true, name: c.Name}
	}
	ix.below = postings{}
	var v view
	for o := range ix.live.Iterate {
		ix.decode(o, &v, facetsOnly)
		ix.anc = ix.counted(v.cats, ix.anc)
		for _, c := range ix.anc {
			ix.below.add(c, o)
		}
	}
}

// below returns the category of key k and every one under it, without
// bound of depth (as the store's filter resolves a category id).
func (ix *Index) under(k uint32) []uint32 {
	if int(k) >= len(ix.tree) || !ix.tree[k].in {
		return nil
	}
	children := map[uint32][]uint32{}
	for c, n := range ix.tree {
		if n.in && n.parent != noNode {
			children[n.parent] = append(children[n.parent], uint32(c))
		}
	}
	out := []uint32{k}
	seen := map[uint32]bool{k: true}
	for i := 0; i < len(out); i++ {
		for _, c := range children[out[i]] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}
