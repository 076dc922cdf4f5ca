package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service/accounts"
)

// HTTP without a valid token is a 401 with a challenge, never a tool result.
func TestHTTPRequiresAToken(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	expired := vitrine.Now().Add(-time.Hour)
	_, old, err := w.svc.Operator().CreateToken(ctx, accounts.NewToken{Email: owner, Name: "old", Toolsets: []string{"all"}})
	if err != nil {
		t.Fatal(err)
	}
	// Expire it behind the service's back: creation refuses a past expiry.
	dbtest.Exec(t, w.dbURL, `UPDATE api_tokens SET expires_at = $1 WHERE name = 'old'`, expired.Format("2006-01-02T15:04:05.000000Z"))
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_tenants","arguments":{}}}`
	for name, c := range map[string]struct {
		header, errCode string
	}{
		"no header":     {"", ""},
		"not bearer":    {"Basic YWxhZGRpbjpvcGVuc2VzYW1l", ""},
		"empty bearer":  {"Bearer ", ""},
		"unknown token": {"Bearer " + vitrine.NewTokenSecret(), "invalid_token"},
		"malformed":     {"Bearer ghp_1234", "invalid_token"},
		"wrong secret":  {"Bearer " + w.tokens[owner][:12] + strings.Repeat("x", 32), "invalid_token"},
		"expired token": {"Bearer " + old, "invalid_token"},
	} {
		req, _ := http.NewRequest("POST", w.http.URL+httpserver.MCPPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.header != "" {
			req.Header.Set("Authorization", c.header)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		challenge := res.Header.Get("WWW-Authenticate")
		if res.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(challenge, `Bearer realm="vitrine"`) {
			t.Errorf("%s: %d %q %s", name, res.StatusCode, challenge, data)
		}
		if c.errCode != "" && !strings.Contains(challenge, `error="`+c.errCode+`"`) {
			t.Errorf("%s: challenge %q lacks error=%q", name, challenge, c.errCode)
		}
		var e map[string]string
		if json.Unmarshal(data, &e) != nil || e["error_description"] == "" || strings.Contains(string(data), "isError") {
			t.Errorf("%s: body %s", name, data)
		}
	}
}

// A read-only token lists only read-only tools, and a write is refused as
// outside its grant.
func TestReadOnlyToken(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	_, secret, err := w.svc.Operator().CreateToken(ctx, accounts.NewToken{Email: owner, Name: "reader", ReadOnly: true, Toolsets: []string{"all"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range transports {
		cs := w.sessionWithToken(tr, secret)
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			if !tool.Annotations.ReadOnlyHint {
				t.Errorf("%s: a read-only token lists %s", tr, tool.Name)
			}
		}
		if !slices.Contains(names, "list_products") || slices.Contains(names, "create_product") {
			t.Errorf("%s: read-only token lists %v", tr, names)
		}
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_product", Arguments: map[string]any{"tenant_id": w.tenants["technova"], "id": w.productID("technova", "NB-DELL-5440")}})
		if err != nil {
			t.Errorf("%s: read-only token calling delete_product: %v", tr, err)
		}
		e := testkit.ErrorOf(t, cs, "delete_product", map[string]any{"tenant_id": w.tenants["technova"], "id": w.productID("technova", "NB-DELL-5440")})
		if !strings.HasPrefix(e["message"].(string), "This token does not grant write (it is read-only)") {
			t.Errorf("%s: read-only token calling delete_product: %v", tr, e)
		}
		who := testkit.OK[struct {
			Token struct {
				ReadOnly bool `json:"read_only"`
			}
			Tenants []struct{ Permissions []string }
		}](t, cs, "whoami", nil)
		if !who.Token.ReadOnly || len(who.Tenants) != 1 || slices.Contains(who.Tenants[0].Permissions, "products:delete") {
			t.Errorf("%s: whoami for a read-only token: %+v", tr, who)
		}
	}
	// A full token of the same user lists every tool of its toolsets.
	res, _ := w.session("http", owner).ListTools(ctx, nil)
	if want := toolsOf(w, mcpserver.Toolsets, false); len(res.Tools) != len(want) {
		t.Errorf("owner lists %d tools, want %d", len(res.Tools), len(want))
	}
}

func TestWhoami(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	who := testkit.OK[struct {
		User  struct{ Email, Name string }
		Token struct {
			Name     string
			ReadOnly bool `json:"read_only"`
		}
		Tenants []struct {
			ID, Slug, Role string
			Permissions    []string
		}
	}](t, w.session("memory", member), "whoami", nil)
	if who.User.Email != member || who.Token.Name != "demo" || who.Token.ReadOnly || len(who.Tenants) != 2 {
		t.Fatalf("whoami: %+v", who)
	}
	want := map[string][]string{
		"technova":      {"tenants:read", "products:read", "products:create", "products:update", "members:read", "roles:read"},
		"mercado-verde": {"tenants:read", "products:read"},
	}
	for _, tn := range who.Tenants {
		if !slices.Equal(tn.Permissions, want[tn.Slug]) {
			t.Errorf("%s: permissions %v, want %v", tn.Slug, tn.Permissions, want[tn.Slug])
		}
	}
	tenant := testkit.OK[struct{ Name, Role string }](t, w.session("memory", member), "get_tenant", map[string]any{"tenant_id": w.tenants["mercado-verde"]})
	if tenant.Name != "Mercado Verde" || tenant.Role != "viewer" {
		t.Errorf("get_tenant: %+v", tenant)
	}
}

// Every tool carries what a model and a client need: a title, a
// description, typed parameters, an output schema and honest annotations,
// each said once: no annotation repeats the title, the arguments that many
// tools share read the same everywhere, and a text argument states its
// bound (or its values) in the schema, not in prose. Ids and times are
// checked by lookup and by parsing instead.
func TestToolDefinitions(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	res, err := w.connect(mcpserver.Options{}, owner, nil).ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// request_toolset, which a token granting fewer toolsets lists.
	res.Tools = append(res.Tools, listTools(t, w.connectWith(mcpserver.Options{Token: w.token(owner, nil)}, nil))...)
	// What the server checks: the listed schemas leave unsaid the bounds
	// of long texts (200 characters and more) and the fields of an array's
	// objects (listed by name), to spare the agent's context.
	checked := map[string]map[string]any{}
	for _, tool := range tools() {
		b, _ := json.Marshal(tool.InputSchema())
		var m map[string]any
		json.Unmarshal(b, &m)
		checked[tool.Name] = m
	}
	shared := map[string]string{}
	for _, tool := range res.Tools {
		if tool.Title == "" || len(tool.Description) < 40 || tool.Annotations == nil || tool.Annotations.Title != "" {
			t.Errorf("%s: title %q, description %q", tool.Name, tool.Title, tool.Description)
		}
		a := tool.Annotations
		if a.OpenWorldHint == nil || *a.OpenWorldHint || a.ReadOnlyHint != (a.DestructiveHint == nil) {
			t.Errorf("%s: annotations %+v", tool.Name, a)
		}
		readOnly := strings.HasPrefix(tool.Name, "list_") || strings.HasPrefix(tool.Name, "get_") || tool.Name == "whoami" || tool.Name == "request_toolset" || tool.Name == "check_shop" || tool.Name == "export_products"
		destructive := strings.HasPrefix(tool.Name, "delete_") || strings.HasPrefix(tool.Name, "remove_") || strings.HasPrefix(tool.Name, "revoke_")
		if a.ReadOnlyHint != readOnly || (!readOnly && *a.DestructiveHint != destructive) {
			t.Errorf("%s: readOnly %v destructive %v", tool.Name, a.ReadOnlyHint, a.DestructiveHint)
		}
		in, _ := tool.InputSchema.(map[string]any)
		props, _ := in["properties"].(map[string]any)
		for name, p := range props {
			p := p.(map[string]any)
			d, _ := p["description"].(string)
			if name == "tenant_id" || name == "limit" || name == "cursor" {
				// An invitee's tenant_id names a company they are not in
				// yet (list_invitations, not list_tenants): one wording
				// for each meaning.
				kind := name
				if strings.HasSuffix(tool.Name, "_invitation") {
					kind = "invitation " + name
				}
				// A company's tenant_id is described once, in the
				// server's instructions (whoami, list_tenants).
				if kind == "tenant_id" && d != "" {
					t.Errorf("%s: tenant_id reads %q; the instructions say where it comes from", tool.Name, d)
					continue
				}
				if (d == "" && kind != "tenant_id") || (shared[kind] != "" && shared[kind] != d) {
					t.Errorf("%s: %s reads %q, elsewhere %q", tool.Name, name, d, shared[kind])
				}
				shared[kind] = d
			}
			if strings.HasPrefix(strings.ToLower(d), "the "+strings.ReplaceAll(name, "_", " ")) {
				t.Errorf("%s: %s's description repeats its name: %q", tool.Name, name, d)
			}
			idOrTime := name == "tool" || strings.HasSuffix(name, "id") || strings.HasSuffix(name, "ids") || name == "since" || name == "until" || name == "updated_since"
			if cp, ok := checked[tool.Name]["properties"].(map[string]any)[name].(map[string]any); ok {
				p = cp
			}
			if items, ok := p["items"].(map[string]any); ok {
				p = items
			}
			if p["type"] == "string" && p["maxLength"] == nil && p["enum"] == nil && p["pattern"] == nil && !idOrTime {
				t.Errorf("%s: %s is an unbounded string", tool.Name, name)
			}
			if p["type"] == nil {
				t.Errorf("%s: %s has no type", tool.Name, name)
			}
		}
		if in["type"] != "object" || in["additionalProperties"] == nil {
			t.Errorf("%s: input schema %v", tool.Name, in)
		}
		// A write that returns the product says so instead of listing
		// get_product's schema again.
		if out, _ := tool.OutputSchema.(map[string]any); out["type"] != "object" {
			t.Errorf("%s: output schema %v", tool.Name, tool.OutputSchema)
		}
	}
}

// The server honours logging/setLevel and tells the session of its calls.
func TestLoggingNotifications(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	for _, tr := range []string{"memory", "http-sessions"} {
		got := make(chan map[string]any, 10)
		client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
			//lint:ignore SA1019 the deprecated logging feature is tested as long as it is served (see New in server.go).
			LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
				if d, ok := r.Params.Data.(map[string]any); ok {
					d["level"] = string(r.Params.Level)
					got <- d
				}
			}})
		var tp mcp.Transport
		if tr == "memory" {
			srv := w.server(mcpserver.Options{Token: w.tokens[member]})
			st, ct := mcp.NewInMemoryTransports()
			ss, err := srv.MCP().Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			tp = ct
		} else {
			tp = &mcp.StreamableClientTransport{Endpoint: w.http.URL + httpserver.MCPPath, HTTPClient: testkit.BearerClient(w.tokens[member]), MaxRetries: -1}
		}
		cs, err := client.Connect(ctx, tp, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		testkit.OK[map[string]any](t, cs, "whoami", nil) // before any level is set: nothing is sent
		//lint:ignore SA1019 the deprecated logging feature is tested as long as it is served.
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
		testkit.ErrorOf(t, cs, "get_product", map[string]any{"tenant_id": w.tenants["technova"], "id": "id-invalido"})
		select {
		case n := <-got:
			if n["tool"] != "get_product" || n["outcome"] != "NotFoundError" || n["level"] != "info" || n["request_id"] == "" {
				t.Errorf("%s: notification %v", tr, n)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s: no notification", tr)
		}
		cs.Close()
	}
}
