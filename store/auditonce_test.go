package store_test

import (
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

// A write stores its call's event in its own transaction, from the Change
// it is given; the same event appended again afterwards (the pipeline's
// copy, whichever tenant it names) adds no row; a write that fails stores
// no event; a write outside any call stores none.
func TestWriteEventOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana := f.user("ana@example.com")
		tn := f.tenant("alfa", ana)
		call := vitrine.Call{RequestID: vitrine.NewID(), Tool: "create_product", At: vitrine.Now(), Reason: "create_product"}
		ch := vitrine.Change{UserID: ana.ID, TokenID: "tok", Call: call, Reason: call.Reason}
		p := newProduct(tn.ID, "ONCE-1", "Once", 100, vitrine.ProductActive)
		if _, err := f.db.CreateProduct(ctx, ch, p, nil); err != nil {
			t.Fatal(err)
		}
		copyIn, copyOutside := ch.Event(tn.ID, p.ID), ch.Event(vitrine.NoTenant, "")
		if err := f.db.AppendAudit(ctx, []*vitrine.AuditEvent{copyIn, copyOutside}); err != nil {
			t.Fatal(err)
		}
		failed := vitrine.Change{UserID: ana.ID, Call: vitrine.Call{RequestID: vitrine.NewID(), Tool: "create_product", At: vitrine.Now()}}
		again := newProduct(tn.ID, "once-1", "Again", 100, vitrine.ProductActive)
		again.Handle = "again"
		if _, err := f.db.CreateProduct(ctx, failed, again, nil); vitrine.TypeOf(err) != vitrine.ConflictError {
			t.Fatalf("a taken SKU: %v", err)
		}
		if err := f.db.DeleteProduct(ctx, testChange, tn.ID, p.ID); err != nil {
			t.Fatal(err)
		}
		events, err := f.db.ListAudit(ctx, tn.ID, vitrine.AuditFilter{Limit: 10})
		if err != nil || len(events) != 1 {
			t.Fatalf("events: %+v %v", events, err)
		}
		if e := *events[0]; e.ID != call.RequestID || e.TargetID != p.ID || e.Outcome != vitrine.OutcomeOK || e.TokenID != "tok" || e.Tool != "create_product" {
			t.Errorf("event %+v", e)
		}
		if outside, err := f.db.ListAudit(ctx, vitrine.NoTenant, vitrine.AuditFilter{Limit: 10}); err != nil || len(outside) != 0 {
			t.Errorf("events outside any tenant: %+v %v", outside, err)
		}
		moves, err := f.db.ListStockMovements(ctx, tn.ID, p.ID, "", 10)
		if err != nil || len(moves) != 1 || moves[0].Reason != "create_product" || moves[0].RequestID != call.RequestID {
			t.Errorf("stock movements: %+v %v", moves, err)
		}
	})
}
