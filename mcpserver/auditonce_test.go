package mcpserver_test

import (
	"slices"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/service"
)

// Every call has exactly one audit event, never two and never none: the
// calls that write (their event in the write's transaction, its copy from
// the pipeline ignored), and the write tools' calls that succeed without
// writing anything (an idempotent retry, a permission revoked that was not
// granted or granted that is held, an invitation to an unknown email).
func TestOneEventPerCall(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		ana := w.session("http", owner)
		carlaID, diegoID := w.userID(member), w.userID(viewer)

		create := map[string]any{"tenant_id": technova, "sku": "ONCE-1", "name": "Once", "price": "1", "stock": 3, "idempotency_key": "once-1"}
		p := testkit.OK[product](t, ana, "create_product", create)
		if retry := testkit.OK[product](t, ana, "create_product", create); retry.ID != p.ID {
			t.Fatalf("the retry made another product: %s, %s", retry.ID, p.ID)
		}
		testkit.OK[map[string]any](t, ana, "update_product", map[string]any{"tenant_id": technova, "id": p.ID, "name": "Once"})
		testkit.OK[map[string]any](t, ana, "revoke_permission", map[string]any{"tenant_id": technova, "user_id": diegoID, "permission": "audit:read"})
		for range 2 { // the second finds it held
			testkit.OK[map[string]any](t, ana, "grant_permission", map[string]any{"tenant_id": technova, "user_id": carlaID, "permission": "products:update"})
		}
		testkit.OK[map[string]any](t, ana, "add_member", map[string]any{"tenant_id": technova, "email": "nobody@nowhere.example", "role": "viewer"})

		type event struct {
			ID        string
			Tool      string
			Outcome   string
			TargetID  string `json:"target_id"`
			RequestID string `json:"request_id"`
		}
		log := testkit.OK[struct{ Events []event }](t, ana, "list_audit_events",
			map[string]any{"tenant_id": technova, "user_id": w.userID(owner), "limit": 100}).Events
		var got []string
		ids := map[string]bool{}
		for _, e := range log {
			if e.Tool == "list_audit_events" {
				continue
			}
			got = append(got, e.Tool+" "+e.Outcome+" "+e.TargetID)
			if e.ID != e.RequestID || ids[e.ID] {
				t.Errorf("event %+v: its id is not its call's own", e)
			}
			ids[e.ID] = true
		}
		want := []string{ // newest first
			"add_member ok ",
			"grant_permission ok " + carlaID,
			"grant_permission ok " + carlaID,
			"revoke_permission ok " + diegoID,
			"update_product ok " + p.ID,
			"create_product ok " + p.ID,
			"create_product ok " + p.ID,
		}
		if !slices.Equal(got, want) {
			t.Errorf("ana's events:\n got %q\nwant %q", got, want)
		}

		// A call outside any tenant that writes in one (create_tenant) has
		// its one event in that tenant, none outside.
		tn := testkit.OK[struct{ ID string }](t, ana, "create_tenant", map[string]any{"name": "Uma Vez"}).ID
		in := testkit.OK[struct{ Events []event }](t, ana, "list_audit_events", map[string]any{"tenant_id": tn, "tool": "create_tenant"}).Events
		if len(in) != 1 || in[0].TargetID != tn || in[0].Outcome != "ok" {
			t.Errorf("create_tenant's events in its tenant: %+v", in)
		}
		outside, err := w.svc.Operator().ListAudit(ctx, nil, service.AuditQuery{UserID: w.userID(owner), Tool: "create_tenant"})
		if err != nil || len(outside.Events) != 0 {
			t.Errorf("create_tenant's events outside any tenant: %+v %v", outside, err)
		}
	})
}
