package store

import (
	"context"
	"database/sql"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"
)

// The hooks below let tests run raw SQL inside the store's units of work,
// with their row-level security context but without the application's own
// tenant filters.

// QueryAs runs query in a read scoped to tenantID ("" for none) and returns
// the first column of every row, as text.
func (db *DB) QueryAs(ctx context.Context, tenantID, query string, args ...any) ([]string, error) {
	var out []string
	err := db.d.read(ctx, tenant(tenantID), func(c conn) (err error) {
		out, err = collect(ctx, c, func(r row) (string, error) {
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
	err := db.d.write(ctx, tenant(tenantID), func(c conn) (err error) {
		n, err = c.Exec(ctx, query, args...)
		return err
	})
	return n, err
}

// PlanSearches makes searches take one plan: "walk" (the products in
// order, keeping the matches) or "index" (the matches through the index of
// words), as if every word were common or rare. It returns how
// to restore the default.
func PlanSearches(plan string) (restore func()) {
	old := selectiveMatches
	selectiveMatches = map[string]int{"walk": 0, "index": 1 << 62}[plan]
	return func() { selectiveMatches = old }
}

// Reprepares returns how many times SQLite prepared each statement of the
// reader pool again after its first preparation, by query text.
func (db *DB) Reprepares(ctx context.Context) (map[string]int, error) {
	d, ok := db.d.(*sqliteDB)
	if !ok {
		return nil, nil
	}
	out := map[string]int{}
	var conns []*sql.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range d.readers.Stats().OpenConnections {
		c, err := d.readers.Conn(ctx)
		if err != nil {
			return nil, err
		}
		conns = append(conns, c)
		err = c.Raw(func(dc any) error {
			for s := range dc.(driver.Conn).Raw().Stmts() {
				out[s.SQL()] += s.Status(sqlite3.STMTSTATUS_REPREPARE, false)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
