package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

// vitrine tenant delete schedules, restore brings back, delete --now
// purges, and tenant deleted lists what outlives the company.
func TestTenantDeleteCommands(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		d := "--db=" + url
		must(t, "migrate", d)
		mustJSON(t, "user", "create", d, "--email", "ana@acme.example", "--name", "Ana")
		mustJSON(t, "tenant", "create", d, "--name", "Acme", "--slug", "acme", "--owner", "ana@acme.example")
		scheduled := mustJSON(t, "tenant", "delete", d, "acme")
		if scheduled["deletes_at"] == nil {
			t.Fatalf("tenant delete: %v", scheduled)
		}
		fails(t, "already scheduled for deletion", "tenant", "delete", d, "acme")
		if out := must(t, "tenant", "restore", d, "acme"); !strings.Contains(out, "restored") {
			t.Errorf("tenant restore: %q", out)
		}
		fails(t, "not scheduled for deletion", "tenant", "restore", d, "acme")
		later := mustJSON(t, "tenant", "delete", d, "acme", "--grace", "1h")
		deletesAt, err := time.Parse(time.RFC3339Nano, later["deletes_at"].(string))
		if err != nil {
			t.Fatal(err)
		}
		// tenant list says when it goes.
		if out := must(t, "tenant", "list", d); !strings.Contains(out, "DELETES") || !strings.Contains(out, deletesAt.Format(time.RFC3339)) {
			t.Errorf("tenant list of a company scheduled for deletion: %q", out)
		}
		if listed := mustJSON(t, "tenant", "list", d); listed["deletes_at"] != later["deletes_at"] {
			t.Errorf("tenant list --json: %v", listed)
		}
		// --now on a company scheduled already purges it as that request:
		// not a restore and a new deletion.
		purged := mustJSON(t, "tenant", "delete", d, "acme", "--now")
		if purged["rows_removed"].(float64) < 3 {
			t.Errorf("tenant delete --now: %v", purged)
		}
		record := mustJSON(t, "tenant", "deleted", d)
		requested, err := time.Parse(time.RFC3339Nano, record["requested_at"].(string))
		if err != nil || !requested.Equal(deletesAt.Add(-time.Hour)) {
			t.Errorf("the deletion's record says it was asked for at %v, not when it was (%v): %v", requested, deletesAt.Add(-time.Hour), record)
		}
		fails(t, `no company has the id or slug "acme"`, "tenant", "restore", d, "acme")
		if out := must(t, "tenant", "deleted", d); !strings.Contains(out, "acme") || !strings.Contains(out, "operator") {
			t.Errorf("tenant deleted: %q", out)
		}
		if out := must(t, "audit", "list", d, "--outside"); !strings.Contains(out, "purge_tenant") {
			t.Errorf("audit list --outside: %q", out)
		}

		mustJSON(t, "user", "create", d, "--email", "bia@acme.example", "--name", "Bia")
		mustJSON(t, "tenant", "create", d, "--name", "Bia's", "--slug", "bias", "--owner", "bia@acme.example")
		fails(t, "only owner of bias", "user", "delete", d, "bia@acme.example")
		mustJSON(t, "member", "add", d, "--tenant", "bias", "--email", "ana@acme.example", "--role", "owner")
		if out := mustJSON(t, "user", "delete", d, "bia@acme.example"); out["deleted"] != true {
			t.Errorf("user delete: %v", out)
		}
		fails(t, `no user has the email "bia@acme.example"`, "user", "delete", d, "bia@acme.example")
	})
}

// A purge cut short by a crash resumes and finishes: `vitrine serve`
// purging a company of 3,000 products (3 variants each) is killed with
// SIGKILL once the database shows its purge under way (5,000 rows removed,
// not finished); started again, it finishes the purge: no row of the company
// is left in any table of the schema (read from the database's catalog),
// and the deletion is recorded once, its record counting every row the
// company had, one purge_tenant event outside any company.
func TestPurgeKilledMidwayResumes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		d := "--db=" + url
		must(t, "migrate", d)
		mustJSON(t, "user", "create", d, "--email", "ana@acme.example", "--name", "Ana")
		id := mustJSON(t, "tenant", "create", d, "--name", "Acme", "--slug", "acme", "--owner", "ana@acme.example")["id"].(string)
		kept := mustJSON(t, "tenant", "create", d, "--name", "Kept", "--slug", "kept", "--owner", "ana@acme.example")["id"].(string)
		db := dbtest.Open(t, url)
		for done := 0; done < 3000; done += 500 {
			writes := make([]vitrine.ProductWrite, 500)
			for i := range writes {
				writes[i].Create = purgedProduct(id, done+i)
			}
			if _, err := db.WriteProducts(context.Background(), vitrine.Change{}, id, writes, true, nil); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		mustJSON(t, "tenant", "delete", d, "acme", "--grace", "0s")
		before, keptBefore := dbtest.TenantRows(t, url, id), dbtest.Total(dbtest.TenantRows(t, url, kept))
		removed := func() (rows int, purged bool) {
			r := dbtest.Query(t, url, `SELECT rows_removed, purged_at IS NOT NULL FROM deleted_tenants WHERE id = $1`, id)
			if len(r) == 0 {
				return 0, false
			}
			rows, _ = strconv.Atoi(r[0][0])
			return rows, r[0][1] == "1" || r[0][1] == "true"
		}
		await := func(what string, until func() bool) {
			t.Helper()
			for deadline := time.Now().Add(2 * time.Minute); !until(); time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("waited 2 minutes for %s", what)
				}
			}
		}

		first, _ := startServe(t, url, "--purge-every", "50ms")
		// Some 10 batches in, within the products' tables.
		await("the purge to be under way", func() bool { n, _ := removed(); return n >= 5000 })
		if err := first.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		first.Wait()
		cut, purged := removed()
		if purged || cut >= dbtest.Total(before) {
			t.Fatalf("the purge was not cut short: %d rows of %d removed, finished %v", cut, dbtest.Total(before), purged)
		}
		// The killed instance's lease holds until a minute after its last
		// renewal (service.TestPurgeResumesAfterAnInterruption waits it
		// out); here it is made to expire now, as that minute would.
		if holder := dbtest.Query(t, url, `SELECT holder FROM leases WHERE name = 'purge'`); len(holder) != 1 {
			t.Fatalf("the killed instance's lease: %v", holder)
		}
		dbtest.Exec(t, url, `UPDATE leases SET expires_at = $1 WHERE name = 'purge'`, vitrine.Timestamp(time.Now().Add(-time.Second)))

		second, _ := startServe(t, url, "--purge-every", "50ms")
		await("the purge to finish", func() bool { _, done := removed(); return done })
		second.Process.Signal(syscall.SIGTERM)
		second.Wait()
		t.Logf("killed after %d of %d rows; the second instance finished", cut, dbtest.Total(before))

		for table, n := range dbtest.TenantRows(t, url, id) {
			if n != 0 {
				t.Errorf("%s keeps %d rows of the purged company", table, n)
			}
		}
		if n, _ := removed(); n != dbtest.Total(before) {
			t.Errorf("the deletion's record counts %d rows removed; the company had %d", n, dbtest.Total(before))
		}
		if n := dbtest.Query(t, url, `SELECT count(*) FROM deleted_tenants WHERE id = $1`, id); n[0][0] != "1" {
			t.Errorf("%s records of the deletion", n[0][0])
		}
		if n := dbtest.Query(t, url, `SELECT count(*) FROM audit_events WHERE tool = 'purge_tenant' AND target_id = $1`, id); n[0][0] != "1" {
			t.Errorf("%s purge_tenant events", n[0][0])
		}
		if after := dbtest.Total(dbtest.TenantRows(t, url, kept)); after != keptBefore {
			t.Errorf("the other company's rows went from %d to %d", keptBefore, after)
		}
	})
}

// purgedProduct is the i-th product of a company to purge: 3 variants.
func purgedProduct(tenantID string, i int) *vitrine.Product {
	now := vitrine.Now()
	sku := fmt.Sprintf("PK%08d", i)
	p := &vitrine.Product{ID: vitrine.NewID(), TenantID: tenantID, Handle: vitrine.HandleOf(sku), Name: "Produto " + sku, Currency: "BRL",
		Status: vitrine.ProductActive, Version: 1, CreatedAt: now, CreatedBy: vitrine.NewID(), UpdatedAt: now, UpdatedBy: vitrine.NewID(),
		Tags: []string{"carga"}, Options: []vitrine.Option{{Name: "Size", Values: []string{"S", "M", "L"}}}}
	for j, s := range []string{"S", "M", "L"} {
		p.Variants = append(p.Variants, &vitrine.Variant{ID: vitrine.NewID(), SKU: sku + "-" + s, Options: map[string]string{"Size": s},
			Price: 1990, Stock: 5, Policy: vitrine.PolicyDeny, RequiresShipping: true, Taxable: true, Position: j + 1})
	}
	p.Summarize()
	return p
}
