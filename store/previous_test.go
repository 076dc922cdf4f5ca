package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

// The databases of testdata/previous-release were made by the release
// before the catalog of variants (commit be1e4dd, `vitrine demo`): SQLite's
// file as it left it, PostgreSQL's as pg_dump --inserts wrote it. Opening
// them migrates them: every product becomes one with one variant, which
// keeps its SKU, price and stock, and works as any other.
func TestMigrateFromPreviousRelease(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		src, err := os.ReadFile("testdata/previous-release/sqlite.db")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "previous.db")
		if err := os.WriteFile(path, src, 0o600); err != nil {
			t.Fatal(err)
		}
		checkMigrated(t, path)
	})
	t.Run("postgres", func(t *testing.T) {
		url := dbtest.PostgresURL(t)
		dump, err := os.ReadFile("testdata/previous-release/postgres.sql")
		if err != nil {
			t.Fatal(err)
		}
		dbtest.Exec(t, url, string(dump))
		checkMigrated(t, url)
	})
}

func checkMigrated(t *testing.T, url string) {
	before := map[string][3]string{} // by SKU: name, price and stock, status; read without the store
	for _, row := range dbtest.Query(t, url, `SELECT sku, name, price || ' ' || stock, status FROM products`) {
		before[row[0]] = [3]string{row[1], row[2], row[3]}
	}
	if len(before) == 0 {
		t.Fatal("the previous release's database holds no product")
	}
	db := dbtest.Open(t, url)
	tenants, err := db.ListTenants(ctx, "", 100)
	if err != nil || len(tenants) == 0 {
		t.Fatalf("tenants: %v %v", tenants, err)
	}
	seen := 0
	for _, tn := range tenants {
		ps, err := db.ListProducts(ctx, tn.ID, filterOf(vitrine.ProductQuery{Sort: vitrine.SortName}, 100))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			seen++
			b, ok := before[p.SKU]
			if !ok || len(p.Variants) != 1 || b[0] != p.Name || b[1] != fmtInts(p.Price, p.Stock) {
				t.Errorf("%s: %+v, variants %d; was %v", p.SKU, p, len(p.Variants), b)
				continue
			}
			v := p.Variants[0]
			if v.ID != p.ID || v.SKU != p.SKU || v.Price != p.Price || v.Stock != p.Stock || len(v.Options) != 0 ||
				v.Policy != vitrine.PolicyDeny || !v.RequiresShipping || !v.Taxable || p.Handle == "" || string(p.Status) != b[2] {
				t.Errorf("%s: variant %+v, handle %q", p.SKU, v, p.Handle)
			}
			if got, err := db.ProductBySKU(ctx, tn.ID, p.SKU); err != nil || got.ID != p.ID {
				t.Errorf("by SKU %s: %v %v", p.SKU, got, err)
			}
			// The migrated product changes as any other.
			up, err := db.UpdateProduct(ctx, testChange, tn.ID, p.ID, func(q *vitrine.Product) error {
				q.Variants[0].Stock += 5
				q.Summarize()
				return nil
			})
			if err != nil || up.Stock != p.Stock+5 || up.Version != p.Version+1 {
				t.Errorf("update %s: %+v %v", p.SKU, up, err)
			}
			// Its SKU is still its own.
			dup := newProduct(tn.ID, p.SKU, "Another", 100, vitrine.ProductActive)
			dup.Handle = "another-" + p.Handle
			if _, err := db.CreateProduct(ctx, testChange, dup, nil); vitrine.TypeOf(err) != vitrine.ConflictError {
				t.Errorf("a product with SKU %s again: %v", p.SKU, err)
			}
		}
		if _, err := db.ListStockMovements(ctx, tn.ID, "", "", 10); err != nil {
			t.Error(err)
		}
	}
	if seen != len(before) {
		t.Errorf("%d products after the migration, %d before", seen, len(before))
	}
}

func fmtInts(a, b int64) string { return vitrine.FormatPrice(a, 0) + " " + vitrine.FormatPrice(b, 0) }
