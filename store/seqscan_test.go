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

// An import's batches read no more of the catalog's tables by sequential
// scans as the company grows, on PostgreSQL, whatever the statistics:
// batches of products of 3 variants (an option), 3 tags, a category and
// an attribute each, created and then updated (tags, prices, category and
// attribute changed), through one connection of a login that is neither
// superuser nor BYPASSRLS, under forced row-level security, on tables
// analyzed while empty (autovacuum off). The rows that sequential scans
// read during the last batch of each kind are no more than during the
// first: a statement that read the company whole (a foreign key's check,
// a lookup, the categories' names of each product read, a trigger's
// words) would read ten times as many rows by the last. And the tables of
// products, variants, tags and the like are read by sequential scans
// only in the first chunk of 100 products, while they hold a page or two:
// each of its statements planned then and kept for the connection's life
// read 231,360 to 361,200 rows of products in the first batch (40,400
// with the plans made again at each chunk).
func TestImportBatchesReadNoMoreAsTheCompanyGrowsOnPostgres(t *testing.T) {
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
	now := vitrine.Now()
	var cats []*vitrine.Category
	for i := range 20 {
		c := &vitrine.Category{ID: vitrine.NewID(), TenantID: tn.ID, Name: fmt.Sprintf("Cat %d", i), Handle: fmt.Sprintf("cat-%d", i),
			Position: i, CreatedAt: now, UpdatedAt: now}
		if err := db.SaveCategory(ctx, testChange, c, false); err != nil {
			t.Fatal(err)
		}
		cats = append(cats, c)
	}
	if err := db.SaveAttribute(ctx, testChange, &vitrine.Attribute{TenantID: tn.ID, Key: "material", Name: "Material", Type: vitrine.AttributeText,
		CreatedAt: now, UpdatedAt: now}, false); err != nil {
		t.Fatal(err)
	}
	admin := dbtest.Unanalyzed(t, owner)

	// read returns the rows sequential scans have read of each table of
	// the catalog: the connection's counters are flushed to the server's
	// when it goes idle after a transaction that asked for it.
	read := func() map[string]int64 {
		if _, err := db.QueryAs(ctx, "", `SELECT 'flushed' FROM pg_stat_force_next_flush()`); err != nil {
			t.Fatal(err)
		}
		rows, err := admin.Query(ctx, `SELECT relname, seq_tup_read FROM pg_stat_user_tables WHERE relname = ANY($1)`, dbtest.CatalogTables)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for rows.Next() {
			var table string
			var n int64
			if err := rows.Scan(&table, &n); err != nil {
				t.Fatal(err)
			}
			out[table] = n
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	shape := func(p *vitrine.Product, i, round int) {
		p.Tags = []string{fmt.Sprintf("tag%d", (i+round)%7), fmt.Sprintf("tag%d", 10+i%11), fmt.Sprintf("tag%d", 30+i%13)}
		p.Categories = []vitrine.ProductCategory{{ID: cats[(i+round)%len(cats)].ID}}
		p.Attributes = map[string]any{"material": []string{"cotton", "wool", "silk"}[(i+round)%3]}
		for _, v := range p.Variants {
			v.Price = int64(1000 + 100*(i%90) + round)
		}
		p.Summarize()
	}
	const batches, size = 10, 300
	products := make([]*vitrine.Product, 0, batches*size)
	batch := func(n int, update bool) map[string]int64 {
		writes := make([]vitrine.ProductWrite, size)
		for j := range writes {
			i := n*size + j
			if update {
				up := products[i].Clone()
				shape(up, i, 1)
				writes[j] = vitrine.ProductWrite{Update: up, Before: products[i]}
				continue
			}
			p := newProduct(tn.ID, fmt.Sprintf("IMP-%06d-S", i), fmt.Sprintf("Imported %d", i), 100, vitrine.ProductActive)
			p.Options = []vitrine.Option{{Name: "Size", Values: []string{"S", "M", "L"}}}
			p.Variants[0].Options = map[string]string{"Size": "S"}
			for k, size := range []string{"M", "L"} {
				v := *p.Variants[0]
				v.ID, v.SKU, v.Options, v.Position = vitrine.NewID(), fmt.Sprintf("IMP-%06d-%s", i, size), map[string]string{"Size": size}, k+2
				p.Variants = append(p.Variants, &v)
			}
			shape(p, i, 0)
			writes[j] = vitrine.ProductWrite{Create: p}
		}
		before := read()
		results, err := db.WriteProducts(ctx, testChange, tn.ID, writes, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		for j, err := range results {
			if err != nil {
				t.Fatalf("write %d of batch %d: %v", j, n, err)
			}
		}
		after := read()
		for j, w := range writes {
			if update {
				products[n*size+j] = w.Update
			} else {
				products = append(products, w.Create)
			}
		}
		for table := range after {
			after[table] -= before[table]
		}
		return after
	}
	big := int64(0) // rows of the tables but categories read in all
	for _, update := range []bool{false, true} {
		var first, last map[string]int64
		for n := range batches {
			last = batch(n, update)
			for table, rows := range last {
				if table != "categories" {
					big += rows
				}
			}
			if n == 0 {
				first = last
			}
		}
		t.Logf("updates %v: rows read by sequential scans in the first batch %v, in the last %v", update, first, last)
		for _, table := range dbtest.CatalogTables {
			if last[table] > first[table] {
				t.Errorf("updates %v: sequential scans read %d rows of %s in the last batch of %d products (the company then of %d), %d in the first",
					update, last[table], table, size, batches*size, first[table])
			}
		}
	}
	// 8 statements a product whose plans may read products whole, for
	// each of the first 100 products: 8 × 100 × 100 / 2 = 40,000.
	if big > 80_000 {
		t.Errorf("sequential scans read %d rows of the catalog's tables but categories in %d batches of %d products; want under 80,000, what the first chunk of 100 products may read",
			big, 2*batches, size)
	}
	// Every write was made, each to its row.
	got, err := db.ProductsByHandle(ctx, tn.ID, []string{products[0].Handle, products[len(products)-1].Handle})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*vitrine.Product{products[0], products[len(products)-1]} {
		if g := got[p.Handle]; g == nil || g.Version != 2 || len(g.Categories) != 1 || g.Categories[0].ID != p.Categories[0].ID || g.Tags[0] != p.Tags[0] {
			t.Errorf("product %s after its update: %+v", p.Handle, g)
		}
	}
}
