package vitrine

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Fold returns the form of s that searches and case-insensitive keys compare:
// case folded and accents removed, so "Maçã" and "MACA" fold alike. It is
// computed here, not in SQL, so that both databases see the same keys.
func Fold(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), cases.Fold(), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		return strings.ToLower(s)
	}
	return out
}

// Words splits s into the words that search matches: folded (see Fold),
// cut at anything that is neither a letter nor a digit. Both databases
// index these very words, so that a query matches the same products on
// each: "Monitor LG UltraWide 29\"" holds monitor, lg, ultrawide and 29;
// "NB-DELL-5440" holds nb, dell and 5440.
func Words(s string) []string {
	return strings.FieldsFunc(Fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
