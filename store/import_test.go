package store_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/pgtrace"
	"github.com/vitrine/vitrine/store"
)

// importBatch makes n new products of the tenant, their SKUs and handles
// numbered from first.
func importBatch(tenantID string, first, n int) []vitrine.ProductWrite {
	writes := make([]vitrine.ProductWrite, n)
	for i := range writes {
		writes[i].Create = newProduct(tenantID, fmt.Sprintf("IMP-%06d", first+i), "Imported", 100, vitrine.ProductActive)
	}
	return writes
}

// An import's writes each get their own result, however the store sends
// them: a taken SKU and a stale version fail their rows alone, wherever
// they fall in what goes to the database at once, and every other row is
// written, once.
func TestWriteProductsEachRowItsResult(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		tn := f.tenant("acme", f.user("o@x.example"))
		taken := f.product(tn.ID, "TAKEN", "Taken", 100, vitrine.ProductActive)
		stale := f.product(tn.ID, "STALE", "Stale", 100, vitrine.ProductActive)
		fresh := f.product(tn.ID, "FRESH", "Fresh", 100, vitrine.ProductActive)
		writes := importBatch(tn.ID, 0, 250)
		writes[5].Create.Variants[0].SKU = "taken" // SKUs compare without case
		writes[5].Create.Summarize()
		up := stale.Clone()
		up.Name, up.Version = "Stale, renamed", stale.Version+7 // read at another version
		writes[120] = vitrine.ProductWrite{Update: up, Before: stale}
		ok := fresh.Clone()
		ok.Name = "Fresh, renamed"
		writes[199] = vitrine.ProductWrite{Update: ok, Before: fresh}
		results, err := f.db.WriteProducts(ctx, testChange, tn.ID, writes, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, err := range results {
			switch i {
			case 5, 120:
				wantType(t, err, vitrine.ConflictError)
			default:
				if err != nil {
					t.Errorf("write %d: %v", i, err)
				}
			}
		}
		var skus []string
		for _, w := range writes {
			if w.Create != nil {
				skus = append(skus, w.Create.Variants[0].SKU)
			}
		}
		got, err := f.db.ProductsBySKU(ctx, tn.ID, skus)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(skus) || got[vitrine.SKUKey("TAKEN")].ID != taken.ID {
			t.Errorf("%d of %d SKUs found after the import; TAKEN is %v", len(got), len(skus), got[vitrine.SKUKey("TAKEN")])
		}
		if p, err := f.db.ProductByID(ctx, tn.ID, stale.ID); err != nil || p.Name != "Stale" {
			t.Errorf("the stale update was written: %v, %v", p, err)
		}
		if p, err := f.db.ProductByID(ctx, tn.ID, fresh.ID); err != nil || p.Name != "Fresh, renamed" || p.Version != fresh.Version+1 {
			t.Errorf("the update: %+v, %v", p, err)
		}
		n, err := f.db.ListProducts(ctx, tn.ID, filterOf(vitrine.ProductQuery{Sort: vitrine.SortName}, 1000))
		if err != nil || len(n) != 3+247 {
			t.Errorf("%d products listed, want %d (%v)", len(n), 3+247, err)
		}
	})
}

// batchSQL records the statements sent in pipelined batches.
type batchSQL struct {
	pgtrace.RoundTrips
	mu    sync.Mutex
	stmts []pgx.TraceBatchQueryData
}

func (b *batchSQL) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stmts = append(b.stmts, d)
}

// An import's batch costs what its own rows do, never what the company
// already holds: on PostgreSQL, through a login under forced row-level
// security and with no statistics (as while an import fills the tables
// faster than autovacuum analyzes them), a batch's lookups and writes take
// the same round trips into a company of 2,000 products as into an empty
// one, a few for 300 rows, and the lookups' generic plans probe the
// unique indexes once a key instead of reading the company's rows.
func TestImportBatchesDoNotGrowOnPostgres(t *testing.T) {
	url := dbtest.PostgresOwnerURL(t)
	tr := &batchSQL{}
	db, err := store.Open(ctx, url, store.Options{Tracer: tr})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f := &fixture{t: t, db: db}
	tn := f.tenant("acme", f.user("o@x.example"))
	batch := func(first int) int64 {
		writes := importBatch(tn.ID, first, 300)
		var skus, handles []string
		for _, w := range writes {
			skus, handles = append(skus, w.Create.Variants[0].SKU), append(handles, w.Create.Handle)
		}
		before := tr.N()
		if _, err := db.ProductsByHandle(ctx, tn.ID, handles); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ProductsBySKU(ctx, tn.ID, skus); err != nil {
			t.Fatal(err)
		}
		results, err := db.WriteProducts(ctx, testChange, tn.ID, writes, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, err := range results {
			if err != nil {
				t.Fatalf("write %d: %v", i, err)
			}
		}
		return tr.N() - before
	}
	batch(0) // statements prepared
	first := batch(300)
	for i := 2; i < 7; i++ {
		batch(i * 300)
	}
	last := batch(7 * 300)
	if last != first || first > 10 {
		t.Errorf("round trips of a batch of 300 rows: %d into a company of 300 products, %d into one of 2,100; want the same, at most 10", first, last)
	}

	// The lookups' plans, generic as a prepared statement's become, on
	// tables never analyzed.
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `SELECT set_config('app.tenant_id', $1, false)`, tn.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SET plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	lookups := 0
	for i, s := range tr.stmts {
		if !strings.Contains(s.SQL, "unnest(") || len(s.Args) != 2 {
			continue
		}
		lookups++
		keys := s.Args[1].([]string)
		if _, err := conn.Exec(ctx, fmt.Sprintf("PREPARE lookup%d AS %s", i, s.SQL)); err != nil {
			t.Fatal(err)
		}
		var plan []struct{ Plan planNode }
		array := `'{"` + strings.Join(keys, `","`) + `"}'` // the keys are IMP-000123 and such
		if err := conn.QueryRow(ctx, fmt.Sprintf("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE lookup%d('%s', %s)", i, tn.ID, array)).Scan(&plan); err != nil {
			t.Fatal(err)
		}
		plan[0].Plan.walk(func(n planNode) {
			if n.Relation != "products" && n.Relation != "variants" {
				return
			}
			if n.Type != "Index Scan" || (n.Index != "variants_sku_key" && n.Index != "products_handle" && n.Index != "products_pkey") {
				t.Errorf("a lookup reads %s by %s %s:\n%s", n.Relation, n.Type, n.Index, s.SQL)
			}
			if rows := n.Rows * n.Loops; rows > float64(len(keys)) {
				t.Errorf("a lookup of %d keys reads %.0f rows of %s", len(keys), rows, n.Relation)
			}
		})
	}
	if lookups == 0 {
		t.Fatal("no lookup by unnest seen")
	}
}

type planNode struct {
	Type     string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	Index    string     `json:"Index Name"`
	Rows     float64    `json:"Actual Rows"`
	Loops    float64    `json:"Actual Loops"`
	Plans    []planNode `json:"Plans"`
}

func (n planNode) walk(fn func(planNode)) {
	fn(n)
	for _, c := range n.Plans {
		c.walk(fn)
	}
}
