package httpserver_test

import (
	"context"
	"log/slog"
	"net/http"
	"testing"

	"github.com/vitrine/vitrine/demo"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/store"
)

// The HTTP side's tests serve the demo world as `vitrine serve` does
// (httpserver.New over an mcpserver.Server) and call it with real SDK
// clients and raw requests. The tools themselves are mcpserver's tests.

var ctx = context.Background()

// world is a demo database, and what tests need to reach into it.
type world struct {
	t       testing.TB
	db      *store.DB
	svc     *service.Service
	log     *testkit.SyncBuffer
	tokens  map[string]string // email -> token
	tenants map[string]string // slug -> id
}

func newWorld(t testing.TB, url string) *world {
	t.Helper()
	db := dbtest.Open(t, url)
	log := &testkit.SyncBuffer{}
	svc := service.New(db, slog.New(slog.NewTextHandler(log, nil)))
	dw, err := demo.Seed(ctx, svc)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, db: db, svc: svc, log: log, tokens: map[string]string{}, tenants: map[string]string{}}
	for _, u := range dw.Users {
		w.tokens[u.Email] = u.Token
	}
	for _, tn := range dw.Tenants {
		w.tenants[tn.Slug] = tn.ID
	}
	return w
}

// server is an MCP server over the world, logging to its log.
func (w *world) server(opts mcpserver.Options) *mcpserver.Server {
	w.t.Helper()
	opts.Logger = slog.New(slog.NewTextHandler(w.log, nil))
	srv, err := mcpserver.New(w.svc, opts)
	if err != nil {
		w.t.Fatal(err)
	}
	return srv
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

func (w *world) productID(slug, sku string) string {
	w.t.Helper()
	p, err := w.db.ProductBySKU(ctx, w.tenants[slug], sku)
	if err != nil {
		w.t.Fatal(err)
	}
	return p.ID
}

type product struct {
	ID, SKU, Name string
}

const (
	owner  = "ana@technova.example"
	member = "carla@technova.example" // also viewer of mercado-verde
	viewer = "diego@technova.example"
	verde  = "marina@mercadoverde.example"

	denied = `{"error":true,"type":"PermissionError","message":"You do not have permission to perform this action"}`

	// initialize opens a session of the 2025-11-25 revision.
	initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
)
