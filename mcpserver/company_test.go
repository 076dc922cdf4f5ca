package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
)

// delete_tenant: the owner alone schedules it; the company's window and
// its members' calls close at once, with a ConflictError that says when it
// goes and how to undo it; list_tenants shows the date; restore_tenant
// brings it back whole.
func TestDeleteAndRestoreTenantTools(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		args := map[string]any{"tenant_id": technova}
		if e := testkit.ErrorOf(t, w.session("memory", admin), "delete_tenant", args); e["type"] != "PermissionError" {
			t.Errorf("an admin deletes the company: %v", e)
		}
		own := w.session("memory", owner)
		text, isErr := testkit.Call(t, own, "delete_tenant", args)
		var out struct {
			ID        string `json:"id"`
			DeletesAt string `json:"deletes_at"`
		}
		if isErr || json.Unmarshal([]byte(text), &out) != nil || out.ID != technova || out.DeletesAt == "" {
			t.Fatalf("delete_tenant: %s", text)
		}
		for _, who := range []string{owner, member} {
			e := testkit.ErrorOf(t, w.session("memory", who), "list_products", args)
			if msg, _ := e["message"].(string); e["type"] != "ConflictError" || !strings.Contains(msg, out.DeletesAt[:19]) || !strings.Contains(msg, "restore_tenant") {
				t.Errorf("%s lists the products of the scheduled company: %v", who, e)
			}
		}
		listed, _ := testkit.Call(t, w.session("memory", member), "list_tenants", nil)
		if !strings.Contains(listed, `"deletes_at":"`+out.DeletesAt) {
			t.Errorf("list_tenants: %s", listed)
		}
		if _, _, err := w.db.OpenShopBySlug(ctx, "technova"); vitrine.TypeOf(err) != vitrine.NotFoundError {
			t.Errorf("the scheduled company's window: %v", err)
		}
		if e := testkit.ErrorOf(t, w.session("memory", member), "restore_tenant", args); e["type"] != "PermissionError" {
			t.Errorf("a member restores the company: %v", e)
		}
		if text, isErr := testkit.Call(t, own, "restore_tenant", args); isErr || strings.Contains(text, "deletes_at") {
			t.Fatalf("restore_tenant: %s", text)
		}
		if text, isErr := testkit.Call(t, w.session("memory", member), "get_product", map[string]any{"tenant_id": technova, "sku": "MS-LOGI-MX3S"}); isErr {
			t.Errorf("after the restore: %s", text)
		}
		if _, _, err := w.db.OpenShopBySlug(ctx, "technova"); err != nil {
			t.Errorf("the restored company's window: %v", err)
		}
	})
}

// delete_tenant asks the owner to confirm whenever the client can ask: a
// declined question deletes nothing, an answer sent unasked counts for
// nothing.
func TestDeleteTenantConfirmation(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	technova := w.tenants["technova"]
	srv := w.server(mcpserver.Options{Token: w.tokens[owner]})
	var asked []string
	answer := "decline"
	cs := confirmClient(t, srv, "2026-07-28", func(ctx context.Context) (*mcp.ElicitResult, error) {
		asked = append(asked, answer)
		if answer == "accept" {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		}
		return &mcp.ElicitResult{Action: answer}, nil
	})
	accept := mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_tenant", Arguments: map[string]any{"tenant_id": technova}, InputResponses: accept})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "declined") {
		t.Fatalf("declined: %v %+v", err, res)
	}
	if tn, _ := w.db.TenantByID(ctx, technova); !tn.DeletesAt.IsZero() {
		t.Fatal("scheduled without the user's yes")
	}
	answer = "accept"
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_tenant", Arguments: map[string]any{"tenant_id": technova}})
	if err != nil || res.IsError {
		t.Fatalf("accepted: %v %+v", err, res)
	}
	if tn, _ := w.db.TenantByID(ctx, technova); tn.DeletesAt.IsZero() || len(asked) != 2 {
		t.Errorf("accepted, asked %v: deletes at %v", asked, tn.DeletesAt)
	}
}
