package mcpserver_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
)

// Two server instances on one database, behind a load balancer that sends
// each request to the next instance in turn: no sticky sessions. One client
// flow creates a product through one instance and reads, updates and
// deletes it through the other.
func TestTwoInstancesWithoutStickySessions(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url) // instance A is w.http
		dbB := dbtest.Open(t, url)
		svcB := service.New(dbB, nil)
		srvB, err := mcpserver.New(svcB, mcpserver.Options{Logger: slog.New(slog.NewTextHandler(w.log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		b := httptest.NewServer(serveHTTP(t, svcB, srvB, httpserver.Options{Logger: slog.New(slog.NewTextHandler(w.log, nil))}))
		defer b.Close()

		// Both protocol revisions: sessions (2025-11-25) and sessionless (2026-07-28).
		for _, version := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(version, func(t *testing.T) { balancedFlow(t, w, version, b.URL) })
		}
	})
}

func balancedFlow(t *testing.T, w *world, version, instanceB string) {
	var served [2]atomic.Int64
	lb := roundRobin(t, &served, w.http.URL, instanceB)
	defer lb.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: lb.URL + httpserver.MCPPath,
		HTTPClient: testkit.BearerClient(w.tokens[owner]), MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s, want %s", got, version)
	}
	technova := w.tenants["technova"]
	var ids []string
	for i := range 3 {
		p := testkit.OK[product](t, cs, "create_product", map[string]any{"tenant_id": technova, "sku": fmt.Sprintf("LB-%s-%d", version, i), "name": "Balanced", "price": "1.00"})
		got := testkit.OK[product](t, cs, "get_product", map[string]any{"tenant_id": technova, "id": p.ID})
		upd := testkit.OK[product](t, cs, "update_product", map[string]any{"tenant_id": technova, "id": got.ID, "stock": 7, "expected_version": got.Version})
		if upd.Stock != 7 || upd.Version != 2 {
			t.Fatalf("update across instances: %+v", upd)
		}
		ids = append(ids, p.ID)
	}
	for _, id := range ids {
		testkit.OK[map[string]any](t, cs, "delete_product", map[string]any{"tenant_id": technova, "id": id})
		testkit.Fails(t, cs, "get_product", map[string]any{"tenant_id": technova, "id": id}, `{"error":true,"type":"NotFoundError","message":"Product not found"}`)
	}
	if served[0].Load() < 5 || served[1].Load() < 5 {
		t.Errorf("requests served: A %d, B %d", served[0].Load(), served[1].Load())
	}
}

// roundRobin is a load balancer that sends each request to the next backend.
func roundRobin(t *testing.T, served *[2]atomic.Int64, backends ...string) *httptest.Server {
	var next atomic.Int64
	proxies := make([]*httputil.ReverseProxy, len(backends))
	for i, b := range backends {
		u, err := url.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		proxies[i] = httputil.NewSingleHostReverseProxy(u)
		proxies[i].FlushInterval = -1
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(next.Add(1)-1) % len(proxies)
		served[i].Add(1)
		proxies[i].ServeHTTP(w, r)
	}))
}

// Concurrent writers to one product never lose an update: every
// acknowledged change is in the final state, and the version counts them.
func TestConcurrentUpdatesLoseNothing(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		id := w.productID("technova", "MS-LOGI-MX3S")
		start := testkit.OK[product](t, w.session("http", admin), "get_product", map[string]any{"tenant_id": technova, "id": id})

		const workers, rounds = 6, 8
		var (
			increments, renames atomic.Int64
			wg                  sync.WaitGroup
			failures            = make(chan error, workers*rounds)
		)
		for i := range workers {
			cs := w.session("http", admin)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range rounds {
					if i%2 == 0 {
						// Read, add one, write back at the version read; retry on conflict.
						for {
							p, err := testkit.CallJSON[product](cs, "get_product", map[string]any{"tenant_id": technova, "id": id})
							if err != nil {
								failures <- err
								return
							}
							_, err = testkit.CallJSON[product](cs, "update_product", map[string]any{"tenant_id": technova, "id": id, "stock": p.Stock + 1, "expected_version": p.Version})
							if err == nil {
								increments.Add(1)
								break
							}
							if !strings.Contains(err.Error(), `"type":"ConflictError"`) {
								failures <- err
								return
							}
						}
					} else {
						// Blind writes of another field: the server applies them to the latest version.
						if _, err := testkit.CallJSON[product](cs, "update_product", map[string]any{"tenant_id": technova, "id": id, "description": fmt.Sprintf("worker %d round %d", i, r)}); err != nil {
							failures <- err
							return
						}
						renames.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		close(failures)
		for err := range failures {
			t.Error(err)
		}
		end := testkit.OK[product](t, w.session("http", admin), "get_product", map[string]any{"tenant_id": technova, "id": id})
		if end.Stock != start.Stock+increments.Load() {
			t.Errorf("stock %d, want %d + %d acknowledged increments", end.Stock, start.Stock, increments.Load())
		}
		if end.Version != start.Version+increments.Load()+renames.Load() {
			t.Errorf("version %d, want %d + %d + %d acknowledged updates", end.Version, start.Version, increments.Load(), renames.Load())
		}
		if !strings.HasPrefix(end.Description, "worker ") {
			t.Errorf("description %q", end.Description)
		}
	})
}

// What a server caches of tokens and memberships never outlives a change,
// wherever the change is made: here by the operator's CLI, a separate
// process on the same database (a separate store stands for it). Each
// change shows on the very next call.
func TestAccessChangesFromElsewhereShowAtOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		cli := service.New(dbtest.Open(t, url), nil).Operator()
		technova := w.tenants["technova"]
		notebook := map[string]any{"tenant_id": technova, "id": w.productID("technova", "NB-DELL-5440")}
		noMembership := `{"error":true,"type":"Error","message":"Membership not found or inactive"}`
		denied := `{"error":true,"type":"PermissionError","message":"You do not have permission to perform this action"}`
		change := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		for _, tr := range []string{"http", "http-sessions"} {
			t.Run(tr, func(t *testing.T) {
				cs := w.session(tr, member)
				testkit.OK[product](t, cs, "get_product", notebook) // the server now holds the member's access

				_, err := cli.UpdateMember(ctx, "technova", member, service.MemberChanges{Status: "inactive"})
				change(err)
				testkit.Fails(t, cs, "get_product", notebook, noMembership)
				_, err = cli.UpdateMember(ctx, "technova", member, service.MemberChanges{Status: "active"})
				change(err)
				testkit.OK[product](t, cs, "get_product", notebook)

				create := map[string]any{"tenant_id": technova, "sku": "CACHE-" + tr, "name": "Cache", "price": "1.00"}
				_, err = cli.UpdateMember(ctx, "technova", member, service.MemberChanges{Role: "viewer"})
				change(err)
				testkit.Fails(t, cs, "create_product", create, denied)
				_, err = cli.UpdateMember(ctx, "technova", member, service.MemberChanges{Role: "member"})
				change(err)
				testkit.OK[product](t, cs, "create_product", create)
			})
		}

		// A disabled user, then a revoked token, are refused at the next request.
		cs := w.session("http", member)
		testkit.OK[product](t, cs, "get_product", notebook)
		yes, no := true, false
		_, err := cli.UpdateUser(ctx, member, accounts.UserChanges{Disabled: &yes})
		change(err)
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_product", Arguments: notebook}); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Fatalf("a disabled user's call: %v", err)
		}
		_, err = cli.UpdateUser(ctx, member, accounts.UserChanges{Disabled: &no})
		change(err)
		cs = w.session("http", member)
		testkit.OK[product](t, cs, "get_product", notebook)
		tokens, err := cli.ListTokens(ctx, member)
		change(err)
		for _, tk := range tokens {
			_, err := cli.RevokeToken(ctx, tk.ID)
			change(err)
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_product", Arguments: notebook}); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Fatalf("a revoked token's call: %v", err)
		}
	})
}
