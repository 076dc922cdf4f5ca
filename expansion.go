package vitrine

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MatchTypo: a word of the catalog a typo or two away from the query's
// (Typos); the store adds these alternatives itself (ProductFilter.WithTypos).
const MatchTypo = MatchSynonym + 1

// MatchLevels is the number of levels a relevance search ranks matches
// at: 0 the query's words as written, 1 their stems (a clause's own
// terms), 2 synonyms (alternatives of kind MatchSynonym), 3 typos.
const MatchLevels = 4

// RankTiers is the number of relevance ranks at each level: the products
// whose name matches, then those whose name and label (vendor, type,
// tags) match, then those matching elsewhere (description, SKUs,
// barcodes, option values).
const RankTiers = 3

// Level is the alternative kind's level (MatchLevels).
func (k MatchKind) Level() int {
	if k == MatchTypo {
		return 3
	}
	return 2
}

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

// MaxTypoPrefixes bounds the typo alternatives of one query word.
const MaxTypoPrefixes = 8

// Written are the query's words as written (folded), one for each of
// Words: Written()[i] is the word whose stem is Words()[i].
func (f ProductFilter) Written() []string { return f.written }

// WithTypos returns f with, for each clause of one of the query's own
// words, the prefixes typos gives that word (its stem and the word as
// written) as alternatives of kind MatchTypo, at most MaxTypoPrefixes,
// none already among the clause's ways: the catalog's words a typo away
// ("braclet": bracelet). Apply it after WithExpansion, which makes the
// clauses anew.
func (f ProductFilter) WithTypos(typos func(stem, written string) []string) ProductFilter {
	clauses := slices.Clone(f.Clauses())
	for i, cl := range clauses {
		if len(cl.Terms) != 1 {
			continue
		}
		at := slices.Index(f.words, cl.Terms[0])
		if at < 0 {
			continue
		}
		cl.Alternatives = slices.Clone(cl.Alternatives)
		n := 0
		for _, p := range typos(f.words[at], f.written[at]) {
			if n == MaxTypoPrefixes || p == "" || slices.ContainsFunc(cl.Ways(), func(w []string) bool { return len(w) == 1 && w[0] == p }) {
				continue
			}
			cl.Alternatives = append(cl.Alternatives, Alternative{Terms: []string{p}, Kind: MatchTypo})
			n++
		}
		clauses[i] = cl
	}
	f.clauses = clauses
	return f
}

// Levels returns the query's clauses at each level of MatchLevels: at
// level 0, each of the query's own words as written (for a clause of
// several words, their stems); at level 1, the clauses' own terms; at 2,
// with their synonyms; at 3, with typos too. A product matches the
// query at a level when it matches every clause at it; at the last, it
// matches the query.
func (f ProductFilter) Levels() [MatchLevels][]Clause {
	var ls [MatchLevels][]Clause
	for _, cl := range f.Clauses() {
		own := Clause{Terms: cl.Terms}
		if len(cl.Terms) == 1 {
			if at := slices.Index(f.words, cl.Terms[0]); at >= 0 && at < len(f.written) {
				own.Terms = []string{f.written[at]}
			}
		}
		ls[0] = append(ls[0], own)
		for l := 1; l < MatchLevels; l++ {
			c := Clause{Terms: cl.Terms}
			for _, a := range cl.Alternatives {
				if a.Kind.Level() <= l {
					c.Alternatives = append(c.Alternatives, a)
				}
			}
			ls[l] = append(ls[l], c)
		}
	}
	return ls
}
