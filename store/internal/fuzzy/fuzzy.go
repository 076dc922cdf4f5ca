// Package fuzzy finds the words of a dictionary a typo or two away from a
// query's word: a Levenshtein automaton (github.com/blevesearch/vellum's,
// transpositions counted as one typo) run over a sorted dictionary, which
// it seeks past every prefix the automaton rejects rather than reading
// each term. The facet index's term dictionary is one; a sorted slice
// (SQL's words, when no index is at hand) another.
package fuzzy

import (
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/vellum/levenshtein"
)

// Dictionary is a sorted set of terms.
type Dictionary interface {
	// Seek returns the least term at or after from in byte order; false
	// past the last.
	Seek(from string) (string, bool)
}

// MaxSeeks bounds the seeks of one word's walk: the automaton of a short
// word with two typos accepts many prefixes, and a dictionary of a
// million terms is never read whole.
const MaxSeeks = 4096

// builders build the automata, one for each distance (building a builder
// costs milliseconds: it is done once).
var builders = sync.OnceValue(func() [3]*levenshtein.LevenshteinAutomatonBuilder {
	var b [3]*levenshtein.LevenshteinAutomatonBuilder
	for d := 1; d <= 2; d++ {
		lb, err := levenshtein.NewLevenshteinAutomatonBuilder(uint8(d), true)
		if err != nil {
			panic(err) // distances 1 and 2 are the package's own tests'
		}
		b[d] = lb
	}
	return b
})

// Prefixes returns, in byte order, at most max prefixes of the
// dictionary's terms within typos (1 or 2) of w that start with w's
// first character (a shopper rarely mistypes it, and "bone" is no "fone"),
// none that starts with skip (what the word matches already): the terms
// within typos of w, each as a prefix (a term that another found starts
// with is left out). A product's word matches w with a typo when it
// starts with one of them ("jaket": jacket, which "jackets" starts with).
// Whole terms are compared, not their prefixes: "maca" is not "meca", the
// start of "mecanico". Nothing when typos is not 1 or 2.
func Prefixes(d Dictionary, w string, typos, max int, skip ...string) []string {
	if typos < 1 || typos > 2 || w == "" {
		return nil
	}
	dfa, err := builders()[typos].BuildDfa(w, uint8(typos))
	if err != nil {
		return nil
	}
	_, n := utf8.DecodeRuneInString(w)
	lead := w[:n]
	var out []string
	from := lead
	for seeks := 0; seeks < MaxSeeks && len(out) < max; seeks++ {
		t, ok := d.Seek(from)
		if !ok || len(t) < len(lead) || t[:len(lead)] != lead {
			break
		}
		s, i := dfa.Start(), 0
		for ; i < len(t); i++ {
			if s = dfa.Accept(s, t[i]); !dfa.CanMatch(s) {
				break
			}
		}
		switch {
		case i < len(t):
			from = after(t[:i+1]) // no term starting so is within reach
			continue
		case !dfa.IsMatch(s):
			from = t + "\x00" // a longer term may be: the next one
			continue
		}
		if !startsWithAny(t, skip) {
			out = append(out, t)
		}
		from = after(t) // the terms that start with t match as t does
	}
	return out
}

// after returns the least string in byte order above every string that
// starts with p: p with its last byte below 0xff incremented, what
// follows cut.
func after(p string) string {
	b := []byte(p)
	for len(b) > 0 && b[len(b)-1] == 0xff {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return "\xff\xff\xff\xff" // past every word (valid UTF-8 has no 0xff)
	}
	b[len(b)-1]++
	return string(b)
}

func startsWithAny(p string, prefixes []string) bool {
	for _, s := range prefixes {
		if len(p) >= len(s) && p[:len(s)] == s {
			return true
		}
	}
	return false
}

// Sorted is a Dictionary of sorted, distinct terms.
type Sorted []string

// Seek returns the least term at or after from.
func (s Sorted) Seek(from string) (string, bool) {
	lo, hi := 0, len(s)
	for lo < hi {
		m := (lo + hi) / 2
		if s[m] < from {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(s) {
		return "", false
	}
	return s[lo], true
}
