package mcpserver_test

import (
	"slices"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
)

// allowed is the permission matrix as SPEC section 2 and 3 state it: for
// every tool, the roles that may call it. "custom" is a custom role holding
// tenants:read, products:read, products:update and audit:read.
var allowed = map[string][]string{
	"whoami":               {"owner", "admin", "member", "viewer", "custom"},
	"list_tenants":         {"owner", "admin", "member", "viewer", "custom"},
	"create_tenant":        {"owner", "admin", "member", "viewer", "custom"},
	"get_tenant":           {"owner", "admin", "member", "viewer", "custom"},
	"list_invitations":     {"owner", "admin", "member", "viewer", "custom"},
	"accept_invitation":    {"owner", "admin", "member", "viewer", "custom"},
	"decline_invitation":   {"owner", "admin", "member", "viewer", "custom"},
	"update_tenant":        {"owner", "admin"},
	"list_products":        {"owner", "admin", "member", "viewer", "custom"},
	"get_product":          {"owner", "admin", "member", "viewer", "custom"},
	"create_product":       {"owner", "admin", "member"},
	"update_product":       {"owner", "admin", "member", "custom"},
	"delete_product":       {"owner", "admin"},
	"adjust_stock":         {"owner", "admin", "member", "custom"},
	"list_stock_movements": {"owner", "admin", "member", "viewer", "custom"},
	"import_products":      {"owner", "admin", "member"},
	"export_products":      {"owner", "admin", "member", "viewer", "custom"},
	"export_tenant":        {"owner"},
	"list_members":         {"owner", "admin", "member"},
	"add_member":           {"owner", "admin"},
	"update_member":        {"owner", "admin"},
	"remove_member":        {"owner", "admin"},
	"grant_permission":     {"owner", "admin"},
	"revoke_permission":    {"owner", "admin"},
	"list_permissions":     {"owner", "admin", "member"},
	"list_roles":           {"owner", "admin", "member"},
	"create_role":          {"owner", "admin"},
	"update_role":          {"owner", "admin"},
	"delete_role":          {"owner", "admin"},
	"list_audit_events":    {"owner", "admin", "custom"},
	"request_toolset":      {"owner", "admin", "member", "viewer", "custom"},
	"add_variant":          {"owner", "admin", "member", "custom"},
	"update_variant":       {"owner", "admin", "member", "custom"},
	"delete_variant":       {"owner", "admin", "member", "custom"},
	"list_categories":      {"owner", "admin", "member", "viewer", "custom"},
	"list_attributes":      {"owner", "admin", "member", "viewer", "custom"},
	"save_category":        {"owner", "admin"},
	"delete_category":      {"owner", "admin"},
	"save_attribute":       {"owner", "admin"},
	"delete_attribute":     {"owner", "admin"},
	"list_synonyms":        {"owner", "admin", "member", "viewer", "custom"},
	"save_synonyms":        {"owner", "admin"},
	"delete_synonyms":      {"owner", "admin"},
	"get_shop":             {"owner", "admin", "member", "viewer", "custom"},
	"update_shop":          {"owner", "admin"},
	"check_shop":           {"owner", "admin", "member", "viewer", "custom"},
	"get_translations":     {"owner", "admin", "member", "viewer", "custom"},
	"translate_product":    {"owner", "admin", "member", "custom"},
	"translate_category":   {"owner", "admin"},
	"save_market":          {"owner", "admin"},
	"list_markets":         {"owner", "admin"},
	"delete_market":        {"owner", "admin"},
	"set_market_prices":    {"owner", "admin"},
	// The owner's call schedules the company's deletion, and the next
	// brings it back.
	"delete_tenant":       {"owner"},
	"restore_tenant":      {"owner"},
	"import_translations": {"owner", "admin", "member", "custom"},
}

// Every tool × every built-in role and a custom role: allowed, or the exact
// PermissionError. The permission is checked before the arguments, so a
// call with nothing but tenant_id tells which.
func TestPermissionMatrix(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	technova := w.tenants["technova"]
	ana := w.session("memory", owner)
	testkit.OK[map[string]any](t, ana, "create_role", map[string]any{"tenant_id": technova, "name": "custom",
		"permissions": []string{"tenants:read", "products:read", "products:update", "audit:read"}})
	const fabio = "fabio@technova.example"
	op := w.svc.Operator()
	if _, err := op.CreateUser(ctx, fabio, "Fábio"); err != nil {
		t.Fatal(err)
	}
	testkit.OK[memberRec](t, ana, "add_member", map[string]any{"tenant_id": technova, "email": fabio, "role": "custom"})
	_, secret, err := op.CreateToken(ctx, accounts.NewToken{Email: fabio, Name: "matrix", Toolsets: []string{"all"}})
	if err != nil {
		t.Fatal(err)
	}
	w.tokens[fabio] = secret
	testkit.OK[map[string]any](t, w.session("memory", fabio), "accept_invitation", map[string]any{"tenant_id": technova})

	roles := map[string]string{"owner": owner, "admin": admin, "member": member, "viewer": viewer, "custom": fabio}
	tools := mcpserver.AllTools(w.svc, mcpserver.Options{})
	if len(tools) != len(allowed) {
		t.Errorf("%d tools, %d in the matrix: every tool needs its row", len(tools), len(allowed))
	}
	for role, email := range roles {
		cs := w.session("memory", email)
		for _, tool := range tools {
			want, known := allowed[tool.Name]
			if !known {
				t.Errorf("%s is not in the matrix", tool.Name)
				continue
			}
			args := map[string]any{"tenant_id": technova}
			if tool.Permission() == "" {
				args = map[string]any{"bogus": true} // caller tools: a ValidationError, never a PermissionError
			}
			text, _ := testkit.Call(t, cs, tool.Name, args)
			if slices.Contains(want, role) == (text == denied) {
				t.Errorf("%s calling %s: %s", role, tool.Name, text)
			}
		}
	}
}

// A tool's permission is its operation's, declared once in the service;
// each tool does the operation of its own name, so no tool borrows
// another's permission.
func TestToolsDoTheirOwnOperation(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	ops := map[service.Operation]bool{}
	for _, tool := range mcpserver.AllTools(w.svc, mcpserver.Options{}) {
		if tool.Op != "" && string(tool.Op) != tool.Name {
			t.Errorf("%s does the operation %s", tool.Name, tool.Op)
		}
		ops[tool.Op] = true
	}
	for _, op := range service.Operations() {
		if !ops[op] && op != service.OpUpsertProducts {
			t.Errorf("no tool does %s", op)
		}
	}
}
