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

// A write's held statements fail it whole: an event that the database
// refuses, sent with the COMMIT, takes the others of its transaction with
// it, and the connection serves the next write.
func TestHeldStatementFailsTheWrite(t *testing.T) {
	db := dbtest.Open(t, dbtest.PostgresURL(t))
	good := func() *vitrine.AuditEvent {
		return &vitrine.AuditEvent{ID: vitrine.NewID(), Time: vitrine.Now(), TenantID: vitrine.NoTenant, UserID: vitrine.NewID(), Tool: "whoami", Outcome: "ok"}
	}
	bad := good()
	bad.UserID = "not a uuid"
	for range 5 { // more than the pool's idle connections
		if err := db.AppendAudit(ctx, []*vitrine.AuditEvent{good(), bad}); err == nil {
			t.Fatal("a refused event was acknowledged")
		}
	}
	if err := db.AppendAudit(ctx, []*vitrine.AuditEvent{good()}); err != nil {
		t.Fatal(err)
	}
	events, err := db.ListAudit(ctx, vitrine.NoTenant, vitrine.AuditFilter{Limit: 100})
	if err != nil || len(events) != 1 {
		t.Fatalf("%d events stored, %v; want the last write's 1", len(events), err)
	}
}
