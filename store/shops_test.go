package store_test

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

// shopCall is a change made in a call of update_shop, which its audit
// event records.
func shopCall(userID string) vitrine.Change {
	call := vitrine.Call{RequestID: vitrine.NewID(), Tool: "update_shop", At: vitrine.Now(), Reason: "update_shop"}
	return vitrine.Change{UserID: userID, TokenID: "tok", Call: call, Reason: call.Reason}
}

// A company's window: closed until saved; saved whole, at the next
// version, with its audit event; found by the public by slug or domain
// only while open, and then the same way as any missing one; one domain
// to one company; another company reads nothing of it.
func TestShops(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana, bia := f.user("ana@example.com"), f.user("bia@example.com")
		a, b := f.tenant("alfa", ana), f.tenant("beta", bia)

		s, err := f.db.Shop(ctx, a.ID)
		if err != nil || s.Open || s.Version != 0 || s.Stock != vitrine.StockAvailability || s.TenantID != a.ID || len(s.Options) != 0 {
			t.Fatalf("a window never saved: %+v, %v", s, err)
		}
		for _, find := range []func() error{
			func() error { _, _, err := f.db.OpenShopBySlug(ctx, "alfa"); return err },
			func() error { _, _, err := f.db.OpenShopBySlug(ctx, "nobody"); return err },
			func() error { _, _, err := f.db.OpenShopByDomain(ctx, "shop.alfa.example"); return err },
		} {
			wantType(t, find(), vitrine.NotFoundError)
		}

		// Saved closed first: still not found, by slug or domain.
		s.ProductURL, s.Country, s.Domain = "https://alfa.example/p/{handle}", "BR", "shop.alfa.example"
		s.Options = map[string]string{"tamanho": "size", "cor": ""}
		s.UpdatedAt, s.UpdatedBy = vitrine.Now(), ana.ID
		ch := shopCall(ana.ID)
		if err := f.db.SaveShop(ctx, ch, s); err != nil || s.Version != 1 {
			t.Fatalf("save: %v, version %d", err, s.Version)
		}
		if _, _, err := f.db.OpenShopBySlug(ctx, "alfa"); vitrine.TypeOf(err) != vitrine.NotFoundError {
			t.Errorf("a closed window by slug: %v", err)
		}
		if _, _, err := f.db.OpenShopByDomain(ctx, "shop.alfa.example"); vitrine.TypeOf(err) != vitrine.NotFoundError {
			t.Errorf("a closed window by domain: %v", err)
		}
		events, err := f.db.ListAudit(ctx, a.ID, vitrine.AuditFilter{Tool: "update_shop", Limit: 10})
		if err != nil || len(events) != 1 || events[0].ID != ch.Call.RequestID || events[0].TargetID != a.ID || events[0].UserID != ana.ID {
			t.Errorf("the save's event: %+v, %v", events, err)
		}

		// Opened: found by slug, and by domain in any case and with its
		// trailing dot.
		s.Open, s.Stock = true, vitrine.StockExact
		if err := f.db.SaveShop(ctx, shopCall(ana.ID), s); err != nil || s.Version != 2 {
			t.Fatalf("open: %v, version %d", err, s.Version)
		}
		got, err := f.db.Shop(ctx, a.ID)
		if err != nil || !got.Open || got.Version != 2 || got.ProductURL != s.ProductURL || got.Country != "BR" || got.Stock != vitrine.StockExact ||
			got.Domain != "shop.alfa.example" || !maps.Equal(got.Options, s.Options) || got.UpdatedBy != ana.ID || !got.UpdatedAt.Equal(s.UpdatedAt) {
			t.Errorf("read back: %+v, %v; want %+v", got, err, s)
		}
		for _, find := range []func() (*vitrine.Tenant, *vitrine.Shop, error){
			func() (*vitrine.Tenant, *vitrine.Shop, error) { return f.db.OpenShopBySlug(ctx, "alfa") },
			func() (*vitrine.Tenant, *vitrine.Shop, error) {
				return f.db.OpenShopByDomain(ctx, "Shop.Alfa.Example.")
			},
		} {
			tn, sh, err := find()
			if err != nil || tn.ID != a.ID || tn.Slug != "alfa" || tn.Name != a.Name || sh.TenantID != a.ID || !sh.Open || sh.Version != 2 {
				t.Errorf("the open window: %+v %+v %v", tn, sh, err)
			}
		}
		if _, _, err := f.db.OpenShopByDomain(ctx, ""); vitrine.TypeOf(err) != vitrine.NotFoundError {
			t.Errorf("no domain: %v", err)
		}

		// A save from a stale read is refused, and changes nothing.
		stale := *got
		stale.Version = 1
		stale.Country = "US"
		wantType(t, f.db.SaveShop(ctx, shopCall(ana.ID), &stale), vitrine.ConflictError)
		if now, _ := f.db.Shop(ctx, a.ID); now.Country != "BR" || now.Version != 2 {
			t.Errorf("after a stale save: %+v", now)
		}

		// The other company: its window is its own, empty domains do not
		// clash, a's domain is refused with no trace written.
		sb, err := f.db.Shop(ctx, b.ID)
		if err != nil || sb.Open || sb.Version != 0 || sb.Domain != "" {
			t.Fatalf("b reads %+v, %v", sb, err)
		}
		sb.Open, sb.UpdatedAt = true, vitrine.Now()
		if err := f.db.SaveShop(ctx, shopCall(bia.ID), sb); err != nil {
			t.Fatalf("b's window without a domain: %v", err)
		}
		sb.Domain = "shop.alfa.example"
		taken := shopCall(bia.ID)
		err = f.db.SaveShop(ctx, taken, sb)
		var ve *vitrine.Error
		if !errors.As(err, &ve) || ve.Type != vitrine.ConflictError || ve.Field != "domain" {
			t.Fatalf("a domain another company holds: %v", err)
		}
		if now, _ := f.db.Shop(ctx, b.ID); now.Domain != "" || now.Version != 1 {
			t.Errorf("b after the refused domain: %+v", now)
		}
		if events, _ := f.db.ListAudit(ctx, b.ID, vitrine.AuditFilter{Tool: "update_shop", Limit: 10}); len(events) != 1 {
			t.Errorf("b's events: %d; want the first save's alone", len(events))
		}
		if tn, _, err := f.db.OpenShopByDomain(ctx, "shop.alfa.example"); err != nil || tn.ID != a.ID {
			t.Errorf("a's domain after b's try: %+v %v", tn, err)
		}
		if tn, _, err := f.db.OpenShopBySlug(ctx, "beta"); err != nil || tn.ID != b.ID {
			t.Errorf("b's window by slug: %+v %v", tn, err)
		}

		// Closed again: every public lookup answers as for none.
		s.Open = false
		if err := f.db.SaveShop(ctx, shopCall(ana.ID), s); err != nil {
			t.Fatal(err)
		}
		_, _, bySlug := f.db.OpenShopBySlug(ctx, "alfa")
		_, _, byDomain := f.db.OpenShopByDomain(ctx, "shop.alfa.example")
		_, _, none := f.db.OpenShopBySlug(ctx, "nobody")
		if bySlug == nil || bySlug.Error() != none.Error() || byDomain == nil || byDomain.Error() != none.Error() {
			t.Errorf("closed: %v, %v; none: %v", bySlug, byDomain, none)
		}

		// Row-level security alone keeps each company's row from the other.
		if dbtest.IsPostgres(url) {
			for _, tn := range []string{a.ID, b.ID} {
				rows, err := f.db.QueryAs(ctx, tn, `SELECT tenant_id::text FROM shops`)
				if err != nil || !slices.Equal(rows, []string{tn}) {
					t.Errorf("shops seen in %s: %v, %v", tn, rows, err)
				}
			}
			if rows, err := f.db.QueryAs(ctx, "", `SELECT tenant_id::text FROM shops`); err != nil || len(rows) != 0 {
				t.Errorf("shops seen outside any tenant: %v, %v", rows, err)
			}
			if n, err := f.db.ExecAs(ctx, b.ID, `UPDATE shops SET open = false`); err != nil || n != 1 {
				t.Errorf("b's update of every row touched %d, %v", n, err)
			}
			if now, _ := f.db.Shop(ctx, a.ID); now.Version != 3 || now.Domain != "shop.alfa.example" {
				t.Errorf("a's window after b's writes: %+v", now)
			}
		}
	})
}

// An attribute definition's public flag is kept, and changed.
func TestAttributePublic(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		tn := f.tenant("alfa", f.user("ana@example.com"))
		now := vitrine.Now()
		for _, a := range []*vitrine.Attribute{
			{TenantID: tn.ID, Key: "material", Name: "Material", Type: vitrine.AttributeText, Public: true, CreatedAt: now, UpdatedAt: now},
			{TenantID: tn.ID, Key: "cost", Name: "Cost", Type: vitrine.AttributeNumber, CreatedAt: now, UpdatedAt: now},
		} {
			if err := f.db.SaveAttribute(ctx, testChange, a, false); err != nil {
				t.Fatal(err)
			}
		}
		public := func() map[string]bool {
			all, err := f.db.Attributes(ctx, tn.ID)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]bool{}
			for _, a := range all {
				out[a.Key] = a.Public
			}
			return out
		}
		if got := public(); !maps.Equal(got, map[string]bool{"material": true, "cost": false}) {
			t.Errorf("public: %v", got)
		}
		up := &vitrine.Attribute{TenantID: tn.ID, Key: "material", Name: "Material", Type: vitrine.AttributeText, Public: false, UpdatedAt: vitrine.Now()}
		if err := f.db.SaveAttribute(ctx, testChange, up, true); err != nil {
			t.Fatal(err)
		}
		if got := public(); !maps.Equal(got, map[string]bool{"material": false, "cost": false}) {
			t.Errorf("public after the update: %v", got)
		}
	})
}

// The catalog's stamp moves with every change of what a window shows, in
// that company alone, and with no write that fails or rolls back.
func TestCatalogStamp(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana := f.user("ana@example.com")
		a, b := f.tenant("alfa", ana), f.tenant("beta", f.user("bia@example.com"))
		stamp := func(tenantID string) string {
			t.Helper()
			s, err := f.db.CatalogStamp(ctx, tenantID)
			if err != nil || s == "" {
				t.Fatalf("stamp: %q, %v", s, err)
			}
			return s
		}
		epoch, err := f.db.AccessEpoch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]string{stamp(a.ID): "the start"}
		bStamp := stamp(b.ID)
		moves := func(what string, write func() error) {
			t.Helper()
			if err := write(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			s := stamp(a.ID)
			if prev, ok := seen[s]; ok {
				t.Errorf("after %s the stamp is %q, as after %s", what, s, prev)
			}
			seen[s] = what
			if got := stamp(b.ID); got != bStamp {
				t.Errorf("%s in a moved b's stamp: %q -> %q", what, bStamp, got)
			}
		}
		stays := func(what string, write func() error) {
			t.Helper()
			before := stamp(a.ID)
			if err := write(); err == nil {
				t.Fatalf("%s succeeded", what)
			}
			if after := stamp(a.ID); after != before {
				t.Errorf("%s, which failed, moved the stamp: %q -> %q", what, before, after)
			}
		}

		p := newProduct(a.ID, "P-1", "Shirt", 100, vitrine.ProductActive)
		moves("a product created", func() error { return createProduct(f.db, p) })
		moves("a product updated", func() error {
			_, err := f.db.UpdateProduct(ctx, testChange, a.ID, p.ID, func(q *vitrine.Product) error { q.Name = "Blouse"; return nil })
			return err
		})
		moves("stock changed", func() error {
			_, err := f.db.UpdateProduct(ctx, testChange, a.ID, p.ID, func(q *vitrine.Product) error {
				q.Variants[0].Stock = 9
				q.Summarize()
				return nil
			})
			return err
		})
		imported := importBatch(a.ID, 0, 3)
		moves("products imported", func() error {
			_, err := f.db.WriteProducts(ctx, testChange, a.ID, imported, true, nil)
			return err
		})
		now := vitrine.Now()
		cat := &vitrine.Category{ID: vitrine.NewID(), TenantID: a.ID, Name: "Tops", Handle: "tops", CreatedAt: now, UpdatedAt: now}
		moves("a category created", func() error { return f.db.SaveCategory(ctx, testChange, cat, false) })
		moves("a category renamed", func() error { cat.Name = "Shirts"; return f.db.SaveCategory(ctx, testChange, cat, true) })
		moves("a category deleted", func() error { return f.db.DeleteCategory(ctx, testChange, a.ID, cat.ID) })
		attr := &vitrine.Attribute{TenantID: a.ID, Key: "material", Name: "Material", Type: vitrine.AttributeText, CreatedAt: now, UpdatedAt: now}
		moves("an attribute defined", func() error { return f.db.SaveAttribute(ctx, testChange, attr, false) })
		moves("an attribute made public", func() error { attr.Public = true; return f.db.SaveAttribute(ctx, testChange, attr, true) })
		moves("an attribute deleted", func() error { return f.db.DeleteAttribute(ctx, testChange, a.ID, "material") })
		shop := vitrine.NewShop(a.ID)
		moves("the window opened", func() error { shop.Open = true; return f.db.SaveShop(ctx, shopCall(ana.ID), shop) })
		moves("the window's country set", func() error { shop.Country = "BR"; return f.db.SaveShop(ctx, shopCall(ana.ID), shop) })
		moves("the company renamed", func() error { a.Name = "Alfa Ltda"; return f.db.UpdateTenant(ctx, testChange, a) })
		moves("a product deleted", func() error { return f.db.DeleteProduct(ctx, testChange, a.ID, p.ID) })

		dup := newProduct(a.ID, "imp-000000", "Taken SKU", 100, vitrine.ProductActive) // an imported SKU
		dup.Handle = "taken-sku"
		stays("a product with a taken SKU", func() error { return createProduct(f.db, dup) })
		stays("a missing product's deletion", func() error { return f.db.DeleteProduct(ctx, testChange, a.ID, vitrine.NewID()) })
		stays("an update its change refused", func() error {
			_, err := f.db.UpdateProduct(ctx, testChange, a.ID, imported[0].Create.ID, func(*vitrine.Product) error {
				return vitrine.Invalid("name", "no")
			})
			return err
		})
		stays("an atomic import rolled back", func() error {
			writes := importBatch(a.ID, 10, 3)
			writes[2].Create.Variants[0].SKU = "IMP-000001"
			writes[2].Create.Summarize()
			results, err := f.db.WriteProducts(ctx, testChange, a.ID, writes, true, nil)
			if err == nil && slices.IndexFunc(results, func(e error) bool { return e != nil }) < 0 {
				return nil
			}
			return errors.New("rolled back")
		})
		stays("a stale save of the window", func() error {
			old := *shop
			old.Version = 1
			return f.db.SaveShop(ctx, shopCall(ana.ID), &old)
		})
		stays("a category under a missing parent", func() error {
			c := &vitrine.Category{ID: vitrine.NewID(), TenantID: a.ID, ParentID: vitrine.NewID(), Name: "X", Handle: "x", CreatedAt: now, UpdatedAt: now}
			return f.db.SaveCategory(ctx, testChange, c, false)
		})

		// The bump writes the company's row, which moves no access epoch:
		// every caller's cached access stays good.
		if now, err := f.db.AccessEpoch(ctx); err != nil || now != epoch {
			t.Errorf("the access epoch moved with the catalog's writes: %d -> %d, %v", epoch, now, err)
		}

		if _, err := f.db.CatalogStamp(ctx, vitrine.NewID()); vitrine.TypeOf(err) != vitrine.NotFoundError {
			t.Errorf("the stamp of no company: %v", err)
		}
	})
}
