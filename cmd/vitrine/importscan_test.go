package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
)

// importLines writes n products, numbered from first, as JSON Lines: 3
// variants of an option and 3 tags each, and a status.
func importLines(t *testing.T, path string, first, n int) {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	statuses := []string{"active", "draft", "archived"}
	for i := first; i < first+n; i++ {
		var variants []map[string]any
		for _, size := range []string{"S", "M", "L"} {
			variants = append(variants, map[string]any{"sku": fmt.Sprintf("SKU-%06d-%s", i, size), "options": map[string]string{"Size": size},
				"price": fmt.Sprintf("%d.50", 10+i%90), "stock": i % 17})
		}
		if err := enc.Encode(map[string]any{"handle": fmt.Sprintf("prod-%06d", i), "name": fmt.Sprintf("Product %d", i),
			"vendor": fmt.Sprintf("Vendor %d", i%50), "product_type": fmt.Sprintf("Type %d", i%20),
			"tags":   []string{fmt.Sprintf("tag%d", i%7), fmt.Sprintf("tag%d", 10+i%11), fmt.Sprintf("tag%d", 30+i%13)},
			"status": statuses[i%3], "options": []map[string]any{{"name": "Size", "values": []string{"S", "M", "L"}}}, "variants": variants}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A shop's first large import into PostgreSQL reads no table of the
// catalog whole past its first rows, whatever the statistics say: here
// the database was analyzed before its first product (as a restore's or an
// operator's ANALYZE leaves it; autovacuum off), so that the planner takes
// the tables for empty; the import goes through a login that is neither
// superuser nor BYPASSRLS, under forced row-level security, on one
// connection. The plans a connection kept from the import's first rows
// (the foreign keys' checks of each variant and tag among them) read the
// company's products whole for every row, as long as the connection
// lived. Past 10,000 products, the import has the tables analyzed, through
// that same login, so that what follows is planned on what they hold.
func TestImportReadsNoTableWholeOnPostgres(t *testing.T) {
	owner := dbtest.PostgresOwnerURL(t)
	d := "--db=" + owner
	must(t, "migrate", d)
	must(t, "user", "create", d, "--email", "ana@acme.example", "--name", "Ana")
	must(t, "tenant", "create", d, "--name", "Acme", "--slug", "acme", "--owner", "ana@acme.example")

	u, err := url.Parse(owner)
	if err != nil {
		t.Fatal(err)
	}
	login := u.User.Username()
	admin := dbtest.Unanalyzed(t, owner)

	const products = 20000
	file := filepath.Join(t.TempDir(), "products.jsonl")
	importLines(t, file, 0, products)
	q := u.Query()
	q.Set("pool_max_conns", "1") // every statement on one connection, which keeps its plans
	u.RawQuery = q.Encode()
	out := must(t, "product", "import", "--db="+u.String(), "--tenant", "acme", "--format", "jsonl", file)
	if want := fmt.Sprintf("%d rows: %d created, 0 updated, 0 unchanged, 0 failed.", products, products); !strings.Contains(out, want) {
		t.Fatalf("import: %s, want %s", out, want)
	}

	// The server's counters hold a connection's reads once it has ended:
	// the import's, once its products are counted and it is gone.
	read := dbtest.SeqScanned(t, admin, login, products)
	t.Logf("%d rows of the catalog's tables read by sequential scans", read)
	// The first rows of each table may be read whole, a few pages; one
	// read of the company whole every 1,000 products would pass 100,000.
	if read >= 5*products {
		t.Errorf("importing %d products read %d rows of the catalog's tables by sequential scans; want under %d", products, read, 5*products)
	}
	var rows float64
	if err := admin.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE relname = 'products'`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows < 10000 {
		t.Errorf("after the import of %d products, the planner's statistics hold %.0f; want them analyzed past 10,000", products, rows)
	}
	// Every table the import filled was analyzed, by the import's login
	// (their owner), once past 10,000 products: what it wrote since is
	// less than what it wrote before.
	filled, err := admin.Query(ctx, `SELECT relname, last_analyze IS NOT NULL, n_mod_since_analyze, n_tup_ins FROM pg_stat_user_tables
		WHERE relname IN ('products', 'variants', 'product_tags', 'product_words', 'stock_movements', 'catalog_changes')`)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for filled.Next() {
		var table string
		var analyzed bool
		var since, inserted int64
		if err := filled.Scan(&table, &analyzed, &since, &inserted); err != nil {
			t.Fatal(err)
		}
		n++
		if !analyzed || since >= inserted/2 {
			t.Errorf("%s after the import: analyzed %v, %d of its %d rows inserted since its last analyze", table, analyzed, since, inserted)
		}
	}
	if err := filled.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 6 {
		t.Errorf("%d tables of the import's counted, want 6", n)
	}
}
