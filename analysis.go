package vitrine

import (
	"strings"
	"unicode"

	snowball "github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/spanish"
	"golang.org/x/text/language"
)

// DefaultLocale is the locale a company's catalog is written in until it
// says otherwise: every company's today.
const DefaultLocale = "pt-BR"

// Analyzer turns a shopper's query into the terms a search matches, in one
// language: the query's Words without that language's stop words, each cut
// to its stem (Snowball's), which a product's word must start with. A
// product's own words are indexed as they are (Words): a stem matches
// them as a prefix, so "camisetas" (stem camiset) finds "Camiseta" and
// "teclados" (tecl) "Teclado", with no stems stored in either database.
type Analyzer struct {
	// Lang is the language's base tag: pt, es or en.
	Lang string
	stem func(*snowball.Env) bool
	stop map[string]bool
	// loanPlurals says that a word the stemmer left whole, ending in a
	// consonant and s, is a borrowed word's plural, its s dropped:
	// Portuguese and Spanish plurals end in a vowel and s, or in es,
	// which Snowball strips, while catalogs in them are full of English
	// nouns ("notebooks", "mousepads").
	loanPlurals bool
}

var analyzers = map[string]*Analyzer{
	"pt": {Lang: "pt", stem: portuguese.Stem, stop: stopSet(stopPT), loanPlurals: true},
	"es": {Lang: "es", stem: spanish.Stem, stop: stopSet(stopES), loanPlurals: true},
	"en": {Lang: "en", stem: english.Stem, stop: stopSet(stopEN)},
}

// AnalyzerFor returns the analyzer of a locale tag's language ("pt-BR",
// "es", "en-US"); Portuguese's for a language without one of its own or a
// tag that does not parse.
func AnalyzerFor(locale string) *Analyzer {
	if tag, err := language.Parse(locale); err == nil {
		base, _ := tag.Base()
		if a, ok := analyzers[base.String()]; ok {
			return a
		}
	}
	return analyzers["pt"]
}

// Stopword reports whether the folded word w is one of the language's stop
// words.
func (a *Analyzer) Stopword(w string) bool { return a.stop[w] }

// Stem returns the stem of the folded word w as a prefix of w that the
// words of its forms start with: Snowball's stem, cut to what it shares
// with w (English "jewelry" stems to jewelri: jewelr). A word holding a
// digit (a SKU's, a barcode's, a size) is its own stem.
func (a *Analyzer) Stem(w string) string {
	if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
		return w
	}
	env := snowball.NewEnv(w)
	a.stem(env)
	s := env.Current()
	if a.loanPlurals && s == w && len(w) > 3 && w[len(w)-1] == 's' && !strings.ContainsRune("aeiouys", rune(w[len(w)-2])) {
		s = w[:len(w)-1]
	}
	n := 0
	for n < len(s) && n < len(w) && s[n] == w[n] {
		n++
	}
	for n > 0 && n < len(w) && !isRuneStart(w[n]) {
		n-- // cut on a character's boundary
	}
	if n == 0 {
		return w
	}
	return w[:n]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// QueryTerms returns the terms of a query: its Words less the stop words,
// each stemmed, each once, without those that another term starts with,
// in their order. stopOnly says that the query held words, every one a
// stop word (a query the caller refuses: it would match everything).
func (a *Analyzer) QueryTerms(query string) (terms []string, stopOnly bool) {
	terms, _, stopOnly = a.TermsWritten(query)
	return terms, stopOnly
}

// TermsWritten returns QueryTerms' terms and, for each, the word it is
// the stem of, as written (folded).
func (a *Analyzer) TermsWritten(query string) (terms, written []string, stopOnly bool) {
	ws := Words(query)
	var kept, stems []string
	for _, w := range ws {
		if !a.stop[w] {
			kept, stems = append(kept, w), append(stems, a.Stem(w))
		}
	}
	for _, i := range prefixFreeIndexes(stems) {
		terms, written = append(terms, stems[i]), append(written, kept[i])
	}
	return terms, written, len(ws) > 0 && len(kept) == 0
}

func stopSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[Fold(w)] = true
	}
	return m
}

// The stop words: articles, prepositions and their contractions,
// conjunctions, pronouns; short lists, as a shopper's query holds few.
// (Folded: "é", "à" and "e", "a" are one.)
const (
	stopPT = `a o as os um uma uns umas de do da dos das em no na nos nas num numa por pelo pela pelos pelas para pra pro
		com sem sob sobre ao aos à às e ou mas que se como meu minha meus minhas seu sua seus suas teu tua
		este esta estes estas esse essa esses essas isto isso aquele aquela eu tu ele ela nos vos eles elas me te lhe
		é ser são muito mais`
	stopES = `el la los las un una unos unas de del al en por para con sin sobre y o u pero que se como mi mis tu tus su sus
		este esta estos estas ese esa esos esas yo él ella nosotros ellos ellas me te le es son muy más`
	stopEN = `a an the of in on at to for from by with without and or but that this these those my your his her its our their
		i me you he she it we they is are be as so very`
)
