package store_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

// BenchmarkCatalogStamp reads a company's catalog stamp, which an
// unchanged feed's 304 waits for: one row by primary key, whatever the
// size of the catalog (STAMP_BENCH_PRODUCTS products, default 2,000;
// issue 34 asks the 304 in 5 ms at 100,000).
func BenchmarkCatalogStamp(b *testing.B) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("STAMP_BENCH_PRODUCTS")); err == nil && v > 0 {
		n = v
	}
	for _, d := range dbtest.Dialects() {
		b.Run(d.Name, func(b *testing.B) {
			db := dbtest.Open(b, d.URL(b))
			now := vitrine.Now()
			u := &vitrine.User{ID: vitrine.NewID(), Email: "ana@example.com", Name: "Ana", CreatedAt: now, UpdatedAt: now}
			tn := &vitrine.Tenant{ID: vitrine.NewID(), Name: "Alfa", Slug: "alfa", CreatedAt: now, UpdatedAt: now}
			m := &vitrine.Membership{ID: vitrine.NewID(), TenantID: tn.ID, UserID: u.ID, Role: vitrine.RoleOwner, Status: vitrine.MembershipActive, CreatedAt: now, UpdatedAt: now}
			if err := db.CreateUser(ctx, u); err != nil {
				b.Fatal(err)
			}
			if err := db.CreateTenant(ctx, testChange, tn, m); err != nil {
				b.Fatal(err)
			}
			for done := 0; done < n; done += 1000 {
				if _, err := db.WriteProducts(ctx, testChange, tn.ID, importBatch(tn.ID, done, min(1000, n-done)), true, nil); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if _, err := db.CatalogStamp(ctx, tn.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
