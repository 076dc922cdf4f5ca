package dbtest

import (
	"strconv"
	"testing"
)

// TenantTables lists, from the database's own catalog and not from the
// code under test, the tables that have a tenant_id column.
func TenantTables(t testing.TB, dbURL string) []string {
	t.Helper()
	q := `SELECT m.name FROM (SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%') m
		WHERE EXISTS (SELECT 1 FROM pragma_table_info(m.name) p WHERE p.name = 'tenant_id') ORDER BY m.name`
	if IsPostgres(dbURL) {
		q = `SELECT table_name FROM information_schema.columns WHERE column_name = 'tenant_id' AND table_schema = 'public'
			AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE') ORDER BY table_name`
	}
	var out []string
	for _, r := range Query(t, dbURL, q) {
		out = append(out, r[0])
	}
	if len(out) < 10 {
		t.Fatalf("the schema lists %d tables with tenant_id: %v", len(out), out)
	}
	return out
}

// TenantRows counts the tenant's rows in every table of the schema that
// has a tenant_id (TenantTables), and its own row in tenants.
func TenantRows(t testing.TB, dbURL, tenantID string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range TenantTables(t, dbURL) {
		n, _ := strconv.Atoi(Query(t, dbURL, `SELECT count(*) FROM "`+table+`" WHERE tenant_id = $1`, tenantID)[0][0])
		out[table] = n
	}
	out["tenants"], _ = strconv.Atoi(Query(t, dbURL, `SELECT count(*) FROM tenants WHERE id = $1`, tenantID)[0][0])
	return out
}

// Total is the sum of TenantRows' counts.
func Total(rows map[string]int) (n int) {
	for _, c := range rows {
		n += c
	}
	return n
}
