package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

// marketCall is a change made in a call of a market tool, which its audit
// event records.
func marketCall(userID, tool string) vitrine.Change {
	call := vitrine.Call{RequestID: vitrine.NewID(), Tool: tool, At: vitrine.Now(), Reason: tool}
	return vitrine.Change{UserID: userID, TokenID: "tok", Call: call, Reason: call.Reason}
}

func newMarket(tenantID, handle string, countries ...string) *vitrine.Market {
	return &vitrine.Market{TenantID: tenantID, Handle: handle, Name: "Market " + handle, Countries: countries, Currency: "USD",
		Locales: []string{"en"}, ExchangeRate: "0.18", Rounding: vitrine.Rounding99, UpdatedAt: vitrine.Now(), UpdatedBy: "u"}
}

// A company's markets: created, replaced by handle (id kept, version up),
// each write audited and moving the catalog's stamp; a country in one
// market at most; a domain to one market; deleted with their prices.
func TestMarkets(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana, bia := f.user("ana@example.com"), f.user("bia@example.com")
		a, b := f.tenant("alfa", ana), f.tenant("beta", bia)

		stamp0, _ := f.db.CatalogStamp(ctx, a.ID)
		us := newMarket(a.ID, "us", "US", "CA")
		us.Include = vitrine.MarketInclude{Tags: []string{"export"}}
		ch := marketCall(ana.ID, "save_market")
		if err := f.db.SaveMarket(ctx, ch, us); err != nil || us.ID == "" || us.Version != 1 {
			t.Fatalf("create: %+v, %v", us, err)
		}
		if s, _ := f.db.CatalogStamp(ctx, a.ID); s == stamp0 {
			t.Error("saving a market left the catalog's stamp")
		}
		events, err := f.db.ListAudit(ctx, a.ID, vitrine.AuditFilter{Tool: "save_market", Limit: 10})
		if err != nil || len(events) != 1 || events[0].TargetID != us.ID || events[0].UserID != ana.ID {
			t.Errorf("the save's event: %+v, %v", events, err)
		}
		got, err := f.db.MarketByHandle(ctx, a.ID, "us")
		if err != nil || got.ID != us.ID || !slices.Equal(got.Countries, []string{"US", "CA"}) || got.Currency != "USD" || got.ExchangeRate != "0.18" ||
			got.Rounding != vitrine.Rounding99 || !slices.Equal(got.Include.Tags, []string{"export"}) || !slices.Equal(got.Locales, []string{"en"}) {
			t.Errorf("read back: %+v, %v", got, err)
		}

		// Replaced by handle: the same id, the next version.
		first := us.ID
		us.Name, us.Countries, us.ExchangeRate = "North America", []string{"US"}, "0.2"
		if err := f.db.SaveMarket(ctx, marketCall(ana.ID, "save_market"), us); err != nil || us.ID != first || us.Version != 2 {
			t.Fatalf("replace: %+v, %v", us, err)
		}
		// CA is free again; US is not.
		ca := newMarket(a.ID, "ca", "CA")
		if err := f.db.SaveMarket(ctx, marketCall(ana.ID, "save_market"), ca); err != nil {
			t.Fatalf("a market of a country freed: %v", err)
		}
		err = f.db.SaveMarket(ctx, marketCall(ana.ID, "save_market"), newMarket(a.ID, "mx", "MX", "US"))
		if vitrine.TypeOf(err) != vitrine.ConflictError || !strings.Contains(err.Error(), `US is already in market "us"`) {
			t.Errorf("a country another market has: %v", err)
		}
		// Another company may sell to the US, and has none of a's markets.
		bus := newMarket(b.ID, "us", "US")
		if err := f.db.SaveMarket(ctx, marketCall(bia.ID, "save_market"), bus); err != nil {
			t.Fatalf("another company's market of the same handle and country: %v", err)
		}
		ms, err := f.db.Markets(ctx, a.ID)
		if err != nil || len(ms) != 2 || ms[0].Handle != "ca" || ms[1].Handle != "us" {
			t.Errorf("a's markets: %+v, %v", ms, err)
		}
		if _, err := f.db.MarketByHandle(ctx, b.ID, "ca"); vitrine.TypeOf(err) != vitrine.NotFoundError {
			t.Errorf("a's market through b: %v", err)
		}

		// One domain, one market; found by the public only while the
		// company's window is open.
		us.Domain = "us.alfa.example"
		if err := f.db.SaveMarket(ctx, marketCall(ana.ID, "save_market"), us); err != nil {
			t.Fatal(err)
		}
		bus.Domain = "us.alfa.example"
		wantType(t, f.db.SaveMarket(ctx, marketCall(bia.ID, "save_market"), bus), vitrine.ConflictError)
		if _, _, _, err := f.db.OpenMarketByDomain(ctx, "us.alfa.example"); vitrine.TypeOf(err) != vitrine.NotFoundError {
			t.Errorf("a market of a closed window: %v", err)
		}
		s, _ := f.db.Shop(ctx, a.ID)
		s.Open, s.UpdatedAt = true, vitrine.Now()
		if err := f.db.SaveShop(ctx, shopCall(ana.ID), s); err != nil {
			t.Fatal(err)
		}
		tn, sh, m, err := f.db.OpenMarketByDomain(ctx, "US.alfa.example.")
		if err != nil || tn.ID != a.ID || !sh.Open || m.ID != us.ID {
			t.Errorf("the market by its domain: %+v %+v %+v %v", tn, sh, m, err)
		}
		// A window's domain is no market's.
		s.Domain = "shop.alfa.example"
		if err := f.db.SaveShop(ctx, shopCall(ana.ID), s); err != nil {
			t.Fatal(err)
		}
		bus.Domain = "shop.alfa.example"
		wantType(t, f.db.SaveMarket(ctx, marketCall(bia.ID, "save_market"), bus), vitrine.ConflictError)
		// Nor one of its own company's markets.
		ca.Domain = "shop.alfa.example"
		wantType(t, f.db.SaveMarket(ctx, marketCall(ana.ID, "save_market"), ca), vitrine.ConflictError)
		ca.Domain = ""
		// And a market's domain is no window's, of its company or another.
		s.Domain = "us.alfa.example"
		wantType(t, f.db.SaveShop(ctx, shopCall(ana.ID), s), vitrine.ConflictError)
		bs, _ := f.db.Shop(ctx, b.ID)
		bs.Domain, bs.UpdatedAt = "us.alfa.example", vitrine.Now()
		wantType(t, f.db.SaveShop(ctx, shopCall(bia.ID), bs), vitrine.ConflictError)

		// Deleted: gone, audited; twice is not found.
		if err := f.db.DeleteMarket(ctx, marketCall(ana.ID, "delete_market"), a.ID, "ca"); err != nil {
			t.Fatal(err)
		}
		wantType(t, f.db.DeleteMarket(ctx, marketCall(ana.ID, "delete_market"), a.ID, "ca"), vitrine.NotFoundError)
		wantType(t, f.db.DeleteMarket(ctx, marketCall(bia.ID, "delete_market"), b.ID, "ca"), vitrine.NotFoundError)
		if events, _ := f.db.ListAudit(ctx, a.ID, vitrine.AuditFilter{Tool: "delete_market", Limit: 10}); len(events) != 1 || events[0].TargetID != ca.ID {
			t.Errorf("the delete's event: %+v", events)
		}
	})
}

// Two save_market calls at once, of two markets of one company, cannot both
// take a country: on PostgreSQL each passes the check of the other
// markets in its own transaction (the two are held, by a lock on the
// table's writes, until both have read the markets), and the database's
// key on (company, country) refuses the second, whose error names the
// market that took it.
func TestMarketCountryRace(t *testing.T) {
	url := dbtest.PostgresURL(t)
	f := newFixture(t, url)
	ana := f.user("ana@example.com")
	a := f.tenant("alfa", ana)

	lock, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close(ctx)
	tx, err := lock.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Reads go on; the markets' INSERTs wait.
	if _, err := tx.Exec(ctx, `LOCK TABLE markets IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	handles := []string{"us", "usa"}
	errs := make([]error, len(handles))
	var wg sync.WaitGroup
	for i, h := range handles {
		wg.Go(func() { errs[i] = f.db.SaveMarket(ctx, marketCall(ana.ID, "save_market"), newMarket(a.ID, h, "US")) })
	}
	// Both writes have read the markets (none) and wait on the lock.
	// (A write waits on the lock at its INSERT's parse, which pg_stat_activity
	// shows blocked by the lock's holder whatever its query column says; it
	// is read outside the lock's transaction, which would keep its first
	// snapshot of it.)
	var holder int
	if err := tx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&holder); err != nil {
		t.Fatal(err)
	}
	watch, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)
	waitFor(t, func() bool {
		var n int
		err := watch.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))`, holder).Scan(&n)
		return err == nil && n == len(handles)
	})
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	won := slices.IndexFunc(errs, func(err error) bool { return err == nil })
	if won < 0 {
		t.Fatalf("neither save took US: %v", errs)
	}
	lost := errs[1-won]
	if vitrine.TypeOf(lost) != vitrine.ConflictError || !strings.Contains(lost.Error(), `US is already in market "`+handles[won]+`"`) {
		t.Errorf("the save that lost the race: %v", lost)
	}
	ms, err := f.db.Markets(ctx, a.ID)
	if err != nil || len(ms) != 1 || ms[0].Handle != handles[won] {
		t.Errorf("the company's markets: %+v, %v", ms, err)
	}
}

// waitFor polls cond until it holds, failing t after ten seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatal("timed out waiting")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// A market's prices: set, replaced, removed, read by variant; gone with
// their variant and with their market; and never another company's: a
// market id of one company names nothing in another.
func TestMarketPrices(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana, bia := f.user("ana@example.com"), f.user("bia@example.com")
		a, b := f.tenant("alfa", ana), f.tenant("beta", bia)
		p1 := f.product(a.ID, "A-1", "Apple", 1000, vitrine.ProductActive)
		p2 := f.product(a.ID, "A-2", "Avocado", 2000, vitrine.ProductActive)
		bp := f.product(b.ID, "B-1", "Banana", 3000, vitrine.ProductActive)
		v1, v2, bv := p1.Variants[0].ID, p2.Variants[0].ID, bp.Variants[0].ID
		us, bus := newMarket(a.ID, "us", "US"), newMarket(b.ID, "us", "US")
		for _, m := range []*vitrine.Market{us, bus} {
			if err := f.db.SaveMarket(ctx, marketCall(ana.ID, "save_market"), m); err != nil {
				t.Fatal(err)
			}
		}
		compare := int64(2500)
		stamp0, _ := f.db.CatalogStamp(ctx, a.ID)
		err := f.db.SetMarketPrices(ctx, marketCall(ana.ID, "set_market_prices"), a.ID, us.ID,
			[]vitrine.MarketPrice{{VariantID: v1, Price: 199}, {VariantID: v2, Price: 399, CompareAtPrice: &compare}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := f.db.CatalogStamp(ctx, a.ID); s == stamp0 {
			t.Error("setting prices left the catalog's stamp")
		}
		if m, _ := f.db.MarketByHandle(ctx, a.ID, "us"); m.Version != 2 {
			t.Errorf("the market's version after its prices: %d", m.Version)
		}
		got, err := f.db.MarketPrices(ctx, a.ID, us.ID, []string{v1, v2, bv, "nonsense"})
		if err != nil || len(got) != 2 || got[v1].Price != 199 || got[v1].CompareAtPrice != nil || got[v2].Price != 399 || *got[v2].CompareAtPrice != 2500 {
			t.Fatalf("prices: %+v, %v", got, err)
		}
		// Replaced and removed in one write.
		if err := f.db.SetMarketPrices(ctx, marketCall(ana.ID, "set_market_prices"), a.ID, us.ID,
			[]vitrine.MarketPrice{{VariantID: v1, Price: 299}}, []string{v2}); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.db.MarketPrices(ctx, a.ID, us.ID, []string{v1, v2}); len(got) != 1 || got[v1].Price != 299 {
			t.Errorf("after replace and remove: %+v", got)
		}

		// Isolation: b cannot write a's market, nor a price of a's
		// variant into its own, nor read a's.
		wantType(t, f.db.SetMarketPrices(ctx, marketCall(bia.ID, "set_market_prices"), b.ID, us.ID,
			[]vitrine.MarketPrice{{VariantID: bv, Price: 1}}, nil), vitrine.NotFoundError)
		if err := f.db.SetMarketPrices(ctx, marketCall(bia.ID, "set_market_prices"), b.ID, bus.ID,
			[]vitrine.MarketPrice{{VariantID: v1, Price: 1}}, nil); err == nil {
			t.Error("b priced a's variant in its market")
		}
		if got, _ := f.db.MarketPrices(ctx, b.ID, us.ID, []string{v1, v2}); len(got) != 0 {
			t.Errorf("a's prices through b: %+v", got)
		}
		if got, _ := f.db.MarketPrices(ctx, b.ID, bus.ID, []string{v1, v2}); len(got) != 0 {
			t.Errorf("a's variants in b's market: %+v", got)
		}
		if got, _ := f.db.MarketPrices(ctx, a.ID, us.ID, []string{v1}); got[v1].Price != 299 {
			t.Errorf("a's price after b's tries: %+v", got)
		}

		// Gone with the variant (its product), then with the market.
		if err := f.db.DeleteProduct(ctx, testChange, a.ID, p1.ID); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.db.MarketPrices(ctx, a.ID, us.ID, []string{v1}); len(got) != 0 {
			t.Errorf("a deleted variant's price: %+v", got)
		}
		if err := f.db.SetMarketPrices(ctx, marketCall(ana.ID, "set_market_prices"), a.ID, us.ID, []vitrine.MarketPrice{{VariantID: v2, Price: 5}}, nil); err != nil {
			t.Fatal(err)
		}
		if err := f.db.DeleteMarket(ctx, marketCall(ana.ID, "delete_market"), a.ID, "us"); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.db.MarketPrices(ctx, a.ID, us.ID, []string{v2}); len(got) != 0 {
			t.Errorf("a deleted market's price: %+v", got)
		}
		if n, err := f.db.QueryAs(ctx, a.ID, `SELECT variant_id FROM market_prices`); err == nil && len(n) != 0 {
			t.Errorf("rows left: %v", n)
		}
	})
}

// A filter by a market's prices keeps the company's products a variant of
// which the market sells within the range: at its explicit price there
// where it has one (its catalog price then counts for nothing), else at
// its catalog price converted; the products found and the facets' counts
// are those of a brute-force count over every product, on both databases,
// under every range; with options, the same variant holds both; a draft
// is never found, and another company's prices in a market of its own
// never count, even named by that market's id.
func TestMarketPriceFilter(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana, bia := f.user("ana@example.com"), f.user("bia@example.com")
		a, b := f.tenant("alfa", ana), f.tenant("beta", bia)
		us, bus := newMarket(a.ID, "us", "US"), newMarket(b.ID, "us", "US")
		us.ExchangeRate, bus.ExchangeRate = "0.2", "0.2"
		for _, m := range []*vitrine.Market{us, bus} {
			if err := f.db.SaveMarket(ctx, marketCall(ana.ID, "save_market"), m); err != nil {
				t.Fatal(err)
			}
		}
		cv, err := vitrine.NewConverter(us.ExchangeRate, us.Rounding, 2)
		if err != nil {
			t.Fatal(err)
		}
		// Twenty products of a, of one to three variants (sizes P, M, G),
		// R$ 10.00 to R$ 200.00; one in three variants with an explicit
		// price in the market, far from its conversion; every fifth
		// product a draft.
		var ps []*vitrine.Product
		explicit := map[string]int64{}
		var prices []vitrine.MarketPrice
		for i := range 20 {
			status := vitrine.ProductActive
			if i%5 == 4 {
				status = vitrine.ProductDraft
			}
			p := newProduct(a.ID, fmt.Sprintf("A-%02d", i), fmt.Sprintf("Produto %02d", i), int64(1000+i*1000), status)
			p.Vendor = fmt.Sprintf("Vendor %d", i%3)
			p.Options = []vitrine.Option{{Name: "Tamanho", Values: []string{"P", "M", "G"}[:1+i%3]}}
			p.Variants[0].Options = map[string]string{"Tamanho": "P"}
			for j, size := range p.Options[0].Values[1:] {
				p.Variants = append(p.Variants, &vitrine.Variant{ID: vitrine.NewID(), SKU: fmt.Sprintf("A-%02d-%s", i, size),
					Options: map[string]string{"Tamanho": size}, Price: p.Variants[0].Price + int64(j+1)*700, Stock: 1,
					Policy: vitrine.PolicyDeny, Position: j + 2})
			}
			p.Summarize()
			if err := createProduct(f.db, p); err != nil {
				t.Fatal(err)
			}
			for j, v := range p.Variants {
				if (i+j)%3 == 0 {
					price := int64(500 + (i*7919+j*104729)%9000) // 5.00 to 94.99 dollars
					explicit[v.ID] = price
					prices = append(prices, vitrine.MarketPrice{VariantID: v.ID, Price: price})
				}
			}
			ps = append(ps, p)
		}
		if err := f.db.SetMarketPrices(ctx, marketCall(ana.ID, "set_market_prices"), a.ID, us.ID, prices, nil); err != nil {
			t.Fatal(err)
		}
		// b's products, at any price in b's market: none is a's.
		bp := f.product(b.ID, "B-1", "Produto B", 5000, vitrine.ProductActive)
		if err := f.db.SetMarketPrices(ctx, marketCall(bia.ID, "set_market_prices"), b.ID, bus.ID,
			[]vitrine.MarketPrice{{VariantID: bp.Variants[0].ID, Price: 1000}}, nil); err != nil {
			t.Fatal(err)
		}
		priceIn := func(marketID string, v *vitrine.Variant) int64 {
			if e, ok := explicit[v.ID]; ok && marketID == us.ID {
				return e
			}
			c, _ := cv.Convert(v.Price, 2)
			return c
		}
		kept := 0
		for _, r := range []struct{ min, max *int64 }{
			{ptr(int64(0)), ptr(int64(1999))}, {ptr(int64(2000)), ptr(int64(4999))}, {ptr(int64(600)), nil}, {nil, ptr(int64(999))},
			{ptr(int64(3000)), ptr(int64(3000))}, {ptr(int64(9000)), ptr(int64(100000))}, {nil, nil},
		} {
			for _, marketID := range []string{us.ID, bus.ID} {
				for i, size := range []string{"", "M", ""} {
					mr := &vitrine.MarketPriceRange{MarketID: marketID, Min: r.min, Max: r.max, Currency: "BRL"}
					mr.CatalogMin, mr.CatalogMax = cv.CatalogBounds(r.min, r.max, 2)
					q := vitrine.ProductQuery{Status: vitrine.ProductActive, MarketPrices: mr, Facets: []vitrine.FacetName{vitrine.FacetVendor}, Sort: vitrine.SortName}
					if size != "" {
						q.Options = map[string]string{"Tamanho": size}
					}
					if i == 2 {
						// A text query every product matches, by relevance.
						q.Query, q.Sort = "produto", ""
					}
					var want []string
					for _, p := range ps {
						if p.Status != vitrine.ProductActive {
							continue
						}
						for _, v := range p.Variants {
							c := priceIn(marketID, v)
							if (size == "" || v.Options["Tamanho"] == size) && (r.min == nil || c >= *r.min) && (r.max == nil || c <= *r.max) {
								want = append(want, p.Name)
								break
							}
						}
					}
					slices.Sort(want)
					found, err := f.db.FindProducts(ctx, a.ID, filterOf(q, 100))
					if err != nil {
						t.Fatal(err)
					}
					var got []string
					for _, p := range found.Products {
						got = append(got, p.Name)
					}
					slices.Sort(got)
					counted := int64(0)
					for _, v := range found.Facets.Values[vitrine.FacetVendor] {
						counted += v.Count
					}
					if !slices.Equal(got, want) || counted != int64(len(want)) {
						t.Errorf("%v to %v in market %s, size %q, query %q: %v (vendors count %d); want %v", deref(r.min), deref(r.max), marketID, size, q.Query, got, counted, want)
					}
					kept += len(want)
				}
			}
		}
		if kept == 0 {
			t.Fatal("no range keeps a product: the test tells nothing")
		}
		// The explicit price decides, not the conversion: a product whose
		// only variant converts within a range and is priced outside it
		// there is not found.
		p := ps[3]
		if len(p.Variants) != 1 || explicit[p.Variants[0].ID] == 0 {
			t.Fatalf("product 3 should have one variant with an explicit price: %+v", p.Variants)
		}
		conv, _ := cv.Convert(p.Variants[0].Price, 2)
		mr := &vitrine.MarketPriceRange{MarketID: us.ID, Min: &conv, Max: &conv, Currency: "BRL"}
		mr.CatalogMin, mr.CatalogMax = cv.CatalogBounds(mr.Min, mr.Max, 2)
		found, err := f.db.FindProducts(ctx, a.ID, filterOf(vitrine.ProductQuery{Status: vitrine.ProductActive, MarketPrices: mr}, 100))
		if err != nil {
			t.Fatal(err)
		}
		for _, fp := range found.Products {
			if fp.ID == p.ID {
				t.Errorf("%s found at its converted price %d; its price in the market is %d", p.Name, conv, explicit[p.Variants[0].ID])
			}
		}
	})
}

func ptr[T any](v T) *T { return &v }

func deref(p *int64) any {
	if p == nil {
		return "none"
	}
	return *p
}
