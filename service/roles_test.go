package service_test

import (
	"testing"

	"github.com/vitrine/vitrine"
)

// Nobody makes a role that holds more than they hold: not by creating it,
// not by widening it, and not by narrowing a role that already holds more.
func TestRolesWithinWhatTheCallerHolds(t *testing.T) {
	const rule = "nobody gives a role that holds more than they hold"
	create := func(by string, ps ...vitrine.Permission) func(*team) error {
		return func(tm *team) error { return tm.createRole(by, "new-role", ps...) }
	}
	update := func(by, name string, ps ...vitrine.Permission) func(*team) error {
		return func(tm *team) error { return tm.updateRole(by, name, ps...) }
	}
	runTeamCases(t, []teamCase{
		{rule: rule, name: "create_role: an admin with tenants:delete", act: create("adam", vitrine.TenantsRead, vitrine.TenantsDelete), want: denied},
		{rule: rule, name: "create_role: an admin with products:delete", act: create("adam", vitrine.ProductsRead, vitrine.ProductsDelete), want: allowed},
		{rule: rule, name: "create_role: a roles manager with products:create", act: create("rhea", vitrine.ProductsRead, vitrine.ProductsCreate), want: denied},
		{rule: rule, name: "create_role: a roles manager with members:manage", act: create("rhea", vitrine.MembersManage), want: denied},
		{rule: rule, name: "create_role: a roles manager with what she holds", act: create("rhea", vitrine.ProductsRead, vitrine.RolesManage), want: allowed},
		{rule: rule, name: "create_role: an owner with every permission", act: create("olga", vitrine.AllPermissions.List()...), want: allowed},

		{rule: rule, name: "update_role: an admin widens a role to tenants:delete", act: update("adam", "ops", vitrine.TenantsRead, vitrine.TenantsDelete), want: denied},
		{rule: rule, name: "update_role: an admin narrows a role holding tenants:delete", act: update("adam", "destroyer", vitrine.TenantsRead), want: denied},
		{rule: rule, name: "update_role: an admin widens a role to products:delete", act: update("adam", "ops", vitrine.ProductsRead, vitrine.ProductsDelete), want: allowed},
		{rule: rule, name: "update_role: a roles manager widens her own role to members:manage", act: update("rhea", "roler", vitrine.RolesManage, vitrine.MembersManage), want: denied},
		{rule: rule, name: "update_role: an owner narrows a role holding tenants:delete", act: update("olga", "destroyer", vitrine.TenantsRead), want: allowed},

		{rule: rule, name: "delete_role: an admin deletes a role holding tenants:delete", act: func(tm *team) error { return tm.deleteRole("adam", "destroyer") }, want: denied},
		{rule: rule, name: "delete_role: an admin deletes a role within his own", want: allowed,
			setup: func(tm *team) { tm.must(tm.createRole("olga", "spare", vitrine.ProductsRead)) },
			act:   func(tm *team) error { return tm.deleteRole("adam", "spare") }},
	})
}

// Changing or deleting a custom role changes whoever holds it, so it is
// refused when one of its holders is beyond the caller's reach (issue 14,
// finding 4), whatever the holder's status.
func TestRoleEditsReachOnlyManageableHolders(t *testing.T) {
	const rule = "update_role and delete_role are refused when a holder is beyond the caller's reach"
	// oscar holds ops (tenants:read, products:read), within an admin's reach
	// until he is granted tenants:delete.
	beyondReach := func(tm *team) { tm.must(tm.grant("olga", "oscar", vitrine.TenantsDelete)) }
	inactiveBeyondReach := func(tm *team) {
		beyondReach(tm)
		tm.must(tm.updateMember("olga", "oscar", deactivate))
	}
	narrowOps := func(by string) func(*team) error {
		return func(tm *team) error { return tm.updateRole(by, "ops", vitrine.ProductsRead) }
	}
	deleteOps := func(by string) func(*team) error {
		return func(tm *team) error { return tm.deleteRole(by, "ops") }
	}
	runTeamCases(t, []teamCase{
		{rule: rule, name: "an admin changes a role whose holder has tenants:delete", setup: beyondReach, act: narrowOps("adam"), want: denied},
		{rule: rule, name: "an admin deletes a role whose holder has tenants:delete", setup: beyondReach, act: deleteOps("adam"), want: denied},
		{rule: rule, name: "an admin changes a role whose inactive holder has tenants:delete", setup: inactiveBeyondReach, act: narrowOps("adam"), want: denied},
		{rule: rule, name: "a roles manager changes a role whose holder manages members", setup: func(tm *team) { tm.must(tm.grant("olga", "oscar", vitrine.MembersManage)) },
			act: narrowOps("rhea"), want: denied},
		{rule: rule + " (within reach)", name: "an admin changes a role whose holders are within reach", act: narrowOps("adam"), want: allowed},
		{rule: rule + " (within reach)", name: "a roles manager changes a role whose holders are within reach", act: narrowOps("rhea"), want: allowed},
		{rule: rule + " (within reach)", name: "an owner changes a role whose holder has tenants:delete", setup: beyondReach, act: narrowOps("olga"), want: allowed},
		// Within reach, a role still held is not deleted: the holders need
		// another role first.
		{rule: "a role still held is not deleted", name: "an owner deletes a role with a holder", setup: beyondReach, act: deleteOps("olga"),
			want: outcome{typ: vitrine.ConflictError}},
	})
}
