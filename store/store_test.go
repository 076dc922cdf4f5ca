package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/store"
)

var ctx = context.Background()

// fixture builds rows straight through the store.
type fixture struct {
	t  *testing.T
	db *store.DB
}

func newFixture(t *testing.T, url string) *fixture {
	return &fixture{t: t, db: dbtest.Open(t, url)}
}

func (f *fixture) user(email string) *vitrine.User {
	f.t.Helper()
	now := vitrine.Now()
	u := &vitrine.User{ID: vitrine.NewID(), Email: email, Name: "User " + email, CreatedAt: now, UpdatedAt: now}
	if err := f.db.CreateUser(ctx, u); err != nil {
		f.t.Fatal(err)
	}
	return u
}

func (f *fixture) tenant(slug string, owner *vitrine.User) *vitrine.Tenant {
	f.t.Helper()
	now := vitrine.Now()
	tn := &vitrine.Tenant{ID: vitrine.NewID(), Name: "Tenant " + slug, Slug: slug, CreatedAt: now, UpdatedAt: now}
	m := &vitrine.Membership{ID: vitrine.NewID(), TenantID: tn.ID, UserID: owner.ID, Role: vitrine.RoleOwner, Status: vitrine.MembershipActive, CreatedAt: now, UpdatedAt: now}
	if err := f.db.CreateTenant(ctx, testChange, tn, m); err != nil {
		f.t.Fatal(err)
	}
	return tn
}

func (f *fixture) product(tenantID, sku, name string, price int64, status vitrine.ProductStatus) *vitrine.Product {
	f.t.Helper()
	p := newProduct(tenantID, sku, name, price, status)
	if err := createProduct(f.db, p); err != nil {
		f.t.Fatal(err)
	}
	return p
}

// author stands for the user who writes the fixture's products.
var author = vitrine.NewID()

func newProduct(tenantID, sku, name string, price int64, status vitrine.ProductStatus) *vitrine.Product {
	now := vitrine.Now()
	p := &vitrine.Product{ID: vitrine.NewID(), TenantID: tenantID, Handle: vitrine.HandleOf(sku), Name: name, Currency: "BRL",
		Status: status, Version: 1, CreatedAt: now, CreatedBy: author, UpdatedAt: now, UpdatedBy: author,
		Variants: []*vitrine.Variant{{ID: vitrine.NewID(), SKU: sku, Options: map[string]string{}, Price: price, Stock: 1,
			Policy: vitrine.PolicyDeny, RequiresShipping: true, Taxable: true, Position: 1}}}
	p.Summarize()
	return p
}

func createProduct(db *store.DB, p *vitrine.Product) error {
	_, err := db.CreateProduct(ctx, testChange, p, nil)
	return err
}

func wantType(t *testing.T, err error, typ vitrine.ErrorType) {
	t.Helper()
	if vitrine.TypeOf(err) != typ || (typ == vitrine.GenericError && err == nil) {
		t.Fatalf("got %v, want a %s", err, typ)
	}
}

func TestUsers(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		u := f.user("Ana@Example.com")
		got, err := f.db.UserByEmail(ctx, "ana@EXAMPLE.com")
		if err != nil || got.ID != u.ID || got.Email != "Ana@Example.com" || !got.CreatedAt.Equal(u.CreatedAt) {
			t.Fatalf("UserByEmail = %+v, %v", got, err)
		}
		if got, err := f.db.UserByID(ctx, u.ID); err != nil || got.Email != u.Email {
			t.Fatalf("UserByID = %+v, %v", got, err)
		}
		dup := &vitrine.User{ID: vitrine.NewID(), Email: "ANA@example.COM", Name: "x", CreatedAt: vitrine.Now(), UpdatedAt: vitrine.Now()}
		wantType(t, f.db.CreateUser(ctx, dup), vitrine.ConflictError)
		_, err = f.db.UserByEmail(ctx, "nobody@example.com")
		wantType(t, err, vitrine.NotFoundError)
	})
}

func TestTenantsAndMemberships(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana, bia := f.user("ana@example.com"), f.user("bia@example.com")
		zeta := f.tenant("zeta", ana)
		alfa := f.tenant("alfa", bia)
		now := vitrine.Now()
		err := f.db.CreateMembership(ctx, testChange, &vitrine.Membership{ID: vitrine.NewID(), TenantID: alfa.ID, UserID: ana.ID, Role: vitrine.RoleViewer,
			Status: vitrine.MembershipActive, Grants: vitrine.NewPermissionSet(vitrine.ProductsCreate), CreatedAt: now, UpdatedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		ms, err := f.db.MembershipsOfUser(ctx, ana.ID)
		if err != nil || len(ms) != 2 || ms[0].Tenant.Slug != "alfa" || ms[1].Tenant.Slug != "zeta" {
			t.Fatalf("MembershipsOfUser = %+v, %v", ms, err)
		}
		viewer := ms[0].Membership
		if viewer.Role != vitrine.RoleViewer || !viewer.Permissions().Has(vitrine.ProductsCreate) || viewer.Permissions().Has(vitrine.ProductsDelete) {
			t.Fatalf("viewer with a grant holds %v", viewer.Permissions().List())
		}
		// The same slug again, or the same member again, is a conflict.
		tn := &vitrine.Tenant{ID: vitrine.NewID(), Name: "x", Slug: "zeta", CreatedAt: now, UpdatedAt: now}
		wantType(t, f.db.CreateTenant(ctx, testChange, tn, &vitrine.Membership{ID: vitrine.NewID(), TenantID: tn.ID, UserID: ana.ID, Role: "owner", Status: "active", CreatedAt: now, UpdatedAt: now}), vitrine.ConflictError)
		wantType(t, f.db.CreateMembership(ctx, testChange, &vitrine.Membership{ID: vitrine.NewID(), TenantID: zeta.ID, UserID: ana.ID, Role: "viewer", Status: "active", CreatedAt: now, UpdatedAt: now}), vitrine.ConflictError)
		if _, err := f.db.TenantBySlug(ctx, "zeta"); err != nil {
			t.Fatal(err)
		}
		// An inactive membership is returned by Membership, but not listed.
		err = f.db.CreateMembership(ctx, testChange, &vitrine.Membership{ID: vitrine.NewID(), TenantID: zeta.ID, UserID: bia.ID, Role: "member", Status: vitrine.MembershipInactive, CreatedAt: now, UpdatedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		m, err := f.db.Membership(ctx, zeta.ID, bia.ID)
		if err != nil || m.Status != vitrine.MembershipInactive {
			t.Fatalf("Membership = %+v, %v", m, err)
		}
		if ms, _ := f.db.MembershipsOfUser(ctx, bia.ID); len(ms) != 1 || ms[0].Tenant.ID != alfa.ID {
			t.Fatalf("bia's active memberships: %+v", ms)
		}
		_, err = f.db.Membership(ctx, vitrine.NewID(), bia.ID)
		wantType(t, err, vitrine.NotFoundError)
		zeta.Name, zeta.Slug, zeta.UpdatedAt = "Zeta Renamed", "alfa", vitrine.Now()
		wantType(t, f.db.UpdateTenant(ctx, testChange, zeta), vitrine.ConflictError)
	})
}

func TestProducts(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana := f.user("ana@example.com")
		a, b := f.tenant("a", ana), f.tenant("b", ana)
		p := f.product(a.ID, "NB-DELL-5440", "Notebook Dell", 459990, vitrine.ProductActive)

		got, err := f.db.ProductByID(ctx, a.ID, p.ID)
		if err != nil || got.Price != 459990 || got.SKU != "NB-DELL-5440" || got.Version != 1 || !got.UpdatedAt.Equal(p.UpdatedAt) {
			t.Fatalf("ProductByID = %+v, %v", got, err)
		}
		if got, err := f.db.ProductBySKU(ctx, a.ID, "nb-dell-5440"); err != nil || got.ID != p.ID {
			t.Fatalf("ProductBySKU in another case = %+v, %v", got, err)
		}
		// SKUs are unique per tenant without regard to case, and free in another tenant.
		wantType(t, createProduct(f.db, newProduct(a.ID, "nb-dell-5440", "Dup", 1, vitrine.ProductActive)), vitrine.ConflictError)
		other := f.product(b.ID, "nb-dell-5440", "Same SKU elsewhere", 1, vitrine.ProductActive)

		// Another tenant's product is not found through this tenant.
		_, err = f.db.ProductByID(ctx, a.ID, other.ID)
		wantType(t, err, vitrine.NotFoundError)
		_, err = f.db.UpdateProduct(ctx, testChange, a.ID, other.ID, func(*vitrine.Product) error {
			t.Error("another tenant's product reached the change")
			return nil
		})
		wantType(t, err, vitrine.NotFoundError)
		wantType(t, f.db.DeleteProduct(ctx, testChange, a.ID, other.ID), vitrine.NotFoundError)

		// An update applies its change to the stored product and bumps the version.
		got, err = f.db.UpdateProduct(ctx, testChange, a.ID, p.ID, func(p *vitrine.Product) error {
			p.Name, p.UpdatedAt = "Notebook Dell Inspiron", vitrine.Now()
			return nil
		})
		if err != nil || got.Version != 2 || got.Name != "Notebook Dell Inspiron" || got.Stock != 1 {
			t.Fatalf("UpdateProduct = %+v, %v", got, err)
		}
		// A change that refuses writes nothing.
		refused := vitrine.Conflict("expected_version", "stale")
		if _, err := f.db.UpdateProduct(ctx, testChange, a.ID, p.ID, func(p *vitrine.Product) error { p.Variants[0].Stock = 99; return refused }); err != refused {
			t.Fatalf("refused update = %v", err)
		}
		if again, _ := f.db.ProductByID(ctx, a.ID, p.ID); again.Stock != 1 || again.Version != 2 {
			t.Fatalf("after a refused update: %+v", again)
		}
		// A SKU change onto a taken SKU is a conflict; onto its own, in another case, is not.
		if _, err := f.db.UpdateProduct(ctx, testChange, a.ID, p.ID, func(p *vitrine.Product) error { p.Variants[0].SKU = "nb-dell-5440"; return nil }); err != nil {
			t.Fatalf("case change of own SKU: %v", err)
		}
		q := f.product(a.ID, "MS-1", "Mouse", 100, vitrine.ProductActive)
		_, err = f.db.UpdateProduct(ctx, testChange, a.ID, q.ID, func(q *vitrine.Product) error { q.Variants[0].SKU = "NB-DELL-5440"; return nil })
		wantType(t, err, vitrine.ConflictError)

		if err := f.db.DeleteProduct(ctx, testChange, a.ID, p.ID); err != nil {
			t.Fatal(err)
		}
		wantType(t, f.db.DeleteProduct(ctx, testChange, a.ID, p.ID), vitrine.NotFoundError)
		if _, err := f.db.ProductByID(ctx, b.ID, other.ID); err != nil {
			t.Fatalf("the other tenant's product: %v", err)
		}
	})
}

func TestListProducts(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana := f.user("ana@example.com")
		a, b := f.tenant("a", ana), f.tenant("b", ana)
		names := []string{"Maçã Fuji", "maca verde", "Banana", "banana prata", "Café", "Abacaxi", "Zimbro", "Ábaco", "Uva", "uva passa"}
		var all []*vitrine.Product
		for i := range 23 {
			status := vitrine.ProductActive
			if i%4 == 0 {
				status = vitrine.ProductArchived
			}
			// Prices and update times repeat, so that ties are broken by id.
			p := newProduct(a.ID, fmt.Sprintf("SKU-%02d", i), names[i%len(names)], int64(100*(i%5)), status)
			p.UpdatedAt = p.UpdatedAt.Add(time.Duration(i*7%11) * time.Millisecond)
			if err := createProduct(f.db, p); err != nil {
				t.Fatal(err)
			}
			all = append(all, p)
		}
		f.product(b.ID, "SKU-B", "Maçã de outra empresa", 1, vitrine.ProductActive)
		// A company whose products hold "pera" in the SKU itself, in names,
		// and elsewhere only.
		c := f.tenant("c", ana)
		var peras []*vitrine.Product
		for _, x := range []struct{ sku, name, description string }{
			{"PR-3", "Suco", "de pera"}, {"PR-1", "Pera Williams", ""}, {"PERA", "Fruta da estação", ""},
			{"PR-2", "Doce", "com peras"}, {"PR-4", "Geleia de pera", ""}, {"PR-5", "pera d'água", ""},
			{"PERAS-6", "Caixa", ""}, {"PR-7", "Uva", ""},
		} {
			p := newProduct(c.ID, x.sku, x.name, 1, vitrine.ProductActive)
			p.Description = x.description
			if err := createProduct(f.db, p); err != nil {
				t.Fatal(err)
			}
			peras = append(peras, p)
		}
		byRelevance := []*vitrine.Product{peras[2], peras[4], peras[5], peras[1], peras[6], peras[3], peras[0]}

		for _, s := range vitrine.ProductSorts {
			if s == vitrine.SortRelevance {
				continue // needs a query: see the search tests
			}
			for _, status := range []vitrine.ProductStatus{"", vitrine.ProductArchived} {
				t.Run(fmt.Sprintf("%s/%s", s, status), func(t *testing.T) {
					want := expected(all, s, status, "")
					got := pages(t, f.db, a.ID, filterOf(vitrine.ProductQuery{Sort: s, Status: status}, 7))
					if !slices.Equal(ids(got), ids(want)) {
						t.Fatalf("order\n got %v\nwant %v", names2(got), names2(want))
					}
				})
			}
		}
		// The text query ignores case and accents, matches the start of words
		// of names and SKUs, and stays in the tenant, whichever plan the
		// store takes for it.
		for _, plan := range []string{"index", "walk", "members"} {
			restore := store.PlanSearches(plan)
			for query, n := range map[string]int{"MAÇÃ": 6, "maca": 6, "sku-1": 10, "uva": 4, "ver mac": 3, "nada": 0} {
				got := pages(t, f.db, a.ID, filterOf(vitrine.ProductQuery{Sort: vitrine.SortName, Query: vitrine.QueryText(query)}, 3))
				if len(got) != n || !slices.Equal(ids(got), ids(expected(all, vitrine.SortName, "", query))) {
					t.Errorf("%s: query %q: %v", plan, query, names2(got))
				}
			}
			// By relevance: the SKU that is the query, then name matches, then
			// the rest, each by name.
			got := pages(t, f.db, a.ID, filterOf(vitrine.ProductQuery{Query: "sku-05"}, 2))
			if len(got) != 1 || got[0].SKU != "SKU-05" {
				t.Errorf("%s: relevance: %v", plan, names2(got))
			}
			got = pages(t, f.db, a.ID, filterOf(vitrine.ProductQuery{Query: "uva"}, 3))
			if want := expected(all, vitrine.SortName, "", "uva"); !slices.Equal(ids(got), ids(want)) {
				t.Errorf("%s: relevance: %v, want %v", plan, names2(got), names2(want))
			}
			for limit := 1; limit <= 8; limit++ {
				got = pages(t, f.db, c.ID, filterOf(vitrine.ProductQuery{Query: "Pera"}, limit))
				if !slices.Equal(ids(got), ids(byRelevance)) {
					t.Errorf("%s: relevance, %d a page: %v, want %v", plan, limit, names2(got), names2(byRelevance))
				}
			}
			restore()
		}
	})
}

// TestRelevanceRanksTheLabelBeforeTheRest: at each level of a query's
// matches, the products whose name holds its words come first, then those
// whose name and label (vendor, type, tags) hold them, then the rest
// (description, SKUs), each by name: whichever plan SQL takes, and as the
// facet index picks the page with facets. Products written before the
// label's words were kept (NULL) rank as the rest until the store fills
// them (when it migrates), each batch a change of the catalog the index
// follows.
func TestRelevanceRanksTheLabelBeforeTheRest(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana := f.user("ana@example.com")
		c := f.tenant("c", ana)
		byName := map[string]*vitrine.Product{}
		for _, x := range []struct{ sku, name, vendor, ptype, tag, description string }{
			{"T-1", "Toalha", "", "Linho", "", ""},
			{"B-1", "Blusa", "", "", "", "feita de linho"},
			{"C-1", "Camisa", "", "", "Linho", ""},
			{"LINHOX-1", "Bermuda", "", "", "", ""},
			{"A-1", "Camisa de Linho", "", "", "", ""},
			{"K-1", "Calça", "Linho & Cia", "", "", ""},
			{"V-1", "Vestido", "", "Roupa", "verão", "de algodão"},
		} {
			p := newProduct(c.ID, x.sku, x.name, 1, vitrine.ProductActive)
			p.Vendor, p.ProductType, p.Description = x.vendor, x.ptype, x.description
			if x.tag != "" {
				p.Tags = []string{x.tag}
			}
			if err := createProduct(f.db, p); err != nil {
				t.Fatal(err)
			}
			byName[x.name] = p
		}
		order := func(names ...string) []string { return idsByName(byName, names...) }
		facets := []vitrine.FacetName{vitrine.FacetVendor, vitrine.FacetTags}
		check := func(step, query string, want []string) {
			t.Helper()
			for _, plan := range []string{"index", "walk", "members"} {
				restore := store.PlanSearches(plan)
				for limit := 1; limit <= 4; limit++ {
					for _, q := range []vitrine.ProductQuery{{Query: vitrine.QueryText(query)}, {Query: vitrine.QueryText(query), Facets: facets}} {
						if got := ids(pages(t, f.db, c.ID, filterOf(q, limit))); !slices.Equal(got, want) {
							t.Errorf("%s: %s, %q, %d a page, facets %v:\n got %v\nwant %v", step, plan, query, limit, q.Facets, got, want)
						}
					}
				}
				restore()
			}
		}
		labelled := order("Camisa de Linho", "Calça", "Camisa", "Toalha", "Bermuda", "Blusa")
		check("SQL", "linho", labelled)
		// The words of a name and a label together: the label's rank.
		check("SQL", "camisa linho", order("Camisa de Linho", "Camisa"))
		check("SQL", "verao vestido", order("Vestido"))
		check("SQL", "roupa algodao", order("Vestido"))
		if _, err := f.db.FindProducts(ctx, c.ID, filterOf(vitrine.ProductQuery{Facets: facets}, 5)); err != nil {
			t.Fatal(err)
		}
		f.db.WaitIndexes()
		before := f.db.IndexStats()
		check("index", "linho", labelled)
		if s := f.db.IndexStats(); s.Index <= before.Index || s.SQL != before.SQL {
			t.Fatalf("%+v, before %+v: want the faceted lists counted by the index", s, before)
		}

		// Rows of before the label's words: none is labelled.
		if _, err := f.db.ExecAs(ctx, c.ID, `UPDATE products SET label_words = NULL WHERE tenant_id = $1`, c.ID); err != nil {
			t.Fatal(err)
		}
		fresh := openWith(t, url, store.Options{FacetIndexMemory: -1, NoMigrate: true})
		if got := ids(pages(t, fresh, c.ID, filterOf(vitrine.ProductQuery{Query: "linho"}, 3))); !slices.Equal(got, order("Camisa de Linho", "Bermuda", "Blusa", "Calça", "Camisa", "Toalha")) {
			t.Errorf("labels not filled: %v", got)
		}
		if _, err := fresh.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := f.db.QueryAs(ctx, c.ID, `SELECT count(*) FROM products WHERE label_words IS NULL`); err != nil || n[0] != "0" {
			t.Fatalf("left to fill: %v, %v", n, err)
		}
		check("filled", "linho", labelled)
	})
}

// TestRelevanceRanksATranslatedTypeAsTheLabel: a product's type translated
// into a locale labels it there as its own type does in the default
// locale: a query in that locale ranks it at the label's rank, before a
// product whose translated description alone holds the word (by name,
// that one comes first), under every SQL plan and the index; after the
// product is written again; and once rows written before the translated
// label are filled (DB.Migrate).
func TestRelevanceRanksATranslatedTypeAsTheLabel(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		c := f.tenant("c", f.user("ana@example.com"))
		c.Locales = []string{"pt-BR", "es"}
		if err := f.db.UpdateTenant(ctx, testChange, c); err != nil {
			t.Fatal(err)
		}
		byName := map[string]*vitrine.Product{}
		for _, x := range []struct{ sku, name, ptype, description string }{
			{"A-1", "Alfa", "", ""},
			{"B-1", "Beta", "", "uma cadeira de carvalho"},
			{"Z-1", "Zeta", "Cadeira", ""},
		} {
			p := newProduct(c.ID, x.sku, x.name, 1, vitrine.ProductActive)
			p.ProductType, p.Description = x.ptype, x.description
			if err := createProduct(f.db, p); err != nil {
				t.Fatal(err)
			}
			byName[x.name] = p
		}
		if err := f.db.SaveTranslations(ctx, testChange, c.ID, []*vitrine.Translation{
			tr(vitrine.TranslateProduct, byName["Alfa"].ID, "es", vitrine.FieldDescription, "Una silla de roble.", ""),
			tr(vitrine.TranslateProduct, byName["Zeta"].ID, "es", vitrine.FieldProductType, "Silla", "Cadeira"),
		}); err != nil {
			t.Fatal(err)
		}
		order := func(names ...string) []string { return idsByName(byName, names...) }
		facets := []vitrine.FacetName{vitrine.FacetVendor, vitrine.FacetTags}
		check := func(step string) {
			t.Helper()
			for _, tc := range []struct {
				query, locale string
				want          []string
			}{
				{"cadeira", "", order("Zeta", "Beta")},
				{"sillas", "es", order("Zeta", "Alfa")},
			} {
				for _, plan := range []string{"index", "walk", "members"} {
					restore := store.PlanSearches(plan)
					for limit := 1; limit <= 3; limit++ {
						for _, fs := range [][]vitrine.FacetName{nil, facets} {
							q := vitrine.ProductQuery{Query: vitrine.QueryText(tc.query), Locale: vitrine.LocaleTag(tc.locale), Facets: fs}
							if got := ids(pages(t, f.db, c.ID, filterOf(q, limit))); !slices.Equal(got, tc.want) {
								t.Errorf("%s: %s, %q in %q, %d a page, facets %v:\n got %v\nwant %v", step, plan, tc.query, tc.locale, limit, fs, got, tc.want)
							}
						}
					}
					restore()
				}
			}
		}
		check("SQL")
		if _, err := f.db.FindProducts(ctx, c.ID, filterOf(vitrine.ProductQuery{Facets: facets}, 5)); err != nil {
			t.Fatal(err)
		}
		f.db.WaitIndexes()
		check("index")
		// Written again: its label is its own type's and its translation's.
		if _, err := f.db.UpdateProduct(ctx, testChange, c.ID, byName["Zeta"].ID, func(p *vitrine.Product) error { p.Vendor = "Móveis"; return nil }); err != nil {
			t.Fatal(err)
		}
		check("updated")

		// Rows of before the translated label: the migration's statement
		// leaves those whose type is translated to fill again.
		migration := map[bool]string{false: "sqlite/00034", true: "postgres/00033"}[dbtest.IsPostgres(url)]
		b, err := os.ReadFile("internal/sqldb/migrations/" + migration + "_translated_label_words.sql")
		if err != nil {
			t.Fatal(err)
		}
		_, stmt, _ := strings.Cut(string(b), "\nUPDATE products")
		stmt, _, _ = strings.Cut(stmt, ";")
		dbtest.Exec(t, url, `UPDATE products SET translated_label_words = ''`)
		dbtest.Exec(t, url, "UPDATE products"+stmt)
		if n, err := f.db.QueryAs(ctx, c.ID, `SELECT count(*) FROM products WHERE label_words IS NULL`); err != nil || n[0] != "1" {
			t.Fatalf("to fill again: %v, %v; want the product of a translated type", n, err)
		}
		fresh := openWith(t, url, store.Options{FacetIndexMemory: -1, NoMigrate: true})
		if _, err := fresh.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		check("filled")
	})
}

// pages reads every page of a list, as an agent following cursors would,
// each under the check of the access epoch a call of a cached caller makes
// (which the read answers in its own statement, its rows in their order).
func pages(t *testing.T, db *store.DB, tenantID string, f vitrine.ProductFilter) []*vitrine.Product {
	t.Helper()
	epoch, err := db.AccessEpoch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []*vitrine.Product
	for range 100 {
		call := db.CheckingEpoch(epoch)
		found, err := call.FindProducts(ctx, tenantID, f)
		if err != nil || !store.EpochChecked(call) {
			t.Fatal(err, !store.EpochChecked(call))
		}
		page := found.Products
		out = append(out, page...)
		if len(page) < f.Limit() {
			return out
		}
		f = f.Page(f.Limit(), &found.Keys[len(page)-1])
	}
	t.Fatal("paging does not end")
	return nil
}

func expected(all []*vitrine.Product, s vitrine.ProductSort, status vitrine.ProductStatus, query string) []*vitrine.Product {
	var out []*vitrine.Product
	for _, p := range all {
		if (status == "" || p.Status == status) && matches(vitrine.Words(p.Name+" "+p.SKU), vitrine.Words(query)) {
			out = append(out, p)
		}
	}
	less := func(x, y *vitrine.Product) int {
		var c int
		switch s.Key() {
		case "name":
			c = strings.Compare(vitrine.Fold(x.Name), vitrine.Fold(y.Name))
		case "price":
			c = int(x.Price - y.Price)
		case "updated_at":
			c = x.UpdatedAt.Compare(y.UpdatedAt)
		}
		if c == 0 {
			c = strings.Compare(x.ID, y.ID)
		}
		if s.Desc() {
			c = -c
		}
		return c
	}
	sort.SliceStable(out, func(i, j int) bool { return less(out[i], out[j]) < 0 })
	return out
}

// matches reports whether every query word starts a word of words.
func matches(words, query []string) bool {
	for _, q := range query {
		if !slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(w, q) }) {
			return false
		}
	}
	return true
}

func ids(ps []*vitrine.Product) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

func names2(ps []*vitrine.Product) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name + "/" + p.SKU
	}
	return out
}

// Reads whose text grows with their arguments (an IN list per batch size)
// keep working past the number of statements the store keeps prepared.
func TestManyQueryShapes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		a := f.tenant("a", f.user("ana@example.com"))
		p := f.product(a.ID, "ONE", "One", 1, vitrine.ProductActive)
		for n := 1; n <= 600; n++ {
			skus := make([]string, n)
			for i := range skus {
				skus[i] = fmt.Sprintf("MISSING-%d", i)
			}
			skus[n-1] = "one"
			got, err := f.db.ProductsBySKU(ctx, a.ID, skus)
			if err != nil || len(got) != 1 || got["one"].ID != p.ID {
				t.Fatalf("%d SKUs: %v, %v", n, got, err)
			}
		}
	})
}

// A read's statement is prepared once and then only run, whatever page
// size and arguments it is given (SQLite would plan a bare LIMIT parameter
// afresh at every run).
func TestReadsArePreparedOnce(t *testing.T) {
	f := newFixture(t, dbtest.SQLiteURL(t))
	ana := f.user("ana@example.com")
	a := f.tenant("a", ana)
	p := f.product(a.ID, "PERA-1", "Pera", 1, vitrine.ProductActive)
	f.product(a.ID, "PR-2", "Doce", 1, vitrine.ProductActive)
	for i := range 5 {
		limit := 1 + i%2
		for _, pf := range []vitrine.ProductFilter{
			filterOf(vitrine.ProductQuery{Sort: vitrine.SortName}, limit),
			filterOf(vitrine.ProductQuery{Query: "pera"}, limit),
			filterOf(vitrine.ProductQuery{Query: "pr"}, limit),
		} {
			if _, err := f.db.ListProducts(ctx, a.ID, pf); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := f.db.ListStockMovements(ctx, a.ID, p.ID, "", limit); err != nil {
			t.Fatal(err)
		}
		if _, err := f.db.ListMembers(ctx, a.ID, nil, limit); err != nil {
			t.Fatal(err)
		}
		if _, err := f.db.ListTenants(ctx, "", limit); err != nil {
			t.Fatal(err)
		}
		if _, err := f.db.ListUsers(ctx, "", limit); err != nil {
			t.Fatal(err)
		}
		if _, err := f.db.ListAudit(ctx, a.ID, vitrine.AuditFilter{Limit: limit}); err != nil {
			t.Fatal(err)
		}
	}
	counts, err := f.db.Reprepares(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) < 8 {
		t.Fatalf("only %d statements kept prepared", len(counts))
	}
	for query, n := range counts {
		if n > 0 {
			t.Errorf("prepared %d more times: %s", n, query)
		}
	}
}

func TestTokens(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana := f.user("ana@example.com")
		secret := vitrine.NewTokenSecret()
		prefix, _ := vitrine.TokenLookupPrefix(secret)
		exp := vitrine.Now().Add(time.Hour)
		tok := &vitrine.Token{ID: vitrine.NewID(), UserID: ana.ID, Name: "laptop", Prefix: prefix, Hash: vitrine.HashToken(secret),
			ReadOnly: true, Toolsets: []string{"members", "products"}, ExpiresAt: &exp, CreatedAt: vitrine.Now()}
		if err := f.db.CreateToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		got, u, err := f.db.TokenByPrefix(ctx, prefix)
		if err != nil || u.ID != ana.ID || !got.Matches(secret) || !got.ReadOnly || got.ExpiresAt == nil || !got.ExpiresAt.Equal(exp) || got.LastUsedAt != nil {
			t.Fatalf("TokenByPrefix = %+v, %+v, %v", got, u, err)
		}
		// The toolsets it grants come back in listing order; a personal
		// token is no OAuth token.
		if !slices.Equal(got.Toolsets, []string{"products", "members"}) || got.OAuth {
			t.Fatalf("toolsets %v, OAuth %v", got.Toolsets, got.OAuth)
		}
		used := vitrine.Now()
		if err := f.db.TouchToken(ctx, tok.ID, used); err != nil {
			t.Fatal(err)
		}
		got, _, _ = f.db.TokenByPrefix(ctx, prefix)
		if got.LastUsedAt == nil || !got.LastUsedAt.Equal(used) {
			t.Fatalf("last used %v, want %v", got.LastUsedAt, used)
		}
		_, _, err = f.db.TokenByPrefix(ctx, "vtr_nothere")
		wantType(t, err, vitrine.NotFoundError)
	})
}

// A session ended on one instance is known ended to every instance on the
// same database, and only that session.
func TestEndedMCPSessions(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		a, b := dbtest.Open(t, url), dbtest.Open(t, url)
		if ended, err := b.MCPSessionEnded(ctx, "s1"); err != nil || ended {
			t.Fatalf("before: %v, %v", ended, err)
		}
		for range 2 { // ending it twice is no error
			if err := a.EndMCPSession(ctx, "s1", vitrine.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if ended, err := b.MCPSessionEnded(ctx, "s1"); err != nil || !ended {
			t.Fatalf("after: %v, %v", ended, err)
		}
		if ended, _ := b.MCPSessionEnded(ctx, "s2"); ended {
			t.Fatal("another session is ended too")
		}
		// A day later, it is forgotten at the next end.
		if err := a.EndMCPSession(ctx, "s3", vitrine.Now().Add(25*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if ended, _ := b.MCPSessionEnded(ctx, "s1"); ended {
			t.Fatal("an ended session is kept past a day")
		}
	})
}

func TestMigrateAndReopen(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		db, err := store.Open(ctx, url, store.Options{NoMigrate: true})
		if err != nil {
			t.Fatal(err)
		}
		applied, err := db.Migrate(ctx)
		if err != nil || len(applied) == 0 {
			t.Fatalf("first migrate applied %v, %v", applied, err)
		}
		again, err := db.Migrate(ctx)
		if err != nil || len(again) != 0 {
			t.Fatalf("second migrate applied %v, %v", again, err)
		}
		f := &fixture{t: t, db: db}
		u := f.user("ana@example.com")
		db.Close()
		db = dbtest.Open(t, url)
		if got, err := db.UserByID(ctx, u.ID); err != nil || got.Email != u.Email {
			t.Fatalf("after reopening: %+v, %v", got, err)
		}
	})
}

func TestReady(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		if err := f.db.Ready(ctx); err != nil {
			t.Fatalf("a migrated database: %v", err)
		}
		// A schema behind the binary is not ready.
		dbtest.Exec(t, url, `DELETE FROM goose_db_version WHERE version_id = (SELECT MAX(version_id) FROM goose_db_version)`)
		if err := f.db.Ready(ctx); err == nil || !strings.Contains(err.Error(), "run vitrine migrate") {
			t.Errorf("a database behind: %v", err)
		}
	})
}

// testChange is the change the tests make, outside any call.
var testChange = vitrine.Change{Reason: "store test"}

// Two invitations of one user at the same moment both succeed, and make
// one membership.
func TestInviteMemberTwiceAtOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		tn := f.tenant("acme", f.user("owner@example.com"))
		f.user("bia@example.com")
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				now := vitrine.Now()
				m := &vitrine.Membership{ID: vitrine.NewID(), TenantID: tn.ID, Role: "viewer", Status: vitrine.MembershipInvited, CreatedAt: now, UpdatedAt: now}
				errs <- f.db.InviteMember(ctx, vitrine.Change{}, m, "bia@example.com", func(*vitrine.Membership) (bool, error) { return false, nil })
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("an invitation at the same moment: %v", err)
			}
		}
	})
}

// A read made under an epoch check answers it with its own first
// statement: the row under the current epoch, vitrine.ErrStaleAccess under
// a moved one, whether the row is there or not (never a stale "not found").
func TestReadsCheckTheEpoch(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana := f.user("ana@example.com")
		tn := f.tenant("acme", ana)
		p := f.product(tn.ID, "SKU-1", "Thing", 100, vitrine.ProductActive)
		epoch, err := f.db.AccessEpoch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			epoch int64
			id    string
			want  error
		}{
			{epoch, p.ID, nil},
			{epoch, vitrine.NewID(), vitrine.NotFound("Product")},
			{epoch - 1, p.ID, vitrine.ErrStaleAccess},
			{epoch - 1, vitrine.NewID(), vitrine.ErrStaleAccess},
		} {
			call := f.db.CheckingEpoch(c.epoch)
			got, err := call.ProductByID(ctx, tn.ID, c.id)
			switch {
			case c.want == vitrine.ErrStaleAccess:
				if !errors.Is(err, vitrine.ErrStaleAccess) {
					t.Errorf("epoch %d (current %d), product %s: %v, want the stale access", c.epoch, epoch, c.id, err)
				}
			case c.want != nil:
				if vitrine.TypeOf(err) != vitrine.NotFoundError || !store.EpochChecked(call) {
					t.Errorf("a product not there, under the current epoch: %v (check pending %v)", err, !store.EpochChecked(call))
				}
			default:
				if err != nil || got.ID != p.ID || !store.EpochChecked(call) {
					t.Errorf("under the current epoch: %+v, %v (check pending %v)", got, err, !store.EpochChecked(call))
				}
			}
		}
	})
}

// idsByName returns the ids of the products named names, in their order.
func idsByName(byName map[string]*vitrine.Product, names ...string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, byName[n].ID)
	}
	return out
}
