package service_test

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/demo"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/internal/insider"
	"github.com/vitrine/vitrine/store"
)

// purgeWorld is the demo's two companies on a fresh database, with a
// recent audit event in each and a table the migrations do not have.
func purgeWorld(t *testing.T, dbURL string) (*store.DB, *service.Service, string, string) {
	t.Helper()
	db := dbtest.Open(t, dbURL)
	svc := service.New(db, nil)
	w, err := demo.Seed(ctx, svc)
	if err != nil {
		t.Fatal(err)
	}
	var doomed, kept string
	for _, tn := range w.Tenants {
		switch tn.Slug {
		case "technova":
			doomed = tn.ID
		case "mercado-verde":
			kept = tn.ID
		}
	}
	for _, id := range []string{doomed, kept} {
		call := vitrine.OperatorCall("vitrine test", id)
		if err := db.AppendAudit(ctx, []*vitrine.AuditEvent{(vitrine.Change{Call: call}).Event(id, id)}); err != nil {
			t.Fatal(err)
		}
	}
	// A table added after the purge was written: the purge finds it in
	// the schema as the test does.
	typ := "TEXT"
	if dbtest.IsPostgres(dbURL) {
		typ = "uuid"
	}
	dbtest.Exec(t, dbURL, `CREATE TABLE purge_probe (tenant_id `+typ+` NOT NULL, note text NOT NULL)`)
	if dbtest.IsPostgres(dbURL) {
		u, _ := url.Parse(dbURL)
		dbtest.Exec(t, dbURL, `GRANT SELECT, INSERT, DELETE ON purge_probe TO `+store.AppRoleName(strings.TrimPrefix(u.Path, "/")))
	}
	for i := range 7 {
		for _, id := range []string{doomed, kept} {
			dbtest.Exec(t, dbURL, `INSERT INTO purge_probe (tenant_id, note) VALUES ($1, $2)`, id, "row "+strconv.Itoa(i))
		}
	}
	return db, svc, doomed, kept
}

// A company's deletion is due at once (grace 0) and its purge, in small
// batches, leaves no row of it in any table of the schema, its record
// counting every row removed, and the other company as it was.
func TestPurgeRemovesEveryRowOfTheCompany(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbURL string) {
		db, svc, doomed, kept := purgeWorld(t, dbURL)
		before, keptBefore := dbtest.TenantRows(t, dbURL, doomed), dbtest.TenantRows(t, dbURL, kept)
		for _, table := range []string{"products", "variants", "memberships", "audit_events", "purge_probe", "shops"} {
			if before[table] == 0 {
				t.Fatalf("the doomed company has no row in %s to purge: %v", table, before)
			}
		}
		if _, err := svc.Operator().Command("vitrine tenant delete").DeleteTenant(ctx, "technova", 0); err != nil {
			t.Fatal(err)
		}
		before = dbtest.TenantRows(t, dbURL, doomed) // with the request's event
		p := svc.Purger("test", nil)
		p.Batch = 7
		got, err := p.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Tenants) != 1 || got.Tenants[0] != doomed || got.Rows != int64(dbtest.Total(before)) {
			t.Errorf("purged %v, %d rows; want the one company, %d rows", got.Tenants, got.Rows, dbtest.Total(before))
		}
		for table, n := range dbtest.TenantRows(t, dbURL, doomed) {
			if n != 0 {
				t.Errorf("%s keeps %d rows of the purged company", table, n)
			}
		}
		if after := dbtest.TenantRows(t, dbURL, kept); dbtest.Total(after) != dbtest.Total(keptBefore) {
			t.Errorf("the other company's rows went from %v to %v", keptBefore, after)
		}
		records, err := svc.Operator().DeletedTenants(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(records) != 1 || records[0].Slug != "technova" || records[0].PurgedAt.IsZero() || records[0].RowsRemoved != int64(dbtest.Total(before)) {
			t.Errorf("deletion records: %+v", records)
		}
		events, err := db.ListAudit(ctx, vitrine.NoTenant, vitrine.AuditFilter{Tool: "purge_tenant", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 || events[0].TargetID != doomed {
			t.Errorf("the purge's audit events outside any company: %+v", events)
		}
	})
}

// On PostgreSQL the application's role may remove rows from every table
// that has a tenant_id: a table whose migration forgot to grant it would
// stop every purge.
func TestPurgeMayDeleteFromEveryTenantTable(t *testing.T) {
	if !dbtest.IsPostgres(dbtest.Dialects()[len(dbtest.Dialects())-1].URL(t)) {
		t.Skip("PostgreSQL only")
	}
	dbURL := dbtest.PostgresURL(t)
	dbtest.Open(t, dbURL)
	u, _ := url.Parse(dbURL)
	role := store.AppRoleName(strings.TrimPrefix(u.Path, "/"))
	for _, table := range append(dbtest.TenantTables(t, dbURL), "tenants") {
		if ok := dbtest.Query(t, dbURL, `SELECT has_table_privilege($1, $2, 'DELETE')`, role, table)[0][0]; ok != "true" {
			t.Errorf("%s may not delete from %s", role, table)
		}
	}
}

// A purge cut short (an instance killed between two batches, its lease
// still held) is finished by the next run of another instance, once the
// lease has expired.
func TestPurgeResumesAfterAnInterruption(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbURL string) {
		db, svc, doomed, _ := purgeWorld(t, dbURL)
		if _, err := svc.Operator().DeleteTenant(ctx, "technova", 0); err != nil {
			t.Fatal(err)
		}
		want := dbtest.Total(dbtest.TenantRows(t, dbURL, doomed))
		// The first instance takes the lease, removes a few batches, and
		// dies holding it.
		if held, err := db.TakeLease(ctx, service.PurgeLease, "first", time.Now(), time.Second); err != nil || !held {
			t.Fatal(held, err)
		}
		for range 10 {
			if _, done, err := db.PurgeTenantStep(ctx, doomed, time.Now(), 5); err != nil || done {
				t.Fatal(done, err)
			}
		}
		left := dbtest.Total(dbtest.TenantRows(t, dbURL, doomed))
		if left == 0 || left >= want-10 {
			t.Fatalf("cut with %d of %d rows left", left, want)
		}
		// Its last renewal, at its last batch.
		if held, err := db.TakeLease(ctx, service.PurgeLease, "first", time.Now(), 2*time.Second); err != nil || !held {
			t.Fatal(held, err)
		}
		second := svc.Purger("second", nil)
		if got, err := second.Run(ctx); err != nil || !got.Busy {
			t.Fatalf("while the first's lease holds: %+v, %v", got, err)
		}
		time.Sleep(2100 * time.Millisecond)
		got, err := second.Run(ctx)
		if err != nil || len(got.Tenants) != 1 {
			t.Fatalf("after the lease expired: %+v, %v", got, err)
		}
		if n := dbtest.Total(dbtest.TenantRows(t, dbURL, doomed)); n != 0 {
			t.Errorf("%d rows left", n)
		}
		records, _ := svc.Operator().DeletedTenants(ctx, 10)
		if len(records) != 1 || records[0].RowsRemoved != int64(want) {
			t.Errorf("the record counts %+v, want %d rows", records, want)
		}
	})
}

// Two purgers at once, as two instances: one holds the lease at a time,
// every row goes once, the purge is recorded once.
func TestTwoPurgersAtOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbURL string) {
		db, svc, doomed, _ := purgeWorld(t, dbURL)
		if _, err := svc.Operator().DeleteTenant(ctx, "technova", 0); err != nil {
			t.Fatal(err)
		}
		want := int64(dbtest.Total(dbtest.TenantRows(t, dbURL, doomed)))
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			rows  int64
			busy  int
			fails []error
		)
		for _, holder := range []string{"a", "b"} {
			wg.Go(func() {
				p := svc.Purger(holder, nil)
				p.Batch = 3
				for end := time.Now().Add(time.Minute); time.Now().Before(end); {
					got, err := p.Run(ctx)
					mu.Lock()
					rows += got.Rows
					if got.Busy {
						busy++
					}
					if err != nil {
						fails = append(fails, err)
					}
					mu.Unlock()
					if len(got.Tenants) > 0 || err != nil {
						return
					}
					due, _ := db.TenantsDue(ctx, time.Now(), 1)
					if len(due) == 0 {
						return
					}
					time.Sleep(time.Millisecond)
				}
			})
		}
		wg.Wait()
		if len(fails) > 0 || rows != want {
			t.Errorf("two purgers removed %d rows (want %d), errors %v", rows, want, fails)
		}
		t.Logf("one purger found the lease taken %d times", busy)
		if n := dbtest.Total(dbtest.TenantRows(t, dbURL, doomed)); n != 0 {
			t.Errorf("%d rows left", n)
		}
		events, _ := db.ListAudit(ctx, vitrine.NoTenant, vitrine.AuditFilter{Tool: "purge_tenant", Limit: 10})
		if len(events) != 1 {
			t.Errorf("%d purge events", len(events))
		}
	})
}

// A company scheduled for deletion refuses its members' calls with the
// date and the way back, stays listed with its date, and comes back whole
// when its owner restores it; only tenants:delete schedules or restores.
func TestDeleteAndRestoreTenant(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbURL string) {
		w := newWorld(t, dbURL)
		tm := w.newTeam(t)
		if _, err := w.svc.DeleteTenant(ctx, tm.as("adam"), time.Hour); !errors.Is(err, vitrine.ErrPermissionDenied) {
			t.Fatalf("an admin deletes the company: %v", err)
		}
		got, err := w.svc.DeleteTenant(ctx, tm.as("olga"), 30*24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Until(got.Tenant.DeletesAt); d < 29*24*time.Hour || d > 30*24*time.Hour {
			t.Errorf("deletes at %v", got.Tenant.DeletesAt)
		}
		for _, who := range []string{"olga", "max", "vic"} {
			_, err := w.svc.Tenant(ctx, tm.as(who))
			if e := vitrine.AsError(err); e == nil || e.Type != vitrine.ConflictError || !strings.Contains(e.Message, "restore_tenant") ||
				!strings.Contains(e.Message, got.Tenant.DeletesAt.Format(time.RFC3339)) {
				t.Errorf("%s reads the scheduled company: %v", who, err)
			}
		}
		if _, err := w.svc.DeleteTenant(ctx, tm.as("olga"), time.Hour); vitrine.TypeOf(err) != vitrine.ConflictError {
			t.Errorf("deleted twice: %v", err)
		}
		caller := tm.as("max").Caller
		listed, err := w.svc.Tenants(ctx, caller)
		if err != nil || len(listed) != 1 || !listed[0].Tenant.DeletesAt.Equal(got.Tenant.DeletesAt) {
			t.Errorf("listed: %+v, %v", listed, err)
		}
		if _, err := w.svc.RestoreTenant(ctx, tm.as("max")); !errors.Is(err, vitrine.ErrPermissionDenied) {
			t.Errorf("a member restores: %v", err)
		}
		back, err := w.svc.RestoreTenant(ctx, tm.as("olga"))
		if err != nil || !back.Tenant.DeletesAt.IsZero() {
			t.Fatalf("restored: %+v, %v", back, err)
		}
		if _, err := w.svc.Tenant(ctx, tm.as("max")); err != nil {
			t.Errorf("after the restore: %v", err)
		}
		if _, err := w.svc.RestoreTenant(ctx, tm.as("olga")); vitrine.TypeOf(err) != vitrine.ConflictError {
			t.Errorf("restored twice: %v", err)
		}
		// Past its grace, its purge begun, there is no way back.
		tn, err := w.svc.Operator().DeleteTenant(ctx, tm.slug, 0)
		if err != nil {
			t.Fatal(err)
		}
		db := w.svc.Store(insider.Pass{})
		if _, _, err := db.PurgeTenantStep(ctx, tn.ID, time.Now(), 1); err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.Operator().RestoreTenant(ctx, tm.slug); vitrine.TypeOf(err) != vitrine.ConflictError {
			t.Errorf("restored once its purge began: %v", err)
		}
	})
}
