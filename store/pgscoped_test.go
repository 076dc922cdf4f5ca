package store_test

import (
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

// A read in a tenant's scope, one pipelined batch on PostgreSQL, sees its
// row-level security context, writes nothing, and leaves no setting on the
// pooled connection for the next borrower.
func TestScopedReadBatch(t *testing.T) {
	db := dbtest.Open(t, dbtest.PostgresURL(t))
	tenant := vitrine.NewID()
	for range 20 {
		got, err := db.QueryAs(ctx, tenant, `SELECT current_setting('app.tenant_id') || ' ' || current_setting('transaction_read_only')`)
		if err != nil || len(got) != 1 || got[0] != tenant+" on" {
			t.Fatalf("scoped read: %v %v", got, err)
		}
		got, err = db.QueryAs(ctx, "", `SELECT COALESCE(current_setting('app.tenant_id', true), '') || ' ' || current_setting('transaction_read_only')`)
		if err != nil || len(got) != 1 || got[0] != " off" {
			t.Fatalf("unscoped read after a scoped one: %v %v", got, err)
		}
	}
	if _, err := db.QueryAs(ctx, tenant, `INSERT INTO server_keys (name, key) VALUES ('x', 'y') RETURNING name`); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("a read wrote: %v", err)
	}
}
