package mcpserver_test

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
)

const denied = `{"error":true,"type":"PermissionError","message":"You do not have permission to perform this action"}`

type memberRec struct {
	UserID      string `json:"user_id"`
	Email, Role string
	Status      string
	Permissions []string
}

func (w *world) userID(email string) string {
	w.t.Helper()
	u, err := w.db.UserByEmail(ctx, email)
	if err != nil {
		w.t.Fatal(err)
	}
	return u.ID
}

// A company always keeps an active owner, also when two owners step down
// at the same moment.
func TestLastOwner(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		ana := w.session("http", owner)
		anaID, brunoID := w.userID(owner), w.userID(admin)
		const last = `{"error":true,"type":"ConflictError","message":"A company always keeps at least one active owner: make another member owner first","field":"user_id"}`
		testkit.Fails(t, ana, "update_member", map[string]any{"tenant_id": technova, "user_id": anaID, "role": "admin"}, last)
		testkit.Fails(t, ana, "update_member", map[string]any{"tenant_id": technova, "user_id": anaID, "status": "inactive"}, last)
		testkit.Fails(t, ana, "remove_member", map[string]any{"tenant_id": technova, "user_id": anaID}, last)

		// Two owners demote themselves concurrently: one of them stays owner.
		testkit.OK[memberRec](t, ana, "update_member", map[string]any{"tenant_id": technova, "user_id": brunoID, "role": "owner"})
		bruno := w.session("http", admin)
		var wg sync.WaitGroup
		results := make([]error, 2)
		for i, c := range []struct {
			cs *mcp.ClientSession
			id string
		}{{ana, anaID}, {bruno, brunoID}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, results[i] = testkit.CallJSON[memberRec](c.cs, "update_member", map[string]any{"tenant_id": technova, "user_id": c.id, "role": "admin"})
			}()
		}
		wg.Wait()
		succeeded := 0
		for _, err := range results {
			if err == nil {
				succeeded++
			} else if err.Error() != last {
				t.Errorf("concurrent demotion: %v", err)
			}
		}
		owners := 0
		for _, id := range []string{anaID, brunoID} {
			m, _ := w.db.Membership(ctx, technova, id)
			if m.Role == vitrine.RoleOwner && m.Status == vitrine.MembershipActive {
				owners++
			}
		}
		if succeeded != 1 || owners != 1 {
			t.Errorf("%d demotions succeeded, %d owners remain", succeeded, owners)
		}
	})
}

// Nobody grants more than they hold, nor changes someone who holds more;
// only owners touch owners. Every attempt is a PermissionError, and is in
// the audit log.
func TestNoEscalation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		anaID, brunoID, carlaID, diegoID := w.userID(owner), w.userID(admin), w.userID(member), w.userID(viewer)
		bruno := w.session("http", admin)
		testkit.Fails(t, bruno, "add_member", map[string]any{"tenant_id": technova, "email": verde, "role": "owner"}, denied)
		testkit.Fails(t, bruno, "update_member", map[string]any{"tenant_id": technova, "user_id": carlaID, "role": "owner"}, denied)
		testkit.Fails(t, bruno, "update_member", map[string]any{"tenant_id": technova, "user_id": anaID, "status": "inactive"}, denied)
		testkit.Fails(t, bruno, "remove_member", map[string]any{"tenant_id": technova, "user_id": anaID}, denied)
		testkit.Fails(t, bruno, "grant_permission", map[string]any{"tenant_id": technova, "user_id": carlaID, "permission": "tenants:delete"}, denied)
		testkit.Fails(t, bruno, "create_role", map[string]any{"tenant_id": technova, "name": "closer", "permissions": []string{"tenants:delete"}}, denied)

		// A member granted members:manage manages only within what she holds.
		testkit.OK[memberRec](t, w.session("http", owner), "grant_permission", map[string]any{"tenant_id": technova, "user_id": carlaID, "permission": "members:manage"})
		carla := w.session("http", member)
		testkit.Fails(t, carla, "add_member", map[string]any{"tenant_id": technova, "email": verde, "role": "admin"}, denied)
		testkit.Fails(t, carla, "grant_permission", map[string]any{"tenant_id": technova, "user_id": diegoID, "permission": "products:delete"}, denied)
		testkit.Fails(t, carla, "update_member", map[string]any{"tenant_id": technova, "user_id": brunoID, "role": "viewer"}, denied)
		testkit.Fails(t, carla, "grant_permission", map[string]any{"tenant_id": technova, "user_id": carlaID, "permission": "audit:read"}, denied)
		m := testkit.OK[memberRec](t, carla, "add_member", map[string]any{"tenant_id": technova, "email": verde, "role": "viewer"})
		if m.Role != "viewer" || m.Status != "invited" {
			t.Errorf("carla invited %+v", m)
		}
		testkit.OK[memberRec](t, carla, "grant_permission", map[string]any{"tenant_id": technova, "user_id": diegoID, "permission": "products:update"})

		// Every attempt is in the audit log, as ana reads it.
		events := testkit.OK[struct {
			Events []struct {
				UserID   string `json:"user_id"`
				Tool     string
				TargetID string `json:"target_id"`
				Outcome  string
				TokenID  string `json:"token_id"`
			}
		}](t, w.session("http", owner), "list_audit_events", map[string]any{"tenant_id": technova, "outcome": "PermissionError", "limit": 100})
		byUser := map[string][]string{}
		for _, e := range events.Events {
			byUser[e.UserID] = append(byUser[e.UserID], e.Tool+"/"+e.TargetID)
			if e.TokenID == "" || e.Outcome != "PermissionError" {
				t.Errorf("event %+v", e)
			}
		}
		if len(byUser[brunoID]) != 6 || len(byUser[carlaID]) != 4 || !slices.Contains(byUser[brunoID], "remove_member/"+anaID) {
			t.Errorf("denials in the log: %v", byUser)
		}
	})
}

// Changes to memberships, grants and roles apply from the very next call,
// also on another server instance.
func TestAccessChangesApplyAtOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		carlaID, diegoID := w.userID(member), w.userID(viewer)
		dbB := dbtest.Open(t, url)
		svcB := service.New(dbB, nil)
		srvB, err := mcpserver.New(svcB, mcpserver.Options{Logger: slog.New(slog.NewTextHandler(w.log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		b := httptest.NewServer(serveHTTP(t, svcB, srvB, httpserver.Options{Logger: slog.New(slog.NewTextHandler(w.log, nil))}))
		defer b.Close()
		onB := func(email string) *mcp.ClientSession {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: b.URL + httpserver.MCPPath, HTTPClient: testkit.BearerClient(w.tokens[email]), MaxRetries: -1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			return cs
		}
		ana := w.session("http", owner) // instance A
		carla := onB(member)            // instance B
		list := map[string]any{"tenant_id": technova}
		testkit.OK[productList](t, carla, "list_products", list)

		testkit.OK[memberRec](t, ana, "update_member", map[string]any{"tenant_id": technova, "user_id": carlaID, "status": "inactive"})
		testkit.Fails(t, carla, "list_products", list, `{"error":true,"type":"Error","message":"Membership not found or inactive"}`)
		testkit.OK[memberRec](t, ana, "update_member", map[string]any{"tenant_id": technova, "user_id": carlaID, "status": "active"})
		testkit.OK[productList](t, carla, "list_products", list)

		// A grant, then its revocation.
		mouse := w.productID("technova", "MS-LOGI-MX3S")
		testkit.OK[memberRec](t, ana, "grant_permission", map[string]any{"tenant_id": technova, "user_id": carlaID, "permission": "products:delete"})
		keyboard := w.productID("technova", "KB-KEYC-K2")
		testkit.OK[map[string]any](t, carla, "delete_product", map[string]any{"tenant_id": technova, "id": keyboard})
		m := testkit.OK[memberRec](t, ana, "revoke_permission", map[string]any{"tenant_id": technova, "user_id": carlaID, "permission": "products:delete"})
		if slices.Contains(m.Permissions, "products:delete") {
			t.Errorf("after revoke: %v", m.Permissions)
		}
		testkit.Fails(t, carla, "delete_product", map[string]any{"tenant_id": technova, "id": mouse}, denied)
		testkit.Fails(t, ana, "revoke_permission", map[string]any{"tenant_id": technova, "user_id": carlaID, "permission": "products:read"},
			`{"error":true,"type":"ValidationError","message":"products:read comes with the role \"member\", not from a grant; give the member another role to take it away","field":"permission"}`)

		// A custom role, changed under its holder.
		testkit.OK[map[string]any](t, ana, "create_role", map[string]any{"tenant_id": technova, "name": "catalog-editor",
			"permissions": []string{"tenants:read", "products:read", "products:update"}, "description": "Edits products"})
		testkit.OK[memberRec](t, ana, "update_member", map[string]any{"tenant_id": technova, "user_id": diegoID, "role": "catalog-editor"})
		diego := onB(viewer)
		testkit.OK[product](t, diego, "update_product", map[string]any{"tenant_id": technova, "id": mouse, "stock": 41})
		testkit.OK[map[string]any](t, ana, "update_role", map[string]any{"tenant_id": technova, "name": "catalog-editor", "permissions": []string{"tenants:read", "products:read"}})
		testkit.Fails(t, diego, "update_product", map[string]any{"tenant_id": technova, "id": mouse, "stock": 42}, denied)
		testkit.Fails(t, ana, "delete_role", map[string]any{"tenant_id": technova, "name": "catalog-editor"},
			`{"error":true,"type":"ConflictError","message":"1 member(s) hold the role \"catalog-editor\"; give them another role first","field":"name"}`)
		testkit.OK[memberRec](t, ana, "update_member", map[string]any{"tenant_id": technova, "user_id": diegoID, "role": "viewer"})
		testkit.OK[map[string]any](t, ana, "delete_role", map[string]any{"tenant_id": technova, "name": "catalog-editor"})
		testkit.Fails(t, ana, "delete_role", map[string]any{"tenant_id": technova, "name": "catalog-editor"}, `{"error":true,"type":"NotFoundError","message":"Role not found"}`)
		testkit.Fails(t, ana, "update_role", map[string]any{"tenant_id": technova, "name": "admin", "permissions": []string{"tenants:read"}},
			`{"error":true,"type":"ValidationError","message":"\"admin\" is a built-in role and cannot be changed; create a custom role instead","field":"name"}`)
	})
}

// A revoked token is refused at once: over HTTP with 401, over stdio with
// an error, although the session was opened with it.
func TestRevokedTokenIsRefusedAtOnce(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	for _, tr := range transports {
		tok, secret, err := w.svc.Operator().CreateToken(ctx, accounts.NewToken{Email: member, Name: "soon revoked " + tr, Toolsets: []string{"all"}})
		if err != nil {
			t.Fatal(err)
		}
		cs := w.sessionWithToken(tr, secret)
		testkit.OK[map[string]any](t, cs, "whoami", nil)
		if _, err := w.svc.Operator().RevokeToken(ctx, tok.ID); err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
		switch tr {
		case "memory":
			if err != nil || !res.IsError || res.Content[0].(*mcp.TextContent).Text != `{"error":true,"type":"Error","message":"Not signed in: the token was revoked. Ask the user for a valid Vitrine token"}` {
				t.Errorf("stdio-like session after revocation: %v %+v", err, res)
			}
		default:
			if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
				t.Errorf("%s session after revocation: %v %+v", tr, err, res)
			}
		}
	}
}

// The server's own filters: toolsets, then read-only; within them, an
// owner whose token grants every toolset lists every tool left.
func TestServerToolFilters(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	for _, c := range []struct {
		opts   mcpserver.Options
		want   func(*mcpserver.Tool) bool
		hidden string
	}{
		{mcpserver.Options{Toolsets: []string{"products"}}, func(t *mcpserver.Tool) bool { return t.Toolset == "products" }, "list_members"},
		{mcpserver.Options{ReadOnly: true}, func(t *mcpserver.Tool) bool {
			return t.ReadOnly && t.Toolset != mcpserver.DiscoveryToolset
		}, "create_product"},
		{mcpserver.Options{Toolsets: []string{"members", "audit"}, ReadOnly: true}, func(t *mcpserver.Tool) bool {
			return t.ReadOnly && (t.Toolset == "members" || t.Toolset == "audit")
		}, "add_member"},
	} {
		c.opts.Token = w.tokens[owner]
		srv := w.server(c.opts)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for _, tool := range res.Tools {
			got = append(got, tool.Name)
		}
		for _, tool := range mcpserver.AllTools(w.svc, mcpserver.Options{}) {
			if c.want(tool) {
				want = append(want, tool.Name)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%+v lists %v, want %v", c.opts, got, want)
		}
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: c.hidden, Arguments: map[string]any{}})
		if err == nil || !strings.Contains(err.Error(), "Unknown tool: "+c.hidden) {
			t.Errorf("%+v: hidden %s answered %v", c.opts, c.hidden, err)
		}
		cs.Close()
		ss.Close()
	}
	if _, err := mcpserver.New(w.svc, mcpserver.Options{Toolsets: []string{"orders"}}); err == nil || !strings.Contains(err.Error(), `there is no toolset "orders"`) {
		t.Errorf("unknown toolset: %v", err)
	}
}

// Every tool call is in the audit log, with who, which token, on what and
// how it ended; calls outside any company are the operator's to read. The
// log cannot be changed.
func TestAuditLog(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		carla := w.session("http", member)
		p := testkit.OK[product](t, carla, "create_product", map[string]any{"tenant_id": technova, "sku": "AU-1", "name": "Audited", "price": "1"})
		testkit.ErrorOf(t, carla, "create_product", map[string]any{"tenant_id": technova, "sku": "AU-1", "name": "Again", "price": "1"})
		testkit.ErrorOf(t, carla, "delete_product", map[string]any{"tenant_id": technova, "id": p.ID})
		testkit.ErrorOf(t, carla, "get_product", map[string]any{"tenant_id": technova, "id": "id-invalido"})
		testkit.ErrorOf(t, carla, "list_products", map[string]any{"tenant_id": technova, "limit": 0})
		testkit.OK[map[string]any](t, carla, "get_product", map[string]any{"tenant_id": technova, "sku": "AU-1"})
		testkit.ErrorOf(t, carla, "list_products", map[string]any{"tenant_id": "tenant-sem-acesso"})
		testkit.OK[map[string]any](t, carla, "whoami", nil)

		type event struct {
			UserID, Tool, Outcome string
			TargetID              string `json:"target_id"`
			TokenID               string `json:"token_id"`
			TenantID              string `json:"tenant_id"`
			RequestID             string `json:"request_id"`
			Actor                 string
			UserEmail             string `json:"user_email"`
		}
		log := testkit.OK[struct{ Events []event }](t, w.session("http", owner), "list_audit_events",
			map[string]any{"tenant_id": technova, "user_id": w.userID(member)}).Events
		var got []string
		for _, e := range log {
			got = append(got, fmt.Sprintf("%s %s %s", e.Tool, e.Outcome, e.TargetID))
			// Issue 45: the user named by email beside the id, the actor
			// explicit.
			if e.TenantID != technova || e.TokenID == "" || e.RequestID == "" || e.Actor != "user" || e.UserEmail != member {
				t.Errorf("event %+v", e)
			}
		}
		want := []string{ // newest first
			"get_product ok " + p.ID,
			"list_products ValidationError ",
			"get_product NotFoundError id-invalido",
			"delete_product PermissionError " + p.ID,
			"create_product ConflictError ",
			"create_product ok " + p.ID,
		}
		if !slices.Equal(got, want) {
			t.Errorf("carla's events in technova:\n got %q\nwant %q", got, want)
		}
		outside, err := w.svc.Operator().ListAudit(ctx, nil, service.AuditQuery{UserID: w.userID(member)})
		if err != nil || len(outside.Events) != 2 || outside.Events[0].Tool != "whoami" || outside.Events[1].TargetID != "tenant-sem-acesso" {
			t.Errorf("events outside any company: %+v %v", outside, err)
		}
		// Filters and paging.
		page := testkit.OK[struct {
			Events     []event
			NextCursor string `json:"next_cursor"`
		}](t, w.session("http", owner), "list_audit_events", map[string]any{"tenant_id": technova, "tool": "create_product", "limit": 1})
		if len(page.Events) != 1 || page.Events[0].Outcome != "ConflictError" || page.NextCursor == "" {
			t.Errorf("first page: %+v", page)
		}
		testkit.Fails(t, w.session("http", owner), "list_audit_events", map[string]any{"tenant_id": technova, "since": "yesterday"},
			`{"error":true,"type":"ValidationError","message":"since must be a time in RFC 3339, such as \"2026-11-30T09:00:00Z\"; got \"yesterday\"","field":"since"}`)
		testkit.Fails(t, carla, "list_audit_events", map[string]any{"tenant_id": technova}, denied)

		// Append-only, even for the database's administrator.
		for _, stmt := range []string{`UPDATE audit_events SET outcome = 'ok'`, `DELETE FROM audit_events`} {
			if err := dbtest.TryExec(url, stmt); err == nil || !strings.Contains(err.Error(), "append-only") {
				t.Errorf("%s: %v", stmt, err)
			}
		}
	})
}
