package shopwindow

import (
	"strings"

	"github.com/vitrine/vitrine"
)

// The variant a search features is the one its query names, when it
// names one: by its SKU ("CAM-DEV-PR-M"), or by words of its option
// values ("camiseta preta" names the black ones); among several named
// alike, and when none is, the window's rule for a product as a whole
// (featured). A shopper who asked for the black shirt is shown the black
// shirt, its price and its availability.

// namedVariant is the variant of p that query names, within the filter;
// "" when it names none.
func namedVariant(p *vitrine.Product, fl *filter, query string) string {
	query = strings.TrimSpace(query)
	if query == "" {
		return ""
	}
	var in []*vitrine.Variant
	for _, v := range p.Variants {
		if fl.keepsVariant(v) {
			in = append(in, v)
		}
	}
	key := vitrine.SKUKey(query)
	for _, v := range in {
		if v.SKU != "" && vitrine.SKUKey(v.SKU) == key {
			return v.ID
		}
	}
	// The query's terms as the search read them ("camisetas pretas": the
	// black one); the search checked the query already.
	words, _ := vitrine.QueryWords(query, fl.locale)
	best, named := 0, []*vitrine.Variant(nil)
	for _, v := range in {
		n := optionWordsMatched(p, v, words)
		switch {
		case n > best:
			best, named = n, []*vitrine.Variant{v}
		case n == best && n > 0:
			named = append(named, v)
		}
	}
	if best == 0 || len(named) == len(in) {
		return "" // the query names no variant more than another
	}
	among := *p
	among.Variants = named
	return featured(&among, fl)
}

// optionWordsMatched counts the query's words that start a word of one
// of the variant's option values, as a search matches words.
func optionWordsMatched(p *vitrine.Product, v *vitrine.Variant, words []string) int {
	var vals []string
	for _, o := range p.Options {
		vals = append(vals, vitrine.Words(v.Options[o.Name])...)
	}
	n := 0
	for _, w := range words {
		for _, val := range vals {
			if strings.HasPrefix(val, w) {
				n++
				break
			}
		}
	}
	return n
}
