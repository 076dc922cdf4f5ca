package service_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service"
)

// A purge under load does not block another company's writes: while a
// company of VITRINE_PURGE_PRODUCTS products (3 variants each) is purged
// in batches of 500 rows, another company creates products one at a time;
// their latencies are compared with the same writes without a purge
// (docs/benchmarks.md, "Purging a company"). Run with
//
//	VITRINE_PURGE_PRODUCTS=20000 go test ./service -run PurgeUnderLoad -v
func TestPurgeUnderLoad(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("VITRINE_PURGE_PRODUCTS"))
	if n == 0 {
		t.Skip("set VITRINE_PURGE_PRODUCTS to measure")
	}
	dbtest.Each(t, func(t *testing.T, dbURL string) {
		db, svc, doomed, kept := purgeWorld(t, dbURL)
		for done := 0; done < n; done += 500 {
			writes := make([]vitrine.ProductWrite, min(500, n-done))
			for i := range writes {
				writes[i].Create = loadProduct(doomed, done+i)
			}
			if _, err := db.WriteProducts(ctx, vitrine.Change{}, doomed, writes, true, nil); err != nil {
				t.Fatal(err)
			}
		}
		var seq atomic.Int64
		write := func() time.Duration {
			start := time.Now()
			if _, err := db.CreateProduct(ctx, vitrine.Change{}, loadProduct(kept, 10_000_000+int(seq.Add(1))), nil); err != nil {
				t.Error(err)
			}
			return time.Since(start)
		}
		measure := func(until func() bool) []time.Duration {
			var out []time.Duration
			for !until() {
				out = append(out, write())
			}
			return out
		}
		deadline := func(d time.Duration) func() bool {
			end := time.Now().Add(d)
			return func() bool { return time.Now().After(end) }
		}
		quiet := measure(deadline(5 * time.Second))

		if _, err := svc.Operator().DeleteTenant(ctx, "technova", 0); err != nil {
			t.Fatal(err)
		}
		var done atomic.Bool
		var purged service.Purged
		var purgeTime time.Duration
		go func() {
			defer done.Store(true)
			start := time.Now()
			var err error
			purged, err = svc.Purger("load", nil).Run(ctx)
			purgeTime = time.Since(start)
			if err != nil {
				t.Error(err)
			}
		}()
		busy := measure(done.Load)
		if len(purged.Tenants) != 1 {
			t.Fatalf("purged %+v", purged)
		}
		t.Logf("%s: purge of %d rows (%d products) in %s, %.0f rows/s", t.Name(), purged.Rows, n, purgeTime.Round(time.Millisecond),
			float64(purged.Rows)/purgeTime.Seconds())
		t.Logf("another company's create_product, without a purge: %s", percentiles(quiet))
		t.Logf("another company's create_product, during the purge: %s", percentiles(busy))
		if p99(busy) > 2*time.Second {
			t.Errorf("a write of another company waited %s during the purge", p99(busy))
		}
	})
}

func loadProduct(tenantID string, i int) *vitrine.Product {
	now := vitrine.Now()
	sku := fmt.Sprintf("PL%08d", i)
	p := &vitrine.Product{ID: vitrine.NewID(), TenantID: tenantID, Handle: vitrine.HandleOf(sku), Name: "Produto " + sku, Currency: "BRL",
		Status: vitrine.ProductActive, Version: 1, CreatedAt: now, CreatedBy: vitrine.NewID(), UpdatedAt: now, UpdatedBy: vitrine.NewID(),
		Tags: []string{"carga"}, Options: []vitrine.Option{{Name: "Size", Values: []string{"S", "M", "L"}}}}
	for j, s := range []string{"S", "M", "L"} {
		p.Variants = append(p.Variants, &vitrine.Variant{ID: vitrine.NewID(), SKU: sku + "-" + s, Options: map[string]string{"Size": s},
			Price: 1990, Stock: 5, Policy: vitrine.PolicyDeny, RequiresShipping: true, Taxable: true, Position: j + 1})
	}
	p.Summarize()
	return p
}

func p99(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)*99/100]
}

func percentiles(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q int) time.Duration { return s[len(s)*q/100].Round(10 * time.Microsecond) }
	return fmt.Sprintf("%d writes, p50 %s, p99 %s, max %s", len(s), at(50), at(99), s[len(s)-1].Round(10*time.Microsecond))
}
