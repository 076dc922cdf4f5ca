package main

import (
	"strings"
	"testing"
	"time"

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
