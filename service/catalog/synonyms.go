package catalog

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// SynonymsIn holds save_synonyms' arguments: groups (each word finds
// every other) and one-way words (each finds its list, not the reverse),
// of one locale ("": every language). Replace makes them the locale's
// only synonyms; otherwise they are added, each replacing the one of its
// key (a group of the same words, a one-way word's list), as Algolia's
// saveSynonyms does by objectID.
type SynonymsIn struct {
	Groups  [][]string
	OneWay  map[string][]string
	Locale  string
	Replace bool
}

// ListSynonyms returns the company's synonyms, of locale only when it is
// not empty.
func (s *Catalog) ListSynonyms(ctx context.Context, a *service.Access, locale string) ([]*vitrine.Synonym, error) {
	if err := a.Allow(service.OpListSynonyms); err != nil {
		return nil, err
	}
	loc, err := vitrine.SynonymLocale(locale)
	if err != nil {
		return nil, err
	}
	all, err := s.store.Synonyms(ctx, a.TenantID)
	if err != nil || loc == "" {
		return all, err
	}
	return slices.DeleteFunc(all, func(x *vitrine.Synonym) bool { return x.Locale != loc }), nil
}

// SaveSynonyms checks and saves the synonyms of in, and returns how many
// it saved.
func (s *Catalog) SaveSynonyms(ctx context.Context, a *service.Access, in SynonymsIn) (int, error) {
	if err := a.Allow(service.OpSaveSynonyms); err != nil {
		return 0, err
	}
	loc, err := vitrine.SynonymLocale(in.Locale)
	if err != nil {
		return 0, err
	}
	if n := len(in.Groups) + len(in.OneWay); n > vitrine.MaxSynonyms {
		return 0, vitrine.Invalid("groups", "a company has at most %d synonyms; this save names %d", vitrine.MaxSynonyms, n)
	} else if n == 0 && !in.Replace {
		return 0, vitrine.Invalid("groups", "give groups or one_way (or replace: true with neither, to remove the locale's synonyms)")
	}
	now := s.now()
	var syns []*vitrine.Synonym
	for i, g := range in.Groups {
		sy, err := vitrine.NewSynonym(fmt.Sprintf("groups[%d]", i), loc, "", g)
		if err != nil {
			return 0, err
		}
		syns = append(syns, sy)
	}
	for _, from := range slices.Sorted(maps.Keys(in.OneWay)) {
		sy, err := vitrine.NewSynonym("one_way."+from, loc, from, in.OneWay[from])
		if err != nil {
			return 0, err
		}
		syns = append(syns, sy)
	}
	for _, sy := range syns {
		sy.TenantID, sy.UpdatedAt = a.TenantID, now
	}
	if err := s.store.SaveSynonyms(ctx, a.Change(), a.TenantID, loc, syns, in.Replace); err != nil {
		return 0, err
	}
	return len(syns), nil
}

// DeleteSynonyms removes the company's synonyms (groups and one-way words
// whole) that hold any of words, or every one when all is set; of locale
// only when it is not empty. It returns how many it removed.
func (s *Catalog) DeleteSynonyms(ctx context.Context, a *service.Access, words []string, all bool, locale string) (int, error) {
	if err := a.Allow(service.OpDeleteSynonyms); err != nil {
		return 0, err
	}
	loc, err := vitrine.SynonymLocale(locale)
	if err != nil {
		return 0, err
	}
	switch {
	case all && len(words) > 0:
		return 0, vitrine.Invalid("all", "give words or all, not both")
	case !all && len(words) == 0:
		return 0, vitrine.Invalid("words", "give the words whose synonyms go, or all: true")
	case len(words) > vitrine.MaxSynonymWords:
		return 0, vitrine.Invalid("words", "name at most %d words; got %d", vitrine.MaxSynonymWords, len(words))
	}
	for i, w := range words {
		if _, err := vitrine.ValidateText(fmt.Sprintf("words[%d]", i), w, vitrine.MaxSynonymLength); err != nil {
			return 0, err
		}
	}
	var only *string
	if loc != "" {
		only = &loc
	}
	return s.store.DeleteSynonyms(ctx, a.Change(), a.TenantID, only, words)
}
