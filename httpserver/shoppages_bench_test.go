package httpserver_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/shopwindow"
)

// BenchmarkShopWindowPages compares what a page costs the server with what
// the same read costs an agent, in process, through the handler stack
// `vitrine serve` mounts, on a window of 10,000 products of 3 variants,
// on both databases: a product's page against UCP's get_product (REST)
// for the same product, and the home page against search_catalog, the
// home listing by name against a search of a word every product holds,
// and a search on the page against the same search_catalog. Each pair is
// measured alternately, a pair at a time; the metrics are their medians
// (p50) and ratios.
//
//	go test ./httpserver -run '^$' -bench ShopWindowPages -benchtime 300x
func BenchmarkShopWindowPages(b *testing.B) {
	for _, d := range dbtest.Dialects() {
		// Set up once, by the parent (run once), for each run of the
		// measure.
		w := newWorld(b, d.URL(b))
		agent := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			rw.Header().Set("Cache-Control", "public, max-age=600")
			fmt.Fprint(rw, `{"ucp":{"version":"2026-04-08","services":{},"capabilities":{"dev.ucp.shopping.catalog.search":[{"version":"2026-04-08"}],"dev.ucp.shopping.catalog.lookup":[{"version":"2026-04-08"}]},"payment_handlers":{}}}`)
		}))
		b.Cleanup(agent.Close)
		srv, err := mcpserver.New(w.svc, mcpserver.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		h := serveHTTP(b, w.svc, srv, httpserver.Options{Logger: slog.New(slog.DiscardHandler), PublicURL: "http://vitrine.test",
			Shop: &httpserver.Shop{Options: shopwindow.Options{InsecureProfiles: true, Limits: &shopwindow.Limits{}}}})
		tenant := w.tenants["technova"]
		fillWindow(b, w, tenant, 10_000)
		b.Run(d.Name, func(b *testing.B) {
			profile := map[string]string{"UCP-Agent": `profile="` + agent.URL + `/agent.json"`, "Content-Type": "application/json"}
			call := func(method, path, body string, header map[string]string) func() {
				return func() {
					req := httptest.NewRequest(method, "http://vitrine.test"+path, strings.NewReader(body))
					for k, v := range header {
						req.Header.Set(k, v)
					}
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					if rec.Code != 200 {
						b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
					}
				}
			}
			page := call("GET", "/shops/technova/products/camiseta-0005000", "", nil)
			getProduct := call("POST", "/shops/technova/ucp/catalog/product", `{"id":"camiseta-0005000"}`, profile)
			home := call("GET", "/shops/technova/", "", nil)
			homeSearch := call("GET", "/shops/technova/?q=camiseta", "", nil)
			search := call("POST", "/shops/technova/ucp/catalog/search", `{"query":"camiseta","pagination":{"limit":24}}`, profile)
			pairs := []struct {
				name     string
				page, op func()
			}{{"product", page, getProduct}, {"home", home, search}, {"home_search", homeSearch, search}}
			for _, p := range pairs {
				p.page()
				p.op()
			}
			times := make([][2][]time.Duration, len(pairs))
			b.ResetTimer()
			// A pair at a time: what one leaves behind (a search's garbage,
			// the database's caches) weighs on the next pair's first call.
			for i, p := range pairs {
				for range b.N {
					for j, f := range []func(){p.page, p.op} {
						start := time.Now()
						f()
						times[i][j] = append(times[i][j], time.Since(start))
					}
				}
			}
			b.StopTimer()
			for i, p := range pairs {
				pg, op := median(times[i][0]), median(times[i][1])
				b.ReportMetric(float64(pg.Microseconds()), p.name+"-page-p50-µs")
				b.ReportMetric(float64(op.Microseconds()), p.name+"-ucp-p50-µs")
				b.ReportMetric(float64(pg)/float64(op), p.name+"-ratio")
			}
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// fillWindow opens the company's window and writes n active products of 3
// variants each, through the store, in large transactions.
func fillWindow(b *testing.B, w *world, tenantID string, n int) {
	u, err := w.db.UserByEmail(ctx, owner)
	if err != nil {
		b.Fatal(err)
	}
	s, err := w.db.Shop(ctx, tenantID)
	if err != nil {
		b.Fatal(err)
	}
	call := vitrine.Call{RequestID: vitrine.NewID(), Tool: "bench", At: vitrine.Now(), Reason: "bench"}
	change := vitrine.Change{UserID: u.ID, Call: call, Reason: "bench"}
	s.Open, s.ProductURL, s.UpdatedAt, s.UpdatedBy = true, "", vitrine.Now(), u.ID
	if err := w.db.SaveShop(ctx, change, s); err != nil {
		b.Fatal(err)
	}
	const batch = 2000
	desc := "<p>Camiseta de <b>algodão penteado</b>, malha 30.1, costura reforçada nos ombros e barra dupla.</p>"
	now := vitrine.Now()
	for first := 0; first < n; first += batch {
		writes := make([]vitrine.ProductWrite, 0, batch)
		for i := first; i < min(first+batch, n); i++ {
			p := &vitrine.Product{ID: vitrine.NewID(), TenantID: tenantID, Handle: fmt.Sprintf("camiseta-%07d", i),
				Name: fmt.Sprintf("Camiseta Básica %07d", i), Description: desc, Vendor: fmt.Sprintf("Malharia %02d", i%50),
				ProductType: "Camisetas", Status: vitrine.ProductActive, Currency: "BRL", Tags: []string{"algodão"},
				Options: []vitrine.Option{{Name: "Tamanho", Values: []string{"P", "M", "G"}}},
				Media: []vitrine.Media{{URL: fmt.Sprintf("https://cdn.example/%07d-front.jpg", i), Position: 1},
					{URL: fmt.Sprintf("https://cdn.example/%07d-back.jpg", i), Position: 2}},
				Version: 1, CreatedAt: now, CreatedBy: u.ID, UpdatedAt: now, UpdatedBy: u.ID}
			compare := int64(6990)
			for j, size := range []string{"P", "M", "G"} {
				p.Variants = append(p.Variants, &vitrine.Variant{ID: vitrine.NewID(), SKU: fmt.Sprintf("CAM-%07d-%s", i, size),
					Options: map[string]string{"Tamanho": size}, Price: 4990 + int64(j)*500, CompareAtPrice: &compare,
					Stock: int64((i + j) % 7), Policy: vitrine.PolicyDeny, RequiresShipping: true, Taxable: true, Position: j + 1})
			}
			p.Summarize()
			writes = append(writes, vitrine.ProductWrite{Create: p})
		}
		if _, err := w.db.WriteProducts(ctx, change, tenantID, writes, true, nil); err != nil {
			b.Fatal(err)
		}
	}
}
