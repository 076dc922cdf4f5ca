package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// --dev-insecure-agent-profiles is said loudly at start; a --shop-domain
// that is no host name stops the server before it listens; the windows
// are served at /shops/ (a company's window, closed by default, not
// found).
func TestServeShopFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "v.db")
	limit, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var errs bytes.Buffer
	code := run(limit, []string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--shop-domain", "https://shops.example"}, strings.NewReader(""), io.Discard, &errs)
	if code == 0 || limit.Err() != nil || !strings.HasPrefix(errs.String(), "vitrine: --shop-domain must be a host name") {
		t.Errorf("a --shop-domain with a scheme: exit %d, %s", code, errs.String())
	}
	var w struct {
		Tenants []struct{ ID, Slug string }
		Users   []struct{ Email, Token string }
	}
	json.Unmarshal([]byte(must(t, "demo", "--db", db, "--json")), &w)
	srv := serveHere(t, "--db", db, "--shop-domain", "shops.example", "--dev-insecure-agent-profiles")
	if log := srv.stderr.String(); !strings.Contains(log, `"level":"WARN","msg":"INSECURE: shopping agents' profiles are fetched over http`) {
		t.Errorf("no warning at start:\n%s", log)
	}
	for path, want := range map[string]int{"/shops/nobody/.well-known/ucp": 404, "/shops/technova/.well-known/ucp": 200} {
		if code, body := get(t, srv.url+path); code != want {
			t.Errorf("%s: %d %s", path, code, body)
		}
	}
	// At technova.shops.example too, and get_shop says so.
	req, _ := http.NewRequest("GET", srv.url+"/.well-known/ucp", nil)
	req.Host = "technova.shops.example"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("at technova.shops.example: %d", res.StatusCode)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: srv.url + "/mcp", HTTPClient: &http.Client{Transport: bearer(w.Users[0].Token)}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var technova string
	for _, tn := range w.Tenants {
		if tn.Slug == "technova" {
			technova = tn.ID
		}
	}
	got, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_shop", Arguments: map[string]any{"tenant_id": technova}})
	if err != nil || got.IsError || !strings.Contains(got.Content[0].(*mcp.TextContent).Text, "technova.shops.example") {
		t.Errorf("get_shop with --shop-domain: %v %+v", err, got)
	}
	if code := srv.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}
