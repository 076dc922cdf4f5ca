package feed_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/feed"
	"github.com/vitrine/vitrine/store"
)

var change = vitrine.Change{Reason: "feed test"}

// newCompany makes a company in db, with an owner.
func newCompany(t testing.TB, db *store.DB, slug string) (*vitrine.Tenant, string) {
	t.Helper()
	now := vitrine.Now()
	u := &vitrine.User{ID: vitrine.NewID(), Email: slug + "@feed.example", Name: "Owner of " + slug, CreatedAt: now, UpdatedAt: now}
	if err := db.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	tn := &vitrine.Tenant{ID: vitrine.NewID(), Name: "Company " + slug, Slug: slug, Currency: "BRL", CreatedAt: now, UpdatedAt: now}
	m := &vitrine.Membership{ID: vitrine.NewID(), TenantID: tn.ID, UserID: u.ID, Role: vitrine.RoleOwner, Status: vitrine.MembershipActive, CreatedAt: now, UpdatedAt: now}
	if err := db.CreateTenant(ctx, change, tn, m); err != nil {
		t.Fatal(err)
	}
	for _, a := range window().Attributes {
		def := *a
		def.TenantID, def.CreatedAt, def.UpdatedAt = tn.ID, now, now
		if err := db.SaveAttribute(ctx, change, &def, false); err != nil {
			t.Fatal(err)
		}
	}
	return tn, u.ID
}

// storedShirt is shirt's product for the store: new ids, the company's.
func storedShirt(tenantID, author string, i int, status vitrine.ProductStatus) *vitrine.Product {
	p := shirt(vitrine.NewID())
	p.TenantID, p.Status, p.Handle = tenantID, status, fmt.Sprintf("camiseta-%d", i)
	p.Categories = nil // not the company's
	for j, v := range p.Variants {
		v.ID = vitrine.NewID()
		v.SKU = fmt.Sprintf("CAM-%d-%d", i, j)
	}
	now := vitrine.Now()
	p.Version, p.CreatedAt, p.UpdatedAt, p.CreatedBy, p.UpdatedBy = 1, now, now, author, author
	p.Summarize()
	return p
}

// The feeds read the real store, on both databases, through every page:
// a company's active products, each variant once, and never a draft, an
// archived product or another company's product.
func TestFeedsFromTheStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		db := dbtest.Open(t, url)
		tn, owner := newCompany(t, db, "technova")
		other, rivalOwner := newCompany(t, db, "rival")
		want := map[string]bool{}
		var writes []vitrine.ProductWrite
		for i := range feed.PageSize + 10 { // over a page
			status := vitrine.ProductActive
			switch i % 10 {
			case 3:
				status = vitrine.ProductDraft
			case 7:
				status = vitrine.ProductArchived
			}
			p := storedShirt(tn.ID, owner, i, status)
			writes = append(writes, vitrine.ProductWrite{Create: p})
			if status == vitrine.ProductActive {
				for _, v := range p.Variants {
					want[v.ID] = true
				}
			}
		}
		if _, err := db.WriteProducts(ctx, change, tn.ID, writes, true, nil); err != nil {
			t.Fatal(err)
		}
		rival := storedShirt(other.ID, rivalOwner, 0, vitrine.ProductActive)
		if _, err := db.CreateProduct(ctx, change, rival, nil); err != nil {
			t.Fatal(err)
		}
		win := window()
		win.Tenant = tn
		win.Shop.TenantID = tn.ID
		google := parseGoogle(t, writeFeed(t, win, storeSource{db}, feed.Google))
		openai := parseOpenAI(t, writeFeed(t, win, storeSource{db}, feed.OpenAI))
		for name, got := range map[string][]string{"google": slices.Sorted(maps.Keys(google)), "openai": slices.Sorted(maps.Keys(openai))} {
			if !slices.Equal(got, slices.Sorted(maps.Keys(want))) {
				t.Errorf("%s: %d items; want the %d variants of the active products", name, len(got), len(want))
			}
		}
	})
}
