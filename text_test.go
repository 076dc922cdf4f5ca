package vitrine

import (
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Fold's shortcut for ASCII text folds as the whole transformation does.
func TestFoldASCIIAsTheTransformation(t *testing.T) {
	full := func(s string) string {
		out, _, err := transform.String(transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), cases.Fold(), norm.NFC), s)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	var all []byte
	for b := 0; b < utf8.RuneSelf; b++ {
		all = append(all, byte(b))
	}
	for _, s := range []string{string(all), "Camisetas", "UNISSEX Adulto", "NB-DELL-5440", "", "Kelvin K"} {
		if got, want := Fold(s), full(s); got != want {
			t.Errorf("Fold(%q) = %q; the transformation gives %q", s, got, want)
		}
	}
}
