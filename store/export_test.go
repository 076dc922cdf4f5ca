package store

import (
	"context"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/catalog"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// The hooks below let tests run raw SQL inside the store's units of work,
// with their row-level security context but without the application's own
// tenant filters.

// QueryAs runs query in a read scoped to tenantID ("" for none) and returns
// the first column of every row, as text.
func (db *DB) QueryAs(ctx context.Context, tenantID, query string, args ...any) ([]string, error) {
	var out []string
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (string, error) {
			var s string
			return s, r.Scan(&s)
		}, query, args...)
		return err
	})
	return out, err
}

// ExecAs runs a statement in a write scoped to tenantID and returns the
// number of rows it touched.
func (db *DB) ExecAs(ctx context.Context, tenantID, query string, args ...any) (int64, error) {
	var n int64
	err := db.d.Write(ctx, tenant(tenantID), func(c sqldb.Conn) (err error) {
		n, err = c.Exec(ctx, query, args...)
		return err
	})
	return n, err
}

// PlanSearches makes searches take one plan: "walk" (the products in
// order, keeping the matches), "members" (the same, each product's rowid
// checked among the index's matches, on SQLite) or "index" (the matches
// through the index of words), as if every word were common or rare. It
// returns how to restore the default.
func PlanSearches(plan string) (restore func()) {
	old, oldMembers, oldSearch := catalog.SelectiveMatches, catalog.MemberMatches, catalog.SearchMemberMatches
	catalog.SelectiveMatches = map[string]int{"walk": 0, "members": 0, "index": 1 << 62}[plan]
	catalog.MemberMatches = map[string]int{"walk": 0, "members": 1 << 62, "index": 1 << 62}[plan]
	catalog.SearchMemberMatches = catalog.MemberMatches
	return func() {
		catalog.SelectiveMatches, catalog.MemberMatches, catalog.SearchMemberMatches = old, oldMembers, oldSearch
	}
}

// Reprepares returns how many times SQLite prepared each statement of the
// reader pool again after its first preparation, by query text.
func (db *DB) Reprepares(ctx context.Context) (map[string]int, error) {
	return sqldb.Reprepares(ctx, db.d.Dialect)
}

// EpochChecked reports whether a unit of work of a call's store
// (CheckingEpoch) has found the epoch unmoved.
func EpochChecked(s vitrine.EpochStore) bool { return !s.(*DB).d.check.Pending() }

// PruneChanges sets how the catalog's changes are pruned (catalog.SetPruning).
func PruneChanges(seqs, rows, every int) (restore func()) {
	return catalog.SetPruning(seqs, rows, every)
}

// BuildChunk sets the products a facet index's build reads at a time.
func BuildChunk(n int) (restore func()) { return catalog.SetBuildChunk(n) }

// FacetsBudget sets the time a count of facets by SQL may take of the time
// left to its call.
func FacetsBudget(budget func(left time.Duration) time.Duration) (restore func()) {
	return catalog.SetFacetsBudget(budget)
}
