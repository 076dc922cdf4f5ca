package dbtest

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// CatalogTables are the tables that a catalog write reads by key alone: a
// sequential scan of one reads the company whole.
var CatalogTables = []string{"products", "variants", "product_tags", "product_categories", "categories", "product_attributes"}

// Unanalyzed makes the PostgreSQL database of dbURL one whose statistics
// were taken while it was empty and are never refreshed on their own (a
// restore's, an operator's first ANALYZE): autovacuum off on the tables a
// catalog write fills, then ANALYZE. It returns a connection of the
// server's administrator to that database, which reads its counters, and
// closes it when t ends.
func Unanalyzed(t testing.TB, dbURL string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	au, err := url.Parse(PostgresAdminURL())
	if err != nil {
		t.Fatal(err)
	}
	au.Path = u.Path
	admin, err := pgx.Connect(ctx, au.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(ctx) })
	for _, table := range append(CatalogTables, "product_words", "stock_movements", "catalog_changes", "tenants") {
		if _, err := admin.Exec(ctx, "ALTER TABLE "+table+" SET (autovacuum_enabled = false)"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.Exec(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	return admin
}

// SeqScanned returns the rows of CatalogTables that sequential scans read,
// once the server's counters hold them: the counters take a connection's
// reads when it ends, so it waits (up to a minute) until products rows
// have been inserted into products and no connection of login is open.
func SeqScanned(t testing.TB, admin *pgx.Conn, login string, products int64) int64 {
	t.Helper()
	var read int64
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var inserted, open int64
		if err := admin.QueryRow(context.Background(), `SELECT
				(SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'products'),
				(SELECT count(*) FROM pg_stat_activity WHERE usename = $1),
				(SELECT sum(seq_tup_read) FROM pg_stat_user_tables WHERE relname = ANY($2))`, login, CatalogTables).Scan(&inserted, &open, &read); err != nil {
			t.Fatal(err)
		}
		if inserted == products && open == 0 {
			return read
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server's counters hold %d products inserted, want %d; %d connections of %s still open", inserted, products, open, login)
		}
	}
}
