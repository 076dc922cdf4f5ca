package catalog

import (
	"context"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/fuzzy"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// withTypos returns f with, for each of its terms that forgives typos
// (vitrine.Typos), the prefixes of the company's words within them as
// alternatives of kind vitrine.MatchTypo (fuzzy.Prefixes): "braclet" the
// bracelet, "jaket" the jacket. The words are the company's facet index's
// term dictionary when the index is at the catalog's sequence, else the
// company's words read by SQL: the same words, so the same alternatives.
// A term's typos never cover its stem's matches (those rank before).
func (db *Store) withTypos(ctx context.Context, tenantID string, f vitrine.ProductFilter) (vitrine.ProductFilter, error) {
	if !slices.ContainsFunc(f.Terms(), func(t vitrine.QueryTerm) bool { return vitrine.Typos(t.Word) > 0 }) || !base.ValidIDs(tenantID) {
		return f, nil
	}
	typos := map[string][]string{}
	err := db.d.Read(ctx, base.Tenant(tenantID), func(c sqldb.Conn) error {
		var within func(w string, n int, skip []string) []string
		if db.ix != nil {
			ix, _, err := db.indexAt(ctx, c, tenantID)
			if err != nil {
				return err
			}
			if ix != nil {
				within = func(w string, n int, skip []string) []string { return ix.Typos(w, n, vitrine.MaxAlternatives, skip) }
			}
		}
		if within == nil {
			words, err := db.companyWords(ctx, c, tenantID)
			if err != nil {
				return err
			}
			within = func(w string, n int, skip []string) []string {
				return fuzzy.Prefixes(words, w, n, vitrine.MaxAlternatives, skip...)
			}
		}
		for _, t := range f.Terms() {
			if n := vitrine.Typos(t.Word); n > 0 {
				typos[t.Word] = within(t.Word, n, t.Prefixes(topLevel))
			}
		}
		return nil
	})
	if err != nil {
		return f, err
	}
	return f.Expand(func(t vitrine.QueryTerm) []vitrine.Alternative {
		var alts []vitrine.Alternative
		for _, p := range typos[t.Word] {
			alts = append(alts, vitrine.Alternative{Prefix: p, Kind: vitrine.MatchTypo})
		}
		return alts
	}), nil
}

// companyWords returns the words a text query matches in the company's
// products, each once, in byte order: the dictionary typos are found in
// when no index is at hand. On PostgreSQL, product_words's; on SQLite,
// those of the products' search column (the full-text index holds every
// company's words at once).
func (db *Store) companyWords(ctx context.Context, c sqldb.Conn, tenantID string) (fuzzy.Sorted, error) {
	var words []string
	if db.d.Name() == "postgres" {
		var err error
		words, err = sqldb.Collect(ctx, c, scanString, `SELECT DISTINCT word FROM product_words WHERE tenant_id = $1`, tenantID)
		if err != nil {
			return nil, err
		}
	} else {
		all, err := sqldb.Collect(ctx, c, scanString, `SELECT search FROM products WHERE tenant_id = $1`, tenantID)
		if err != nil {
			return nil, err
		}
		for _, s := range all {
			words = append(words, strings.Fields(s)...)
		}
	}
	slices.Sort(words)
	return slices.Compact(words), nil
}
