// Package catalog is the store's half that keeps the catalog: products
// (a row each, its record whole in a JSON document, and the tables beside
// it that index what lookups and filters need), variants, stock
// movements, the list query with its search and facets, imports, and
// categories and attribute definitions. store.DB embeds a Store, so that
// its methods are the vitrine.Store's; no other package reaches it.
package catalog

import (
	"context"
	"log/slog"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// Store keeps the catalog on one database.
type Store struct {
	d sqldb.Dialect
	// search returns how queries read the tenant's products holding words,
	// as the dialect's index of words allows (search.go).
	// names says that the queries read name matches apart (a relevance
	// search's ranks).
	search func(ctx context.Context, c sqldb.Conn, tenantID string, levels searchLevels, names bool) (wordSearch, error)
	// ix, if not nil, are the facet indexes faceted lists count by
	// (indexes.go).
	ix *Indexes
	// th are the companies' synonyms, analyzed (synonyms.go); vocab their
	// words, for typos without an index (typos.go). Both are kept across
	// calls: a call's store (On) shares them.
	th    *thesauri
	vocab *vocabularies
	// log receives what the store does on its own after a write has
	// committed (a large import's analyze), which no caller hears of.
	log *slog.Logger
}

// New returns the catalog's store on d, logging to log what no caller
// hears of.
func New(d sqldb.Dialect, log *slog.Logger) *Store {
	search := sqliteSearch
	if d.Name() == "postgres" {
		search = postgresSearch
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Store{d: d, search: search, log: log, th: &thesauri{}, vocab: &vocabularies{}}
}

// write runs fn as base.Write does: everything the catalog writes is
// what a company's window shows, so that every write bumps the company's
// catalog sequence. It records in the same transaction, at the sequence
// it moves to, what changed tells it fn changed, for the facet indexes
// (changes.go).
func (db *Store) write(ctx context.Context, s sqldb.Scope, ch vitrine.Change, target func() string, changed func() changes, fn func(sqldb.Conn) error) error {
	return base.Write(ctx, db.d, s, ch, base.Catalog, target, func(c sqldb.Conn) error {
		if err := fn(c); err != nil {
			return err
		}
		return db.recordChanges(ctx, c, s.TenantID, changed())
	})
}
