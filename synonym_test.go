package vitrine

import (
	"reflect"
	"strings"
	"testing"
)

func TestNewSynonym(t *testing.T) {
	s, err := NewSynonym("groups[0]", "", "", []string{" Sofa ", "couch", "SOFA", "settee"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Words, []string{"Sofa", "couch", "settee"}) || s.From != "" {
		t.Fatalf("group = %+v", s)
	}
	again, _ := NewSynonym("g", "", "", []string{"settee", "couch", "sofa"})
	if s.Key() != again.Key() {
		t.Error("a group's key depends on its words' order or case")
	}
	one, err := NewSynonym("one_way.lamp", "pt-br", "lamp", []string{"light"})
	if err != nil || one.Locale != "pt-BR" || one.From != "lamp" {
		t.Fatalf("one way = %+v, %v", one, err)
	}
	if one.Key() == s.Key() {
		t.Error("keys collide")
	}
	for _, c := range []struct {
		locale, from string
		words        []string
		want         string
	}{
		{"", "", []string{"sofa"}, "at least two"},
		{"", "", []string{"sofa", "Sofá"}, "at least two"},
		{"", "lamp", nil, "at least one word"},
		{"", "lamp", []string{"LAMP"}, "at least one word"},
		{"", "", []string{"sofa", "a b c d e"}, "at most 4"},
		{"", "", []string{"sofa", strings.Repeat("x", 51)}, "limit is 50"},
		{"", "", []string{"sofa", "!!"}, "letter or a digit"},
		{"", "", []string{"sofa", "de"}, "stop words"},
		{"not a locale!", "", []string{"sofa", "couch"}, "language tag"},
		{"", "", make([]string, 21), "letter or a digit"},
	} {
		_, err := NewSynonym("f", c.locale, c.from, c.words)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewSynonym(%q, %q, %q) = %v; want an error saying %q", c.locale, c.from, c.words, err, c.want)
		}
		if AsError(err) == nil || AsError(err).Type != ValidationError {
			t.Errorf("NewSynonym(%q, %q) error %v is no ValidationError", c.from, c.words, err)
		}
	}
	many := make([]string, 21)
	for i := range many {
		many[i] = strings.Repeat("w", i+1)
	}
	if _, err := NewSynonym("f", "", "", many); err == nil || !strings.Contains(err.Error(), "at most 20") {
		t.Errorf("21 words: %v", err)
	}
}

func TestThesaurusExpand(t *testing.T) {
	pt := AnalyzerFor("pt-BR")
	mk := func(from string, words ...string) *Synonym {
		s, err := NewSynonym("s", "", from, words)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	en, _ := NewSynonym("s", "en", "", []string{"sweater", "jumper"})
	th := NewThesaurus(pt, []*Synonym{
		mk("", "sofa", "couch", "settee"),
		mk("lamp", "light"),
		mk("", "fones de ouvido", "headphones"),
		en, // another language's: not read by a Portuguese query
	})
	expand := func(q string) []Clause {
		terms, _ := pt.QueryTerms(q)
		return th.Expand(terms)
	}
	alts := func(c Clause) []string {
		var out []string
		for _, a := range c.Alternatives {
			out = append(out, strings.Join(a.Terms, "+"))
		}
		return out
	}
	cs := expand("sofas")
	if len(cs) != 1 || !reflect.DeepEqual(alts(cs[0]), []string{"couch", "sette"}) {
		t.Errorf("sofas: %+v", cs)
	}
	if cs := expand("lamp"); len(cs) != 1 || !reflect.DeepEqual(alts(cs[0]), []string{"light"}) {
		t.Errorf("lamp: %+v", cs)
	}
	if cs := expand("light"); len(cs) != 1 || len(cs[0].Alternatives) != 0 {
		t.Errorf("light finds lamp (one way): %+v", cs)
	}
	cs = expand("fones de ouvido sem fio")
	if len(cs) != 2 || !reflect.DeepEqual(cs[0].Terms, []string{"fon", "ouv"}) || !reflect.DeepEqual(alts(cs[0]), []string{"headphon"}) || len(cs[1].Alternatives) != 0 {
		t.Errorf("fones de ouvido sem fio: %+v", cs)
	}
	if cs := expand("headphones"); len(cs) != 1 || !reflect.DeepEqual(alts(cs[0]), []string{"fon+ouv"}) {
		t.Errorf("headphones: %+v", cs)
	}
	if cs := expand("sweater"); len(cs[0].Alternatives) != 0 {
		t.Errorf("an English synonym expands a Portuguese query: %+v", cs)
	}
	if cs := NewThesaurus(AnalyzerFor("en"), []*Synonym{en}).Expand([]string{"sweater"}); len(cs[0].Alternatives) != 1 {
		t.Errorf("an English synonym does not expand an English query: %+v", cs)
	}
	var none *Thesaurus
	if cs := none.Expand([]string{"a", "b"}); len(cs) != 2 {
		t.Errorf("nil thesaurus: %+v", cs)
	}
}
