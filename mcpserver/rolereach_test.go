package mcpserver_test

import (
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// Changing or deleting a custom role changes whoever holds it: an admin
// who may not change a member holding more than they do (here, a grant of
// tenants:delete) may not change that member's role either.
func TestRoleEditsReachOnlyManageableHolders(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		ana, bruno := w.session("memory", owner), w.session("memory", admin)
		diegoID := w.userID(viewer)
		testkit.OK[map[string]any](t, ana, "create_role", map[string]any{"tenant_id": technova, "name": "ops", "permissions": []string{"tenants:read", "products:read"}})
		testkit.OK[memberRec](t, ana, "update_member", map[string]any{"tenant_id": technova, "user_id": diegoID, "role": "ops"})
		// While diego holds nothing beyond bruno, bruno may change the role.
		testkit.OK[map[string]any](t, bruno, "update_role", map[string]any{"tenant_id": technova, "name": "ops", "permissions": []string{"tenants:read"}})
		testkit.OK[memberRec](t, ana, "grant_permission", map[string]any{"tenant_id": technova, "user_id": diegoID, "permission": "tenants:delete"})
		testkit.Fails(t, bruno, "update_member", map[string]any{"tenant_id": technova, "user_id": diegoID, "role": "viewer"}, denied)
		testkit.Fails(t, bruno, "update_role", map[string]any{"tenant_id": technova, "name": "ops", "permissions": []string{"products:read"}}, denied)
		testkit.Fails(t, bruno, "delete_role", map[string]any{"tenant_id": technova, "name": "ops"}, denied)
		// The owner may.
		testkit.OK[map[string]any](t, ana, "update_role", map[string]any{"tenant_id": technova, "name": "ops", "permissions": []string{"products:read"}})
	})
}
