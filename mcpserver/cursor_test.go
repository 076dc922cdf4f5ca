package mcpserver_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
)

// A cursor an agent wrote itself is refused at once, as a ValidationError
// naming cursor: neither the unsigned cursors of old nor a signed one whose
// position was changed place a list anywhere (a relevance rank far below
// zero used to keep a call looping until its deadline).
func TestForgedCursorRefusedAtOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		cs := w.session("memory", owner)
		id := w.productID("technova", "NB-DELL-5440")
		pos := `{"r":-4611686018427387904,"n":"x","i":"` + id + `"}`
		// The cursor format before signing: a digest of public values.
		filters := `{"Query":"c","Status":"","InStock":null,"MinPrice":"","MaxPrice":"","Currency":"","UpdatedSince":"","Sort":"","Limit":0,"Cursor":""}`
		digest := sha256.Sum256([]byte(technova + "\x00" + filters))
		old, _ := json.Marshal(map[string]any{"s": hex.EncodeToString(digest[:6]), "k": json.RawMessage(pos)})
		// A real cursor with its position replaced.
		page := testkit.OK[struct {
			NextCursor string `json:"next_cursor"`
		}](t, cs, "list_products", map[string]any{"tenant_id": technova, "query": "c", "limit": 1})
		_, mac, found := strings.Cut(page.NextCursor, ".")
		if !found {
			t.Fatalf("next_cursor %q is not signed", page.NextCursor)
		}
		for name, c := range map[string]string{
			"unsigned":  base64.RawURLEncoding.EncodeToString(old),
			"re-signed": base64.RawURLEncoding.EncodeToString([]byte(pos)) + "." + mac,
		} {
			start := time.Now()
			e := testkit.ErrorOf(t, cs, "list_products", map[string]any{"tenant_id": technova, "query": "c", "cursor": c})
			took := time.Since(start)
			t.Logf("%s cursor refused in %v", name, took)
			if took > time.Second {
				t.Errorf("%s: the refusal took %v", name, took)
			}
			if e["type"] != "ValidationError" || e["field"] != "cursor" {
				t.Errorf("%s: %v, want a ValidationError naming cursor", name, e)
			}
		}
	})
}

// Cursors are signed with a key the database keeps: a server started
// afterwards over the same database (a restart, another instance) takes the
// cursors the first one gave.
func TestCursorsOutliveTheServer(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		args := map[string]any{"tenant_id": technova, "limit": 1}
		first := testkit.OK[struct {
			NextCursor string `json:"next_cursor"`
		}](t, w.session("memory", owner), "list_products", args)
		if first.NextCursor == "" {
			t.Fatal("no next page")
		}
		srv, err := mcpserver.New(service.New(w.db, nil), mcpserver.Options{Token: w.tokens[owner]})
		if err != nil {
			t.Fatal(err)
		}
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		args["cursor"] = first.NextCursor
		testkit.OK[map[string]any](t, cs, "list_products", args)
	})
}

// A cursor made before the filter had a canonical form of its own (signed
// over the JSON of list_products' arguments as strings), even one signed
// with the database's very key, places no list anywhere now: it gets the
// ValidationError of any foreign cursor, while a cursor of today's form
// for the same position pages on.
func TestCursorFromBeforeTheTypedFilter(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	technova := w.tenants["technova"]
	cs := w.session("memory", owner)
	args := func(cursor string) map[string]any {
		return map[string]any{"tenant_id": technova, "query": "c", "limit": 1, "cursor": cursor}
	}
	type page struct {
		NextCursor string `json:"next_cursor"`
	}
	first := testkit.OK[page](t, cs, "list_products", args(""))
	body, _, _ := strings.Cut(first.NextCursor, ".")
	raw, err := base64.RawURLEncoding.DecodeString(body)
	var pos vitrine.ProductKey
	if err != nil || json.Unmarshal(raw, &pos) != nil || pos.ID == "" {
		t.Fatalf("next_cursor %q holds no position", first.NextCursor)
	}
	key, err := w.db.ServerKey(ctx, "cursor", make([]byte, service.CursorKeyLength))
	if err != nil {
		t.Fatal(err)
	}
	// What the scope of this very list was: the tenant, then the JSON of
	// service.ProductQuery without its page.
	scope := technova + "\x00" + `{"Query":"c","Status":"","InStock":null,"MinPrice":"","MaxPrice":"","Currency":"","UpdatedSince":"",` +
		`"Tags":[],"Vendor":"","ProductType":"","CategoryID":"","Options":null,"Attributes":null,"OnSale":null,"Facets":null,"Sort":"","Limit":0,"Cursor":""}`
	old := service.NewCursors(key).Encode(scope, pos)
	foreign := testkit.ErrorOf(t, cs, "list_products", args("abc"))
	if got := testkit.ErrorOf(t, cs, "list_products", args(old)); fmt.Sprint(got) != fmt.Sprint(foreign) {
		t.Errorf("a cursor from before: %v, want %v", got, foreign)
	}
	testkit.OK[page](t, cs, "list_products", args(first.NextCursor))
}
