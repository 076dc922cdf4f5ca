package sqldb

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// AnalyzeAfter is how many rows a table must have changed since its last
// analyze for AnalyzeFilled to analyze it: a large import.
const AnalyzeAfter = 10_000

// AnalyzeFilled analyzes the tables as the login of the URL: the owner of
// the tables (as Migrate made them), whom ANALYZE needs. The connections
// of the pool may act as the database's own role, which owns nothing
// (pgroles.go); the login's connection is opened for it alone, at most
// each time the table has grown by half.
//
// Until then the planner has the statistics of the last analyze, or none:
// with autovacuum off, or behind a large import, a table analyzed before
// the company's first products is planned as empty, and the first lists
// and lookups after the import, planned on that, may read it whole.
func (d *pgDB) AnalyzeFilled(ctx context.Context, written int64, tables ...string) (bool, error) {
	if len(tables) == 0 {
		return false, nil
	}
	var due bool
	err := d.pool.QueryRow(ctx, `SELECT coalesce(s.n_mod_since_analyze, 0) + $2 >= $3
			AND coalesce(s.n_mod_since_analyze, 0) + $2 > greatest(c.reltuples, 0) / 2
		FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
		WHERE c.oid = to_regclass($1)`, tables[0], written, AnalyzeAfter).Scan(&due)
	if err != nil || !due {
		return false, err
	}
	conn, err := pgx.ConnectConfig(ctx, d.cfg.Copy())
	if err != nil {
		return false, fmt.Errorf("postgres: connect to analyze: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = ident(t)
	}
	// SKIP_LOCKED: a table another write is analyzing is left to it.
	if _, err := conn.Exec(ctx, `ANALYZE (SKIP_LOCKED) `+strings.Join(names, ", ")); err != nil {
		return false, fmt.Errorf("postgres: analyze %s: %w", strings.Join(tables, ", "), err)
	}
	return true, nil
}
