package vitrine

import (
	"strings"
	"testing"
)

func TestAnalyzer_QueryTerms(t *testing.T) {
	for _, c := range []struct{ locale, query, want string }{
		{"pt-BR", "Camisetas", "camiset"},
		{"pt-BR", "um boné para o sol", "bon sol"},
		{"pt-BR", "fones de ouvido", "fon ouv"},
		{"pt-BR", "NB-DELL-5440", "nb dell 5440"},
		{"pt-BR", "camiseta camisetas", "camiset"},
		{"pt-BR", "notebooks mousepads", "notebook mousepad"}, // English nouns' plurals
		{"pt-BR", "lápis ônibus", "lap onibus"},
		{"es", "las lámparas de mesa", "lamp mes"},
		{"en", "gold necklaces for women", "gold necklac women"},
		{"en", "jewelry", "jewelr"}, // Snowball's jewelri, cut to what it shares with the word
		{"en-US", "jackets", "jacket"},
		{"fr", "camisetas", "camiset"}, // a language without an analyzer: Portuguese's
	} {
		got, stopOnly := AnalyzerFor(c.locale).QueryTerms(c.query)
		if strings.Join(got, " ") != c.want || stopOnly {
			t.Errorf("%s %q: %q %v, want %q", c.locale, c.query, got, stopOnly, c.want)
		}
	}
	for _, q := range []string{"o de para", "the of"} {
		if got, stopOnly := AnalyzerFor("en").QueryTerms(q); q == "the of" && (!stopOnly || len(got) != 0) {
			t.Errorf("%q: %q %v, want stop words alone", q, got, stopOnly)
		}
		if got, stopOnly := AnalyzerFor("pt-BR").QueryTerms(q); q == "o de para" && (!stopOnly || len(got) != 0) {
			t.Errorf("%q: %q %v, want stop words alone", q, got, stopOnly)
		}
	}
	if _, stopOnly := AnalyzerFor("pt").QueryTerms("  "); stopOnly {
		t.Error("an empty query is not one of stop words")
	}
}
