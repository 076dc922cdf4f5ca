package mcpserver_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/demo"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
	"github.com/vitrine/vitrine/store"
)

var ctx = context.Background()

// world is a demo database with a server over it, and what tests need to
// reach into it.
type world struct {
	t       testing.TB
	dbURL   string
	db      *store.DB
	svc     *service.Service
	log     *testkit.SyncBuffer
	tokens  map[string]string // email -> token
	opts    mcpserver.Options // for the servers made after it is set
	tenants map[string]string // slug -> id
	http    *httptest.Server
}

// transports are the ways a test session reaches the server: in memory, and
// Streamable HTTP in both protocol revisions, sessionless (2026-07-28) and
// with sessions (2025-11-25).
var transports = []string{"memory", "http", "http-sessions"}

func newWorld(t testing.TB, url string) *world {
	t.Helper()
	db := dbtest.Open(t, url)
	log := &testkit.SyncBuffer{}
	svc := service.New(db, slog.New(slog.NewTextHandler(log, nil)))
	dw, err := demo.Seed(ctx, svc)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, dbURL: url, db: db, svc: svc, log: log, tokens: map[string]string{}, tenants: map[string]string{}}
	for _, u := range dw.Users {
		w.tokens[u.Email] = u.Token
	}
	for _, tn := range dw.Tenants {
		w.tenants[tn.Slug] = tn.ID
	}
	w.http = httptest.NewServer(serveHTTP(t, svc, w.server(mcpserver.Options{}), httpserver.Options{}))
	t.Cleanup(w.http.Close)
	return w
}

// serveHTTP is srv served over HTTP as `vitrine serve` serves it, with
// opts, its callers authenticated by svc.
func serveHTTP(t testing.TB, svc *service.Service, srv *mcpserver.Server, opts httpserver.Options) http.Handler {
	t.Helper()
	web, err := httpserver.New(srv, svc, opts)
	if err != nil {
		t.Fatal(err)
	}
	return web.Handler()
}

func (w *world) server(opts mcpserver.Options) *mcpserver.Server {
	w.t.Helper()
	opts.Logger = slog.New(slog.NewTextHandler(w.log, nil))
	if opts.CallTimeout == 0 {
		opts.CallTimeout = w.opts.CallTimeout
	}
	srv, err := mcpserver.New(w.svc, opts)
	if err != nil {
		w.t.Fatal(err)
	}
	return srv
}

// session connects a real SDK client as the user with that email.
func (w *world) session(transport, email string) *mcp.ClientSession {
	w.t.Helper()
	return w.sessionWithToken(transport, w.tokens[email])
}

func (w *world) sessionWithToken(transport, token string) *mcp.ClientSession {
	w.t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	var (
		t    mcp.Transport
		opts *mcp.ClientSessionOptions
	)
	switch transport {
	case "memory":
		srv := w.server(mcpserver.Options{Token: token})
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(ctx, st, nil)
		if err != nil {
			w.t.Fatal(err)
		}
		w.t.Cleanup(func() { ss.Close() })
		t = ct
	case "http", "http-sessions":
		t = &mcp.StreamableClientTransport{Endpoint: w.http.URL + httpserver.MCPPath, HTTPClient: testkit.BearerClient(token), MaxRetries: -1}
		if transport == "http-sessions" {
			opts = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
		}
	}
	cs, err := client.Connect(ctx, t, opts)
	if err != nil {
		w.t.Fatalf("connect over %s: %v", transport, err)
	}
	w.t.Cleanup(func() { cs.Close() })
	return cs
}

// connect connects an SDK client, with its options, in memory to a server
// of its own with opts, as the user with that email.
func (w *world) connect(opts mcpserver.Options, email string, copts *mcp.ClientOptions) *mcp.ClientSession {
	w.t.Helper()
	opts.Token = w.tokens[email]
	return w.connectWith(opts, copts)
}

// connectWith connects an SDK client in memory to a server of its own with
// opts, as the holder of opts.Token.
func (w *world) connectWith(opts mcpserver.Options, copts *mcp.ClientOptions) *mcp.ClientSession {
	w.t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := w.server(opts).MCP().Connect(ctx, st, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { cs.Close() })
	return cs
}

// token makes a token of the user that grants the toolsets (nil: the
// default ones), and returns its secret. The demo's tokens grant every
// toolset.
func (w *world) token(email string, toolsets []string, readOnly ...bool) string {
	w.t.Helper()
	_, secret, err := w.svc.Operator().CreateToken(ctx, accounts.NewToken{Email: email, Name: "test", Toolsets: toolsets,
		ReadOnly: len(readOnly) > 0 && readOnly[0]})
	if err != nil {
		w.t.Fatal(err)
	}
	return secret
}

func (w *world) productID(slug, sku string) string {
	w.t.Helper()
	p, err := w.db.ProductBySKU(ctx, w.tenants[slug], sku)
	if err != nil {
		w.t.Fatal(err)
	}
	return p.ID
}

// Demo users, by role.
const (
	owner    = "ana@technova.example"
	admin    = "bruno@technova.example"
	member   = "carla@technova.example" // also viewer of mercado-verde
	viewer   = "diego@technova.example"
	inactive = "elisa@technova.example"
	verde    = "marina@mercadoverde.example" // owner of mercado-verde only
)

// initialize opens a session of the 2025-11-25 revision.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func jsonUnmarshal(text string, v any) error { return json.Unmarshal([]byte(text), v) }
