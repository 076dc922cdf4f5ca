package vitrine

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Fold returns the form of s that searches and case-insensitive keys compare:
// case folded and accents removed, so "Maçã" and "MACA" fold alike. It is
// computed here, not in SQL, so that both databases see the same keys.
func Fold(s string) string {
	if isASCII(s) {
		// No marks to remove, no composition to undo, and ASCII's case
		// folding is its lower case: the same answer, at a fraction of the
		// cost (a feed folds each product's type and attributes).
		return strings.ToLower(s)
	}
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), cases.Fold(), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		return strings.ToLower(s)
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Words splits s into the words that search matches: folded (see Fold),
// cut at anything that is neither a letter nor a digit. Both databases
// index these very words, so that a query matches the same products on
// each: "Monitor LG UltraWide 29\"" holds monitor, lg, ultrawide and 29;
// "NB-DELL-5440" holds nb, dell and 5440.
func Words(s string) []string {
	return strings.FieldsFunc(Fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// MaxSearchWords bounds the words of one search: each costs the database
// an index lookup and a condition on every product it reads.
const MaxSearchWords = 10

// SearchWords returns the words of a search query: its Words, each once,
// without those that another word starts with (a product holding a word
// that starts with "note" holds one that starts with "no"), in their order.
func SearchWords(s string) []string { return prefixFree(Words(s)) }

// prefixFree returns ws each once, without those that another starts
// with, in their order.
func prefixFree(ws []string) []string {
	out := ws[:0:0]
	for _, i := range prefixFreeIndexes(ws) {
		out = append(out, ws[i])
	}
	return out
}

// prefixFreeIndexes returns the indexes of prefixFree's words in ws.
func prefixFreeIndexes(ws []string) []int {
	var out []int
next:
	for i, w := range ws {
		for j, o := range ws {
			if j != i && strings.HasPrefix(o, w) && (len(o) > len(w) || j < i) {
				continue next
			}
		}
		out = append(out, i)
	}
	return out
}

// ValidateText checks a short text field: valid UTF-8, no NUL, at most max
// characters; it returns it trimmed.
func ValidateText(field, s string, max int) (string, error) {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) {
		return "", Invalid(field, "%s must be valid UTF-8", field)
	}
	if strings.ContainsRune(s, 0) {
		return "", Invalid(field, "%s must not contain NUL characters", field)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return "", Invalid(field, "%s is %d characters long; the limit is %d", field, n, max)
	}
	return s, nil
}

// Clip returns s cut to at most limit bytes, on a character's boundary,
// with "…" at the end when it was cut.
func Clip(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	const ellipsis = "…"
	n := limit - len(ellipsis)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:max(n, 0)] + ellipsis
}
