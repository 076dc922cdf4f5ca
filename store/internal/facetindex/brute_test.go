package facetindex

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vitrine/vitrine"
)

// brute answers what the index answers, written plainly from the store's
// SQL (store/internal/catalog: list.go's filter, facets.go's facets and
// facetCount), product by product.
type brute struct {
	products map[string]*Product
	cats     []Category
}

func newBrute() *brute { return &brute{products: map[string]*Product{}} }

// categoryAndBelow is the store's recursive query: the category and every
// one under it, at any depth; none when the tree has no such category.
func (b *brute) categoryAndBelow(id string) []string {
	if !slices.ContainsFunc(b.cats, func(c Category) bool { return c.ID == id }) {
		return nil
	}
	out := []string{id}
	for i := 0; i < len(out); i++ {
		for _, c := range b.cats {
			if c.ParentID == out[i] && !slices.Contains(out, c.ID) {
				out = append(out, c.ID)
			}
		}
	}
	return out
}

func summary(p *Product) (price, priceMax, stock int64, sale bool) {
	for i, v := range p.Variants {
		if i == 0 {
			price, priceMax = v.Price, v.Price
		}
		price, priceMax = min(price, v.Price), max(priceMax, v.Price)
		stock += v.Stock
		if v.CompareAtPrice != nil && *v.CompareAtPrice > v.Price {
			sale = true
		}
	}
	return
}

// slot returns what the variants table holds in place i (0 to 2) of a
// variant: the option's key and the variant's value, empty past the
// product's options.
func slot(p *Product, v Variant, i int) (key, name, val string) {
	if i >= len(p.Options) {
		return "", "", ""
	}
	if i < len(v.Values) {
		val = v.Values[i]
	}
	return vitrine.OptionKey(p.Options[i]), p.Options[i], val
}

func micro(t time.Time) int64 { return t.UnixMicro() }

// folded memoizes vitrine.Fold, the brute force's one cost that matters.
var folded sync.Map

func fold(s string) string {
	if f, ok := folded.Load(s); ok {
		return f.(string)
	}
	f := vitrine.Fold(s)
	folded.Store(s, f)
	return f
}

func (b *brute) matches(p *Product, q Query) bool {
	f := q.Filter
	if f.Status != "" && p.Status != f.Status {
		return false
	}
	if f.Vendor != "" && fold(p.Vendor) != fold(string(f.Vendor)) {
		return false
	}
	if f.ProductType != "" && fold(p.ProductType) != fold(string(f.ProductType)) {
		return false
	}
	if f.Since != nil && micro(p.UpdatedAt) < micro(*f.Since) {
		return false
	}
	if f.Untranslated != "" && slices.Contains(p.Translated, f.Untranslated) {
		return false
	}
	price, priceMax, stock, sale := summary(p)
	if f.OnSale != nil && sale != *f.OnSale {
		return false
	}
	for _, t := range f.Tags {
		if !slices.ContainsFunc(p.Tags, func(pt string) bool { return vitrine.TagKey(pt) == vitrine.TagKey(string(t)) }) {
			return false
		}
	}
	if f.CategoryID != "" || len(q.Categories) > 0 {
		ids := q.Categories
		if len(ids) == 0 {
			ids = b.categoryAndBelow(f.CategoryID)
		}
		if !slices.ContainsFunc(p.Categories, func(c string) bool { return slices.Contains(ids, c) }) {
			return false
		}
	}
	for k, v := range f.Attributes {
		if pv, ok := p.Attributes[k]; !ok || pv != vitrine.AttributeString(v) {
			return false
		}
	}
	if (f.MinMinor != nil || f.MaxMinor != nil) && p.Currency != string(f.Currency) {
		return false
	}
	if len(f.Options) == 0 {
		if f.MinMinor != nil && priceMax < *f.MinMinor || f.MaxMinor != nil && price > *f.MaxMinor {
			return false
		}
		if f.InStock != nil && (stock > 0) != *f.InStock {
			return false
		}
	} else if !slices.ContainsFunc(p.Variants, func(v Variant) bool {
		for name, val := range f.Options {
			hit := false
			for i := range 3 {
				k, _, sv := slot(p, v, i)
				hit = hit || k == vitrine.OptionKey(name) && sv == val
			}
			if !hit {
				return false
			}
		}
		return (f.MinMinor == nil || v.Price >= *f.MinMinor) && (f.MaxMinor == nil || v.Price <= *f.MaxMinor) &&
			(f.InStock == nil || (v.Stock > 0) == *f.InStock)
	}) {
		return false
	}
	return holds(p.Words, f.clauses())
}

// holds reports whether words match every clause: hold a word starting
// with each term of one of its ways.
func holds(words []string, clauses []vitrine.Clause) bool {
	for _, cl := range clauses {
		if !slices.ContainsFunc(cl.Ways(), func(terms []string) bool {
			for _, w := range terms {
				if !slices.ContainsFunc(words, func(pw string) bool { return strings.HasPrefix(pw, w) }) {
					return false
				}
			}
			return true
		}) {
			return false
		}
	}
	return true
}

// holds reports whether product id's words match every clause.
func (b *brute) holds(id string, clauses []vitrine.Clause) bool {
	return holds(b.products[id].Words, clauses)
}

// nameMatches reports whether the name of product id matches every
// clause: its name's words that are among its words.
func (b *brute) nameMatches(id string, clauses []vitrine.Clause) bool {
	p := b.products[id]
	var names []string
	for _, nw := range p.NameWords {
		if slices.Contains(p.Words, nw) {
			names = append(names, nw)
		}
	}
	return holds(names, clauses)
}

// labelMatches reports whether the name's and label's words of product
// id, those among its words, match every clause.
func (b *brute) labelMatches(id string, clauses []vitrine.Clause) bool {
	p := b.products[id]
	var words []string
	for _, w := range append(slices.Clone(p.NameWords), p.LabelWords...) {
		if slices.Contains(p.Words, w) {
			words = append(words, w)
		}
	}
	return holds(words, clauses)
}

// match returns the filter's products, by id.
func (b *brute) match(q Query) []string {
	out := []string{}
	for id, p := range b.products {
		if b.matches(p, q) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// bruteCount is the store's facetCount: a value's form as first read,
// and a product counted once per value.
type bruteCount struct {
	shown map[string]string
	count map[string]int64
	last  map[string]string
	name  string
}

func (fc *bruteCount) add(key, shown, product string) {
	if _, ok := fc.shown[key]; !ok {
		fc.shown[key] = shown
	}
	if fc.last[key] == product {
		return
	}
	fc.last[key] = product
	fc.count[key]++
}

func (fc *bruteCount) values(byID bool) []vitrine.FacetValue {
	keys := make([]string, 0, len(fc.count))
	for k := range fc.count {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if fc.count[a] != fc.count[b] {
			if fc.count[a] > fc.count[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	if len(keys) > vitrine.MaxFacetValues {
		keys = keys[:vitrine.MaxFacetValues]
	}
	out := make([]vitrine.FacetValue, len(keys))
	for i, k := range keys {
		out[i] = vitrine.FacetValue{Value: fc.shown[k], Count: fc.count[k]}
		if byID {
			out[i] = vitrine.FacetValue{Value: k, Name: fc.shown[k], Count: fc.count[k]}
		}
	}
	return out
}

// facets reads the filter's products (ids) in the order of their ids, as the
// store's facet queries read their rows, and counts them.
func (b *brute) facets(ids []string, names []vitrine.FacetName) *vitrine.Facets {
	out := &vitrine.Facets{Values: map[vitrine.FacetName][]vitrine.FacetValue{}}
	for _, name := range names {
		if name == vitrine.FacetOptions {
			out.Options = map[string][]vitrine.FacetValue{}
		} else {
			out.Values[name] = []vitrine.FacetValue{}
		}
	}
	if len(ids) == 0 {
		return out
	}
	counts := map[string]*bruteCount{}
	count := func(facet, key, shown, product string) *bruteCount {
		fc := counts[facet]
		if fc == nil {
			fc = &bruteCount{shown: map[string]string{}, count: map[string]int64{}, last: map[string]string{}}
			counts[facet] = fc
		}
		fc.add(key, shown, product)
		return fc
	}
	type node struct{ parent, name string }
	tree := map[string]node{}
	for _, c := range b.cats {
		tree[c.ID] = node{c.ParentID, c.Name}
	}
	for _, id := range ids {
		p := b.products[id]
		if k := fold(p.Vendor); k != "" {
			count(vitrine.FacetVendor, k, p.Vendor, id)
		}
		if k := fold(p.ProductType); k != "" {
			count(vitrine.FacetProductType, k, p.ProductType, id)
		}
		count(vitrine.FacetStatus, string(p.Status), string(p.Status), id)
		var keys []string // a product's tags are a set by key: its first tag of a key
		for _, t := range p.Tags {
			if k := vitrine.TagKey(t); !slices.Contains(keys, k) {
				keys = append(keys, k)
				count(vitrine.FacetTags, k, t, id)
			}
		}
		for _, v := range p.Variants {
			for i := range 3 {
				if k, name, val := slot(p, v, i); k != "" {
					if fc := count("options:"+k, val, val, id); fc.name == "" {
						fc.name = name
					}
				}
			}
		}
		for _, c := range p.Categories {
			for cid, n := c, 0; cid != "" && n < 64; cid, n = tree[cid].parent, n+1 {
				if cat, ok := tree[cid]; ok {
					count(vitrine.FacetCategories, cid, cat.name, id)
				}
			}
		}
	}
	for facet, fc := range counts {
		vs := fc.values(facet == vitrine.FacetCategories)
		if _, ok := strings.CutPrefix(facet, "options:"); ok {
			if slices.Contains(names, vitrine.FacetOptions) {
				out.Options[fc.name] = vs
			}
			continue
		}
		if slices.Contains(names, vitrine.FacetName(facet)) {
			out.Values[vitrine.FacetName(facet)] = vs
		}
	}
	return out
}

// page is the store's keyset page (store/internal/catalog/list.go,
// listProducts): the products of ids ordered by the sort's column
// (name_key, price, updated_at; none for created_at) and then id, both
// descending for a descending sort, those after the cursor's (column, id),
// the first limit.
// Text compares as the databases compare it, byte by byte; ids by their
// lower-case text.
func (b *brute) page(ids []string, p Page) []string {
	key := func(id string) (string, int64) {
		pr := b.products[id]
		switch p.Sort.Key() {
		case "name":
			return pr.NameKey, 0
		case "price":
			price, _, _, _ := summary(pr)
			return "", price
		case "updated_at":
			return "", micro(pr.UpdatedAt)
		}
		return "", 0
	}
	cmpKeys := func(n1 string, x1 int64, id1 string, n2 string, x2 int64, id2 string) int {
		c := strings.Compare(n1, n2)
		if c == 0 {
			c = cmpInt(x1, x2)
		}
		if c == 0 {
			c = strings.Compare(id1, id2)
		}
		if p.Sort.Desc() {
			c = -c
		}
		return c
	}
	var out []string
	for _, id := range ids {
		if a := p.After; a != nil {
			n, x := key(id)
			var an string
			var ax int64
			switch p.Sort.Key() {
			case "name":
				an = a.Name
			case "price":
				ax = a.Price
			case "updated_at":
				ax = micro(a.Updated)
			}
			if cmpKeys(n, x, id, an, ax, a.ID) <= 0 {
				continue
			}
		}
		out = append(out, id)
	}
	slices.SortFunc(out, func(i, j string) int {
		ni, xi := key(i)
		nj, xj := key(j)
		return cmpKeys(ni, xi, i, nj, xj, j)
	})
	if len(out) > p.Limit {
		out = out[:p.Limit]
	}
	return out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// keyOf is the product's key in the page's sort, as the store's cursor holds it.
func (b *brute) keyOf(id string, s vitrine.ProductSort) *vitrine.ProductKey {
	pr := b.products[id]
	k := &vitrine.ProductKey{ID: id}
	switch s.Key() {
	case "name":
		k.Name = pr.NameKey
	case "price":
		k.Price, _, _, _ = summary(pr)
	case "updated_at":
		k.Updated = pr.UpdatedAt
	}
	return k
}
