package httpserver_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/pgtrace"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
	"github.com/vitrine/vitrine/store"
)

// rawSession is an MCP session opened with raw HTTP requests, so that a
// test sees each answer's status and headers.
type rawSession struct {
	t           *testing.T
	url, token  string
	id          string
	lastRequest int
}

func openRaw(t *testing.T, url, token string) *rawSession {
	s := &rawSession{t: t, url: url, token: token}
	res, _ := s.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	s.id = res.Header.Get("Mcp-Session-Id")
	if res.StatusCode != http.StatusOK || s.id == "" {
		t.Fatalf("initialize: %d, session %q", res.StatusCode, s.id)
	}
	s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *rawSession) post(body string) (*http.Response, string) {
	s.t.Helper()
	req, _ := http.NewRequest("POST", s.url+httpserver.MCPPath, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res, string(data)
}

// call calls a tool and returns the answer's status, WWW-Authenticate
// header and body.
func (s *rawSession) call(tool, args string) (int, string, string) {
	s.t.Helper()
	s.lastRequest++
	res, body := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, s.lastRequest, tool, args))
	return res.StatusCode, res.Header.Get("WWW-Authenticate"), body
}

// A caller whose token this instance has cached is admitted without reading
// the access epoch first: the call's own first read checks it. Whatever
// changes in between, from another store (another instance, the operator's
// CLI), still shows at the next call, and a refused token still gets the
// 401 every refused token gets, never a tool's answer.
func TestAccessChangesShowAtTheNextCallThoughCached(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		hs := httptest.NewServer(serveHTTP(t, w.svc, w.server(mcpserver.Options{}), httpserver.Options{Logger: slog.New(slog.NewTextHandler(w.log, nil))}))
		defer hs.Close()
		cli := service.New(dbtest.Open(t, url), nil).Operator()
		s := openRaw(t, hs.URL, w.tokens[member])
		notebook := fmt.Sprintf(`{"tenant_id":%q,"id":%q}`, w.tenants["technova"], w.productID("technova", "NB-DELL-5440"))
		ok := func(tool, args, want string) {
			t.Helper()
			status, _, body := s.call(tool, args)
			if status != http.StatusOK || !strings.Contains(body, want) {
				t.Fatalf("%s: %d %s", tool, status, body)
			}
		}
		refused := func(tool, args, reason string) {
			t.Helper()
			status, challenge, body := s.call(tool, args)
			if status != http.StatusUnauthorized || !strings.Contains(challenge, `error="invalid_token", error_description="`+reason+`"`) ||
				!strings.Contains(body, `"error":"invalid_token"`) || strings.Contains(body, "jsonrpc") {
				t.Fatalf("%s: %d %q %s", tool, status, challenge, body)
			}
		}
		must := func(_ any, err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		ok("get_product", notebook, "Notebook Dell") // the token is now cached
		ok("get_product", notebook, "Notebook Dell")

		// A role changed elsewhere: the write is refused, and nothing written.
		create := fmt.Sprintf(`{"tenant_id":%q,"sku":"EPOCH-1","name":"Epoch","price":"1.00"}`, w.tenants["technova"])
		must(cli.UpdateMember(ctx, "technova", member, service.MemberChanges{Role: "viewer"}))
		ok("create_product", create, `PermissionError`)
		must(cli.UpdateMember(ctx, "technova", member, service.MemberChanges{Role: "member"}))
		ok("create_product", create, `"sku":"EPOCH-1"`)

		// A disabled user: 401, for a call that reads the catalog and for
		// one that reads nothing of it.
		yes, no := true, false
		must(cli.UpdateUser(ctx, member, accounts.UserChanges{Disabled: &yes}))
		refused("get_product", notebook, "the user is disabled")
		refused("whoami", `{}`, "the user is disabled")
		// Enabled again: what the cache last held of the token (a disabled
		// user) does not refuse it.
		must(cli.UpdateUser(ctx, member, accounts.UserChanges{Disabled: &no}))
		ok("get_product", notebook, "Notebook Dell")

		// A revoked token.
		tokens, err := cli.ListTokens(ctx, member)
		must(nil, err)
		for _, tk := range tokens {
			must(cli.RevokeToken(ctx, tk.ID))
		}
		refused("get_product", notebook, "the token was revoked")
		if n := strings.Count(w.log.String(), "authentication refused"); n != 3 {
			t.Errorf("%d refusals logged, want 3", n)
		}
	})
}

// offTheRequest says which round trips to PostgreSQL the test leaves out,
// so that it counts those on a request's way: what happens whenever it
// happens to, the background work (the buffered read audit's flush, the
// token's last use recorded once a minute), and a new connection's set-up
// and first preparation of each statement (the pool opens one when the
// background holds the others). vitrine-bench counts all of them.
func offTheRequest(ctx context.Context, kind pgtrace.Kind, sql string) bool {
	return ctx.Value(http.ServerContextKey) == nil || kind == pgtrace.Prepare ||
		strings.HasPrefix(sql, "SELECT current_user, current_database()") || strings.HasPrefix(sql, "SET ROLE ") // the pool's AfterConnect
}

// On PostgreSQL, a read by a caller the instance has seen costs one round
// trip: the access epoch is checked in the read's own.
func TestAReadIsOneRoundTrip(t *testing.T) {
	url := dbtest.PostgresURL(t)
	w := newWorld(t, url)
	rt := &pgtrace.RoundTrips{Skip: offTheRequest}
	db, err := store.Open(ctx, url, store.Options{Tracer: rt, NoMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := service.New(db, nil)
	defer svc.Close(context.Background())
	srv, err := mcpserver.New(svc, mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(serveHTTP(t, svc, srv, httpserver.Options{}))
	defer hs.Close()
	cs := connectTo(t, hs.URL, w.tokens[member])
	args := map[string]any{"tenant_id": w.tenants["technova"], "id": w.productID("technova", "NB-DELL-5440")}
	testkit.OK[product](t, cs, "get_product", args) // the token and membership are now cached
	const calls = 20
	before := rt.N()
	for range calls {
		testkit.OK[product](t, cs, "get_product", args)
	}
	if n := rt.N() - before; n != calls {
		t.Errorf("%d get_product calls took %d round trips", calls, n)
	}
}
