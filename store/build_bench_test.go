package store_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/store"
)

// BenchmarkIndexBuild measures a company's facet index build, from its
// first faceted list to the index in use, at BUILD_BENCH_PRODUCTS products
// (default 2,000; three variants each) and at four times as many, on both
// databases. A build reads the catalog a chunk at a time; the second
// size's µs a product over the first's (x-of-quarter) is 1 for a build
// linear in the catalog, and 4 for one that reads all that follows each
// chunk (what PostgreSQL did while the chunks sorted by their ids as
// text). Issue 35 asks ≤ 10 s at 1,000,000 variants.
func BenchmarkIndexBuild(b *testing.B) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("BUILD_BENCH_PRODUCTS")); err == nil && v > 0 {
		n = v
	}
	facets := []vitrine.FacetName{vitrine.FacetVendor, vitrine.FacetTags, vitrine.FacetOptions}
	for _, d := range dbtest.Dialects() {
		b.Run(d.Name, func(b *testing.B) {
			var quarter float64 // µs a product at n
			for _, size := range []int{n, 4 * n} {
				b.Run(strconv.Itoa(size), func(b *testing.B) {
					url := d.URL(b)
					db := dbtest.Open(b, url)
					tenant := benchTenant(b, db, "big")
					fillQueryBench(b, db, tenant, size)
					var took time.Duration
					for b.Loop() {
						b.StopTimer()
						fresh, err := store.Open(ctx, url, store.Options{})
						if err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
						start := time.Now()
						if _, err := fresh.FindProducts(ctx, tenant, filterOf(vitrine.ProductQuery{Facets: facets, Sort: vitrine.SortName}, 51)); err != nil {
							b.Fatal(err)
						}
						fresh.WaitIndexes()
						took += time.Since(start)
						b.StopTimer()
						if s := fresh.IndexStats(); s.Builds != 1 {
							b.Fatalf("index stats %+v, want one build", s)
						}
						fresh.Close()
						b.StartTimer()
					}
					per := float64(took.Microseconds()) / float64(b.N) / float64(size)
					b.ReportMetric(per, "µs/product")
					if size == n {
						quarter = per
					} else if quarter > 0 {
						b.ReportMetric(per/quarter, "x-of-quarter")
					}
				})
			}
		})
	}
}
