package shop

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// BenchmarkCheck checks every channel of a company of
// CHECK_BENCH_PRODUCTS products (default 2,000) of three variants each,
// on SQLite, with the real rules: it reads every active product once.
func BenchmarkCheck(b *testing.B) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("CHECK_BENCH_PRODUCTS")); err == nil && v > 0 {
		n = v
	}
	svc := service.New(dbtest.Open(b, dbtest.SQLiteURL(b)), nil)
	if _, err := svc.Operator().CreateUser(ctx, "olga@example.com", "Olga"); err != nil {
		b.Fatal(err)
	}
	a := company(b, svc, "alfa")
	cat := catalog.New(svc)
	for done := 0; done < n; done += 500 {
		var rows []catalog.ImportRow
		for i := done; i < min(n, done+500); i++ {
			p := catalog.NewProduct{Name: fmt.Sprintf("Product %d", i), Vendor: "Acme", Description: "Good.",
				Options: []vitrine.Option{{Name: "Tamanho", Values: []string{"P", "M", "G"}}}}
			for _, size := range []string{"P", "M", "G"} {
				p.Variants = append(p.Variants, catalog.NewVariant{SKU: fmt.Sprintf("P%d-%s", i, size), Options: map[string]string{"Tamanho": size}, Price: "10.00", Stock: 1})
			}
			rows = append(rows, catalog.ImportRow{NewProduct: p})
		}
		sum, err := cat.ImportProducts(ctx, a, rows, "create", true, nil)
		if err != nil || sum.Failed > 0 {
			b.Fatalf("import: %+v %v", sum, err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		r, err := New(svc).Check(ctx, a, CheckQuery{})
		if err != nil || r.Products != n {
			b.Fatalf("%+v %v", r, err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "products/s")
}
