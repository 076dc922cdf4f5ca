package vitrine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/text/language"
)

// Limits of a company's synonyms.
const (
	// MaxSynonyms bounds a company's synonyms: its groups and one-way
	// mappings, in every locale.
	MaxSynonyms = 1000
	// MaxSynonymWords bounds the words (or phrases) of one group, and
	// those one word of a one-way mapping finds.
	MaxSynonymWords = 20
	// MaxSynonymLength bounds a word or phrase of a synonym, in
	// characters.
	MaxSynonymLength = 50
	// MaxSynonymPhrase bounds the words of one phrase ("fones de ouvido"
	// is three).
	MaxSynonymPhrase = 4
	// MaxAlternatives bounds the alternatives one query's clauses take
	// together: each costs the search a condition.
	MaxAlternatives = 32
)

// A Synonym is one of a company's synonyms, in one locale or in all: a
// group (From empty), each of whose Words finds every other ("sofa",
// "couch", "settee"); or a one-way mapping, From finding Words but none of
// them From ("lamp" finds "light"). A word may be a phrase ("fones de
// ouvido"). A query's words match a synonym's as they match a product's:
// analyzed (stemmed, folded), so that "sofas" finds what "couch" does.
type Synonym struct {
	TenantID string
	// Locale is the BCP 47 tag of the language the synonym applies to
	// ("pt-BR", "en"); empty, every language.
	Locale    string
	From      string
	Words     []string
	UpdatedAt time.Time
}

// NewSynonym checks a group (from empty) or a one-way mapping and returns
// it in its one form: its texts trimmed, its words each once (as folded),
// its locale's tag canonical. field names it in errors.
func NewSynonym(field, locale, from string, words []string) (*Synonym, error) {
	loc, err := SynonymLocale(locale)
	if err != nil {
		return nil, err
	}
	s := &Synonym{Locale: loc}
	an := AnalyzerFor(cmpOr(loc, DefaultLocale))
	phrase := func(f, w string) (string, error) {
		w, err := ValidateText(f, w, MaxSynonymLength)
		if err != nil {
			return "", err
		}
		ws := Words(w)
		switch {
		case len(ws) == 0:
			return "", Invalid(f, "%s must hold a letter or a digit; got %q", f, w)
		case len(ws) > MaxSynonymPhrase:
			return "", Invalid(f, "%s holds %d words; a synonym holds at most %d", f, len(ws), MaxSynonymPhrase)
		}
		if terms, stopOnly := an.QueryTerms(w); stopOnly || len(terms) == 0 {
			return "", Invalid(f, "%s holds only stop words (%q), which no search keeps", f, w)
		}
		return w, nil
	}
	if from != "" {
		if s.From, err = phrase(field, from); err != nil {
			return nil, err
		}
	}
	seen := map[string]bool{}
	if s.From != "" {
		seen[phraseKey(s.From)] = true
	}
	for i, w := range words {
		w, err := phrase(fmt.Sprintf("%s[%d]", field, i), w)
		if err != nil {
			return nil, err
		}
		if k := phraseKey(w); !seen[k] {
			seen[k] = true
			s.Words = append(s.Words, w)
		}
	}
	switch {
	case len(words) > MaxSynonymWords:
		return nil, Invalid(field, "%s holds %d words; a synonym holds at most %d", field, len(words), MaxSynonymWords)
	case s.From == "" && len(s.Words) < 2:
		return nil, Invalid(field, "a group of synonyms needs at least two different words; %s has %d", field, len(s.Words))
	case s.From != "" && len(s.Words) == 0:
		return nil, Invalid(field, "%s must name at least one word other than %q for it to find", field, s.From)
	}
	return s, nil
}

// SynonymLocale returns locale's canonical BCP 47 tag; "" for "".
func SynonymLocale(locale string) (string, error) {
	locale = strings.TrimSpace(locale)
	if locale == "" {
		return "", nil
	}
	tag, err := language.Parse(locale)
	if err != nil || len(locale) > 35 {
		return "", Invalid("locale", "locale must be a language tag such as \"pt-BR\", \"es\" or \"en\"; got %q", Clip(locale, 40))
	}
	return tag.String(), nil
}

// Key is what tells a synonym from the others of its company's locale: a
// group's words, as folded and sorted; a one-way mapping's From. Saving a
// synonym of a key replaces the one there.
func (s *Synonym) Key() string {
	var k string
	if s.From != "" {
		k = "from\x00" + phraseKey(s.From)
	} else {
		ws := make([]string, len(s.Words))
		for i, w := range s.Words {
			ws[i] = phraseKey(w)
		}
		slices.Sort(ws)
		k = "group\x00" + strings.Join(ws, "\x00")
	}
	sum := sha256.Sum256([]byte(k))
	return hex.EncodeToString(sum[:16])
}

// Holds reports whether the synonym holds the word or phrase w, as folded.
func (s *Synonym) Holds(w string) bool {
	k := phraseKey(w)
	if s.From != "" && phraseKey(s.From) == k {
		return true
	}
	return slices.ContainsFunc(s.Words, func(x string) bool { return phraseKey(x) == k })
}

func phraseKey(w string) string { return strings.Join(Words(w), " ") }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// A Thesaurus is a company's synonyms as a query in one language reads
// them: each analyzed as the query is, so that a query's terms (or a run
// of them, for a phrase) find the alternatives they stand for. It is an
// Expander.
type Thesaurus struct {
	// alts holds, by a synonym's terms joined by a space, the terms of
	// what it finds.
	alts    map[string][][]string
	longest int
}

// NewThesaurus returns the synonyms of a query analyzed by a: those of
// every locale and those of a's language.
func NewThesaurus(a *Analyzer, syns []*Synonym) *Thesaurus {
	t := &Thesaurus{alts: map[string][][]string{}}
	terms := func(w string) []string {
		ts, _ := a.QueryTerms(w)
		return ts
	}
	add := func(from []string, to []string) {
		if len(from) == 0 || len(to) == 0 || slices.Equal(from, to) {
			return
		}
		k := strings.Join(from, " ")
		if slices.ContainsFunc(t.alts[k], func(x []string) bool { return slices.Equal(x, to) }) {
			return
		}
		t.alts[k] = append(t.alts[k], to)
		t.longest = max(t.longest, len(from))
	}
	for _, s := range syns {
		if s.Locale != "" && AnalyzerFor(s.Locale) != a {
			continue
		}
		ws := make([][]string, len(s.Words))
		for i, w := range s.Words {
			ws[i] = terms(w)
		}
		if s.From != "" {
			from := terms(s.From)
			for _, to := range ws {
				add(from, to)
			}
			continue
		}
		for i, from := range ws {
			for j, to := range ws {
				if i != j {
					add(from, to)
				}
			}
		}
	}
	return t
}

// Len returns the number of words and phrases that find others.
func (t *Thesaurus) Len() int {
	if t == nil {
		return 0
	}
	return len(t.alts)
}

// Expand returns the clauses of a query's terms: each run of them that is
// a synonym's (the longest first, from the left) one clause, with what it
// finds as alternatives; each other term its own clause. The alternatives
// are at most MaxAlternatives in all.
func (t *Thesaurus) Expand(terms []string) []Clause {
	if t == nil || len(t.alts) == 0 {
		return PlainClauses(terms)
	}
	var out []Clause
	budget := MaxAlternatives
	for i := 0; i < len(terms); {
		n := 1
		var alts [][]string
		for l := min(t.longest, len(terms)-i); l >= 1 && budget > 0; l-- {
			if a, ok := t.alts[strings.Join(terms[i:i+l], " ")]; ok {
				n, alts = l, a
				break
			}
		}
		c := Clause{Terms: terms[i : i+n : i+n]}
		for _, a := range alts {
			if budget == 0 {
				break
			}
			budget--
			c.Alternatives = append(c.Alternatives, Alternative{Terms: a, Kind: MatchSynonym})
		}
		out = append(out, c)
		i += n
	}
	return out
}
