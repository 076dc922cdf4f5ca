package store_test

import (
	"context"
	"errors"
	neturl "net/url"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/store"
)

// Row-level security alone, with the application's own tenant filters left
// out of the SQL, keeps every tenant's rows from every other tenant: when a
// superuser connects (its connections switch to the database's own role),
// and when the database's owner does, a login without superuser, BYPASSRLS
// or CREATEROLE, which migrates and serves as itself under forced policies.
func TestRowLevelSecurity(t *testing.T) {
	t.Run("superuser", func(t *testing.T) {
		url := dbtest.PostgresURL(t)
		testRowLevelSecurity(t, url, store.AppRoleName(dbName(t, url)))
	})
	t.Run("owner", func(t *testing.T) {
		url := dbtest.PostgresOwnerURL(t)
		testRowLevelSecurity(t, url, dbName(t, url))
	})
}

func testRowLevelSecurity(t *testing.T, url, role string) {
	f := newFixture(t, url)
	ana, bia := f.user("ana@example.com"), f.user("bia@example.com")
	a, b := f.tenant("a", ana), f.tenant("b", bia)
	f.product(a.ID, "A-1", "Apple", 100, vitrine.ProductActive)
	f.product(a.ID, "A-2", "Avocado", 100, vitrine.ProductActive)
	bp := f.product(b.ID, "B-1", "Banana", 100, vitrine.ProductActive)

	// The application's connections can bypass no policy.
	if who, err := f.db.QueryAs(ctx, "", `SELECT current_user || ' ' || (SELECT (rolsuper OR rolbypassrls)::text FROM pg_roles WHERE rolname = current_user)`); err != nil || who[0] != role+" false" {
		t.Fatalf("connections run as %v, %v; want %s", who, err, role)
	}
	for _, tc := range []struct {
		tenant string
		want   []string
	}{
		{a.ID, []string{a.ID, a.ID}},
		{b.ID, []string{b.ID}},
		{"", nil}, // no tenant set: nothing
	} {
		got, err := f.db.QueryAs(ctx, tc.tenant, `SELECT tenant_id::text FROM products`)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("products seen in %q: %v, %v; want %v", tc.tenant, got, err, tc.want)
		}
		got, err = f.db.QueryAs(ctx, tc.tenant, `SELECT tenant_id::text FROM memberships`)
		if err != nil || len(got) != len(slices.Compact(slices.Clone(tc.want))) {
			t.Errorf("memberships seen in %q: %v, %v", tc.tenant, got, err)
		}
		got, err = f.db.QueryAs(ctx, tc.tenant, `SELECT id::text FROM tenants`)
		if err != nil || (tc.tenant != "" && !slices.Equal(got, []string{tc.tenant})) || (tc.tenant == "" && len(got) != 0) {
			t.Errorf("tenants seen in %q: %v, %v", tc.tenant, got, err)
		}
	}
	// Another tenant's id, named outright, finds nothing.
	if got, err := f.db.QueryAs(ctx, a.ID, `SELECT name FROM products WHERE id = $1`, bp.ID); err != nil || len(got) != 0 {
		t.Errorf("B's product through A: %v, %v", got, err)
	}
	// Writes without a tenant filter touch only the tenant's own rows.
	n, err := f.db.ExecAs(ctx, a.ID, `UPDATE products SET stock = 0`)
	if err != nil || n != 2 {
		t.Errorf("update in A touched %d rows, %v", n, err)
	}
	if n, err := f.db.ExecAs(ctx, a.ID, `DELETE FROM products`); err != nil || n != 2 {
		t.Errorf("delete in A removed %d rows, %v", n, err)
	}
	if p, err := f.db.ProductByID(ctx, b.ID, bp.ID); err != nil || p.Stock != 1 {
		t.Errorf("B's product after A's writes: %+v, %v", p, err)
	}
	// A row written into another tenant is refused.
	_, err = f.db.ExecAs(ctx, a.ID, `INSERT INTO products (tenant_id, id, sku, sku_key, name, name_key, price, currency, stock, status, version, created_at, created_by, updated_at, updated_by)
		VALUES ($1, $2, 'X', 'x', 'X', 'x', 1, 'BRL', 1, 'active', 1, now(), $2, now(), $2)`, b.ID, vitrine.NewID())
	if err == nil {
		t.Error("A wrote a row into B")
	}
	// Every table that holds a tenant_id has the wall, forced on its owner too.
	bare, err := f.db.QueryAs(ctx, "", `SELECT c.relname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
		WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace AND a.attname = 'tenant_id'
		AND NOT (c.relrowsecurity AND c.relforcerowsecurity) ORDER BY 1`)
	if err != nil || len(bare) != 0 {
		t.Errorf("tables of tenant data without forced row-level security: %v, %v", bare, err)
	}
	// The tenant setting does not outlive its transaction on a pooled connection.
	for range 10 {
		if got, err := f.db.QueryAs(ctx, "", `SELECT tenant_id::text FROM products`); err != nil || len(got) != 0 {
			t.Fatalf("a later transaction without a tenant sees %v, %v", got, err)
		}
	}
}

// dbName is the name of the database (and, for PostgresOwnerURL, of its
// owner) in url.
func dbName(t *testing.T, url string) string {
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// Two Vitrine databases on one cluster, each migrated by its own owner (a
// login without superuser, BYPASSRLS or CREATEROLE): neither login reads
// the other's database, and nothing Vitrine made grants a way in. Two
// databases migrated by a superuser get one role each, and neither role
// holds anything in the other.
func TestDatabasesOnOneClusterStayApart(t *testing.T) {
	ctx := context.Background()
	urls := []string{dbtest.PostgresOwnerURL(t), dbtest.PostgresOwnerURL(t)}
	for _, u := range urls {
		f := newFixture(t, u)
		f.tenant("t", f.user("ana@example.com"))
	}
	for i, u := range urls {
		other, _ := neturl.Parse(urls[1-i])
		login, _ := neturl.Parse(u)
		other.User = login.User // this database's owner, at the other database
		conn, err := pgx.Connect(ctx, other.String())
		if err != nil {
			continue // not even let in: apart
		}
		for _, table := range []string{"users", "tenants", "products", "api_tokens", "audit_events", "server_keys"} {
			var n int
			err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "42501" {
				t.Errorf("owner of database %d reads %s of the other: %d rows, %v", i, table, n, err)
			}
		}
		var roles int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_roles WHERE pg_has_role(current_user, oid, 'MEMBER') AND rolname <> current_user`).Scan(&roles); err != nil || roles != 0 {
			t.Errorf("owner of database %d is a member of %d roles, %v", i, roles, err)
		}
		conn.Close(ctx)
	}

	supers := []string{dbtest.PostgresURL(t), dbtest.PostgresURL(t)}
	for _, u := range supers {
		newFixture(t, u)
	}
	for i, u := range supers {
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		var reach bool
		err = conn.QueryRow(ctx, `SELECT has_table_privilege($1, 'products', 'SELECT') OR has_table_privilege($1, 'users', 'SELECT')`,
			store.AppRoleName(dbName(t, supers[1-i]))).Scan(&reach)
		if err != nil || reach {
			t.Errorf("the other database's role reads database %d: %v, %v", i, reach, err)
		}
		conn.Close(ctx)
	}
}
