package vitrine

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MatchKind is how a product's word matches a word of a query: the word
// as written, its stem, a synonym the company taught, or a word of the
// catalog a typo or two away. A search ranks the kinds by their Level.
type MatchKind uint8

// The kinds of match, from the closest.
const (
	MatchExact MatchKind = iota
	MatchStem
	MatchSynonym
	MatchTypo
)

// MatchLevels is the number of levels the kinds rank at (Level).
const MatchLevels = 3

// Level is the kind's place in a search's rank: 0 the word as written,
// 1 a stem or a synonym, 2 a typo.
func (k MatchKind) Level() int {
	switch k {
	case MatchExact:
		return 0
	case MatchStem, MatchSynonym:
		return 1
	}
	return 2
}

func (k MatchKind) String() string {
	return [...]string{"exact", "stem", "synonym", "typo"}[min(int(k), 3)]
}

// Alternative is a form a product's word takes to match a query's word:
// a product's word (vitrine.Words) matches when it starts with Prefix.
type Alternative struct {
	Prefix string
	Kind   MatchKind
}

// QueryTerm is a word of a query and the alternatives that match it: the
// word itself first (MatchExact), then its stem when shorter, then what an
// Expander added (synonyms, typos). A product matches the term when one
// of its words starts with one of the alternatives' prefixes.
type QueryTerm struct {
	// Word is the query's word, folded (Fold).
	Word         string
	Alternatives []Alternative
}

// Stem is the prefix the term's stem matches by: its shortest of kind
// MatchExact or MatchStem.
func (t QueryTerm) Stem() string {
	s := t.Word
	for _, a := range t.Alternatives {
		if a.Kind <= MatchStem && len(a.Prefix) < len(s) {
			s = a.Prefix
		}
	}
	return s
}

// Prefixes returns the prefixes of the term's alternatives of level up
// to level, each once, without those that another starts (a product's
// word that starts with "camiseta" starts with "camiset"), in their order.
func (t QueryTerm) Prefixes(level int) []string {
	var ps []string
	for _, a := range t.Alternatives {
		if a.Kind.Level() <= level && a.Prefix != "" {
			ps = append(ps, a.Prefix)
		}
	}
	return shortestPrefixes(ps)
}

// shortestPrefixes returns ps each once, without those that another
// starts, in their order.
func shortestPrefixes(ps []string) []string {
	out := ps[:0:0]
next:
	for i, p := range ps {
		for j, o := range ps {
			if j != i && strings.HasPrefix(p, o) && (len(p) > len(o) || j < i) {
				continue next
			}
		}
		out = append(out, p)
	}
	return out
}

// An Expander returns alternatives of a query's term (synonyms the
// company taught, words of the catalog a typo away), each a folded
// prefix of the kind it says; ProductFilter.Expand adds them. It is the
// one seam through which a search learns other forms of a word.
type Expander func(t QueryTerm) []Alternative

// Typos returns the number of typos a search forgives in the folded word
// w, as Algolia does: one from 4 characters, two from 8; none in a word
// holding a digit (a SKU's, a barcode's, a size: those match exactly).
func Typos(w string) int {
	if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
		return 0
	}
	switch n := utf8.RuneCountInString(w); {
	case n >= 8:
		return 2
	case n >= 4:
		return 1
	}
	return 0
}

// MaxAlternatives bounds the alternatives an Expander adds to a term: each
// costs the search a condition on the products it reads.
const MaxAlternatives = 16
