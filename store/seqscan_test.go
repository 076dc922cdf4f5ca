package store_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

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

	admin := dbtest.Unanalyzed(t, owner)

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
	read := dbtest.SeqScanned(t, admin, u.User.Username(), products)
	t.Logf("%d rows of the catalog's tables read by sequential scans", read)
	// The first products may be read whole; one read of the company
	// whole at every write would be over a million rows.
	if read >= 20*products {
		t.Errorf("%d products created one by one read %d rows of the catalog's tables by sequential scans; want under %d", products, read, 20*products)
	}
}
