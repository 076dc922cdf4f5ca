package catalog

import (
	"context"
	"strings"
	"unicode"

	"github.com/vitrine/vitrine"
)

// MaxWordProbes bounds the subsets of a query's words that fewerWords
// tries.
const MaxWordProbes = 64

// fewerWords returns, for a filter whose page is empty, false when some
// product holds all its words (the page is past the end), else the filter
// its pages read instead: with the largest subset of its words that some
// product under the filter holds, among subsets of one size those keeping
// the earlier words first (a shopper names the thing before what
// qualifies it), its words holding a digit always among them, up to
// MaxWordProbes tried; false when none. Every page of the query finds the
// same subset, as it asks the same questions of the same catalog.
func (db *Store) fewerWords(ctx context.Context, tenantID string, f vitrine.ProductFilter, typos func(stem, written string) []string) (vitrine.ProductFilter, bool, error) {
	holds := func(g vitrine.ProductFilter) (bool, error) {
		found, err := db.findProducts(ctx, tenantID, g.WithoutFacets().Page(1, nil), typos)
		return err == nil && len(found.Products) > 0, err
	}
	if f.After() != nil {
		if ok, err := holds(f); ok || err != nil {
			return f, false, err
		}
	}
	// A word holding a digit (of a SKU, a barcode, a size) is never
	// dropped: those are looked up exactly.
	var optional []int
	for i, w := range f.Words() {
		if strings.IndexFunc(w, unicode.IsDigit) < 0 {
			optional = append(optional, i)
		}
	}
	kept := len(f.Words()) - len(optional)
	probes := 0
	for size := len(optional) - 1; size >= 0; size-- {
		if size == 0 && kept == 0 {
			break
		}
		for subset := range combinations(len(optional), size) {
			if probes++; probes > MaxWordProbes {
				return f, false, nil
			}
			g := f.WithWordsOf(func(i int, w string) bool {
				if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
					return true
				}
				for _, j := range subset {
					if optional[j] == i {
						return true
					}
				}
				return false
			})
			if ok, err := holds(g); ok || err != nil {
				return g, ok, err
			}
		}
	}
	return f, false, nil
}

// combinations yields the subsets of size k of 0..n-1, each in order, in
// lexicographic order: those keeping the smaller indexes first.
func combinations(n, k int) func(yield func([]int) bool) {
	return func(yield func([]int) bool) {
		c := make([]int, k)
		for i := range c {
			c[i] = i
		}
		for {
			if !yield(c) {
				return
			}
			i := k - 1
			for i >= 0 && c[i] == n-k+i {
				i--
			}
			if i < 0 {
				return
			}
			c[i]++
			for j := i + 1; j < k; j++ {
				c[j] = c[j-1] + 1
			}
		}
	}
}
