package shop

import (
	"slices"
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

// get_shop's hosts are where the window answers: the public URL's scheme
// and port, as the window writes its own URLs (a demo at :8080 is not
// reached at the port-less URL).
func TestWhereHostsTakeThePublicURLsSchemeAndPort(t *testing.T) {
	for _, c := range []struct {
		public string
		want   []string
	}{
		{"http://127.0.0.1:8080", []string{"http://technova.localhost:8080/", "http://loja.example:8080/"}},
		{"https://vitrine.example", []string{"https://technova.localhost/", "https://loja.example/"}},
		{"", []string{"https://technova.localhost/", "https://loja.example/"}},
	} {
		u := Where(c.public, "localhost", "technova", &vitrine.Shop{Domain: "loja.example"})
		if !slices.Equal(u.Hosts, c.want) {
			t.Errorf("public URL %q: hosts %v, want %v", c.public, u.Hosts, c.want)
		}
	}
}
