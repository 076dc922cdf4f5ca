package shop

import (
	"sync"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service"
)

// Updates at once, each of other settings and none with an expected
// version, all land: one that meets another's save applies its changes
// again to what that one saved. None is lost, each is audited.
func TestUpdatesAtOnceAllLand(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		svc := service.New(dbtest.Open(t, url), nil)
		if _, err := svc.Operator().CreateUser(ctx, "olga@example.com", "Olga"); err != nil {
			t.Fatal(err)
		}
		company(t, svc, "alfa")
		open, country, stock, template := true, "BR", "exact", "https://alfa.example/p/{handle}"
		changes := []Changes{{Open: &open}, {Country: &country}, {Stock: &stock}, {ProductURL: &template}}
		var wg sync.WaitGroup
		errs := make([]error, len(changes))
		for i, ch := range changes {
			wg.Go(func() {
				a, err := svc.Operator().Actor(ctx, "alfa", "", "test")
				if err == nil {
					a.Caller.Call = vitrine.Call{RequestID: vitrine.NewID(), Tool: "update_shop", At: vitrine.Now()}
					_, err = New(svc).Update(ctx, a, ch)
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("update %d: %v", i, err)
			}
		}
		a, err := svc.Operator().Actor(ctx, "alfa", "", "test")
		if err != nil {
			t.Fatal(err)
		}
		st, err := New(svc).Get(ctx, a)
		if s := st.Shop; err != nil || !s.Open || s.Country != "BR" || s.Stock != vitrine.StockExact || s.ProductURL != template || s.Version != 4 {
			t.Errorf("after the updates: %+v, %v", st.Shop, err)
		}
		events, err := New(svc).store.ListAudit(ctx, a.TenantID, vitrine.AuditFilter{Tool: "update_shop", Limit: 10})
		if err != nil || len(events) != 4 {
			t.Errorf("events: %d, %v", len(events), err)
		}
	})
}
