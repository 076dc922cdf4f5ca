package shapes

import (
	"maps"

	"github.com/vitrine/vitrine"
)

// synonymWord is a word or phrase of a synonym.
type synonymWord string

// localeTag is a BCP 47 language tag.
type localeTag string

type SaveSynonymsIn struct {
	TenantArg
	Groups  [][]synonymWord          `json:"groups,omitempty"`
	OneWay  map[string][]synonymWord `json:"one_way,omitempty"`
	Locale  localeTag                `json:"locale,omitempty"`
	Replace bool                     `json:"replace,omitempty"`
}

type SaveSynonymsOut struct {
	Saved int `json:"saved"`
}

type ListSynonymsOut struct {
	Synonyms []SynonymsOut `json:"synonyms"`
}

// SynonymsOut are the synonyms of one locale ("": every language).
type SynonymsOut struct {
	Locale string              `json:"locale"`
	Groups [][]string          `json:"groups"`
	OneWay map[string][]string `json:"one_way"`
}

type DeleteSynonymsIn struct {
	TenantArg
	Words  []synonymWord `json:"words,omitempty"`
	All    bool          `json:"all,omitempty"`
	Locale localeTag     `json:"locale,omitempty"`
}

type DeleteSynonymsOut struct {
	Deleted int `json:"deleted"`
}

// texts returns ws as strings.
func texts[T ~string](ws []T) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = string(w)
	}
	return out
}

// SynonymGroups returns the groups and one-way words of in as strings.
func (in SaveSynonymsIn) SynonymGroups() ([][]string, map[string][]string) {
	groups := make([][]string, len(in.Groups))
	for i, g := range in.Groups {
		groups[i] = texts(g)
	}
	var oneWay map[string][]string
	if in.OneWay != nil {
		oneWay = make(map[string][]string, len(in.OneWay))
		for k := range maps.Keys(in.OneWay) {
			oneWay[k] = texts(in.OneWay[k])
		}
	}
	return groups, oneWay
}

// SynonymsView groups synonyms by locale, in their order.
func SynonymsView(all []*vitrine.Synonym) ListSynonymsOut {
	out := ListSynonymsOut{Synonyms: []SynonymsOut{}}
	for _, s := range all {
		if n := len(out.Synonyms); n == 0 || out.Synonyms[n-1].Locale != s.Locale {
			out.Synonyms = append(out.Synonyms, SynonymsOut{Locale: s.Locale, Groups: [][]string{}, OneWay: map[string][]string{}})
		}
		last := &out.Synonyms[len(out.Synonyms)-1]
		if s.From == "" {
			last.Groups = append(last.Groups, s.Words)
		} else {
			last.OneWay[s.From] = s.Words
		}
	}
	return out
}

// WordTexts returns the words as strings.
func (in DeleteSynonymsIn) WordTexts() []string { return texts(in.Words) }
