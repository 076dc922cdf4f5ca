package store_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/store"
)

// A shop that grows by single writes (create_product, one at a time) on
// PostgreSQL reads no table of the catalog whole once past its first
// products, whatever the statistics say: the database was analyzed before
// its first product (autovacuum off), so that the planner takes the tables
// for empty, and every write goes through one connection of a login that
// is neither superuser nor BYPASSRLS. The plans that connection made at
// the company's first products (the foreign key check of each variant
// among them) read the company's products whole at every later write, as
// long as the connection lived.
func TestCatalogWritesReadNoTableWholeOnPostgres(t *testing.T) {
	owner := dbtest.PostgresOwnerURL(t)
	u, err := url.Parse(owner)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("pool_max_conns", "1") // every statement on one connection, which keeps its plans
	u.RawQuery = q.Encode()
	db, err := store.Open(ctx, u.String(), store.Options{FacetIndexMemory: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f := &fixture{t: t, db: db}
	tn := f.tenant("acme", f.user("o@x.example"))

	au, err := url.Parse(dbtest.PostgresAdminURL())
	if err != nil {
		t.Fatal(err)
	}
	au.Path = u.Path
	admin, err := pgx.Connect(ctx, au.String())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	catalog := []string{"products", "variants", "product_tags", "product_categories", "categories", "product_attributes"}
	for _, table := range append(catalog, "product_words", "stock_movements", "catalog_changes", "tenants") {
		if _, err := admin.Exec(ctx, "ALTER TABLE "+table+" SET (autovacuum_enabled = false)"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.Exec(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}

	const products = 1500
	for i := range products {
		p := newProduct(tn.ID, fmt.Sprintf("ONE-%05d", i), "One", 100, vitrine.ProductActive)
		p.Tags = []string{"a", "b"}
		p.Description = strings.Repeat("A description of a few lines. ", 60) // a page holds a few products
		if err := createProduct(db, p); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	// The server's counters hold a connection's reads once it has ended.
	var read int64
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var inserted, open int64
		if err := admin.QueryRow(ctx, `SELECT
				(SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'products'),
				(SELECT count(*) FROM pg_stat_activity WHERE usename = $1),
				(SELECT sum(seq_tup_read) FROM pg_stat_user_tables WHERE relname = ANY($2))`, u.User.Username(), catalog).Scan(&inserted, &open, &read); err != nil {
			t.Fatal(err)
		}
		if inserted == products && open == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server's counters hold %d products inserted, want %d; %d connections still open", inserted, products, open)
		}
	}
	t.Logf("%d rows of the catalog's tables read by sequential scans", read)
	// The first products may be read whole; one read of the company
	// whole at every write would be over a million rows.
	if read >= 20*products {
		t.Errorf("%d products created one by one read %d rows of the catalog's tables by sequential scans; want under %d", products, read, 20*products)
	}
}
