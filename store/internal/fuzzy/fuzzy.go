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
// none that starts with skip (what the word matches already): for each
// term, its shortest
// prefix of at least as many characters as w that is within typos, or the
// term itself when shorter and within them. A product's word matches w
// with a typo when it starts with one of them ("jaket": jacket, which
// "jackets" starts with). Nothing when typos is not 1 or 2.
func Prefixes(d Dictionary, w string, typos, max int, skip ...string) []string {
	if typos < 1 || typos > 2 || w == "" {
		return nil
	}
	dfa, err := builders()[typos].BuildDfa(w, uint8(typos))
	if err != nil {
		return nil
	}
	least := utf8.RuneCountInString(w)
	_, n := utf8.DecodeRuneInString(w)
	lead := w[:n]
	var out []string
	from := lead
	for seeks := 0; seeks < MaxSeeks && len(out) < max; seeks++ {
		t, ok := d.Seek(from)
		if !ok || len(t) < len(lead) || t[:len(lead)] != lead {
			break
		}
		s, n, i := dfa.Start(), 0, 0
		match := -1
		for ; i < len(t); i++ {
			s = dfa.Accept(s, t[i])
			if !dfa.CanMatch(s) {
				break
			}
			if i+1 == len(t) || utf8.RuneStart(t[i+1]) {
				n++ // a character ends here
				if n >= least && dfa.IsMatch(s) {
					match = i + 1
					break
				}
			}
		}
		switch {
		case match < 0 && i == len(t) && dfa.IsMatch(s):
			match = len(t) // shorter than w, within typos of it
		case match < 0 && i == len(t):
			from = t + "\x00" // every prefix of t lives: the next term
			continue
		case match < 0:
			from = after(t[:i+1]) // no term starting so is within reach
			continue
		}
		p := t[:match]
		if !startsWithAny(p, skip) {
			out = append(out, p)
		}
		from = after(p)
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
