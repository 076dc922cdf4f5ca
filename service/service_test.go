package service_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

// specRoles is the SPEC's table of built-in roles (§2), written out here
// rather than read from the code it checks.
var specRoles = map[string][]vitrine.Permission{
	vitrine.RoleOwner: {vitrine.TenantsRead, vitrine.TenantsUpdate, vitrine.TenantsDelete, vitrine.ProductsRead, vitrine.ProductsCreate,
		vitrine.ProductsUpdate, vitrine.ProductsDelete, vitrine.MembersRead, vitrine.MembersManage, vitrine.RolesRead, vitrine.RolesManage, vitrine.AuditRead},
	vitrine.RoleAdmin: {vitrine.TenantsRead, vitrine.TenantsUpdate, vitrine.ProductsRead, vitrine.ProductsCreate,
		vitrine.ProductsUpdate, vitrine.ProductsDelete, vitrine.MembersRead, vitrine.MembersManage, vitrine.RolesRead, vitrine.RolesManage, vitrine.AuditRead},
	vitrine.RoleMember: {vitrine.TenantsRead, vitrine.ProductsRead, vitrine.ProductsCreate, vitrine.ProductsUpdate, vitrine.MembersRead, vitrine.RolesRead},
	vitrine.RoleViewer: {vitrine.TenantsRead, vitrine.ProductsRead},
}

// specPermissions is the SPEC's catalog (§2).
var specPermissions = []vitrine.Permission{"tenants:read", "tenants:update", "tenants:delete", "products:read", "products:create",
	"products:update", "products:delete", "members:read", "members:manage", "roles:read", "roles:manage", "audit:read"}

// specReads are the permissions that only read: all a read-only token
// may use (SPEC §5).
var specReads = []vitrine.Permission{"tenants:read", "products:read", "members:read", "roles:read", "audit:read"}

// Require allows each built-in role exactly the permissions the SPEC gives
// it, and a read-only token only those of them that read.
func TestRequireByBuiltinRole(t *testing.T) {
	holders := map[string]string{vitrine.RoleOwner: "olga", vitrine.RoleAdmin: "adam", vitrine.RoleMember: "mia", vitrine.RoleViewer: "vic"}
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		tm := w.newTeam(t)
		cases := 0
		for _, role := range []string{vitrine.RoleOwner, vitrine.RoleAdmin, vitrine.RoleMember, vitrine.RoleViewer} {
			for _, readOnly := range []bool{false, true} {
				a := tm.as(holders[role])
				a.Caller.Token.ReadOnly = readOnly
				if a.Membership.Role != role {
					t.Fatalf("%s holds %q, want %q", holders[role], a.Membership.Role, role)
				}
				for _, p := range specPermissions {
					cases++
					want := slices.Contains(specRoles[role], p) && (!readOnly || slices.Contains(specReads, p))
					err := a.Require(p)
					switch {
					case want && err != nil:
						t.Errorf("%s (read-only token: %v) Require(%s) = %v, want nil", role, readOnly, p, err)
					case !want && !errors.Is(err, vitrine.ErrPermissionDenied):
						t.Errorf("%s (read-only token: %v) Require(%s) = %v, want %s", role, readOnly, p, err, denied)
					}
				}
			}
		}
		if cases != 96 {
			t.Errorf("%d cases, want 4 roles x 2 kinds of token x 12 permissions", cases)
		}
	})
}

// An inactive membership opens nothing: the answer is "Membership not found
// or inactive", the same as for a tenant the caller never joined, one that
// does not exist, or an id that is not one.
func TestNoActiveMembership(t *testing.T) {
	const rule = "no active membership: the same error whether or not the tenant exists"
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		for _, c := range []struct {
			name   string
			setup  func(tm *team)
			who    string
			tenant func(tm *team) string
			want   outcome
		}{
			{name: "an inactive member", who: "mia", want: noMembership,
				setup: func(tm *team) { tm.must(tm.updateMember("adam", "mia", deactivate)) }},
			{name: "an inactive owner", who: "owen", want: noMembership,
				setup: func(tm *team) { tm.add("owen", vitrine.RoleOwner, "inactive") }},
			{name: "an inactive member holding a grant", who: "dora", want: noMembership,
				setup: func(tm *team) { tm.must(tm.updateMember("olga", "dora", deactivate)) }},
			{name: "an invited user", who: "nina", want: noMembership,
				setup: func(tm *team) { tm.must(second(tm.invite("olga", email("nina"), vitrine.RoleAdmin))) }},
			{name: "a removed member", who: "mia", want: noMembership,
				setup: func(tm *team) { tm.must(tm.remove("adam", "mia")) }},
			{name: "a user who never joined", who: "nina", want: noMembership},
			{name: "an inactive member, for a tenant that does not exist", who: "mia", want: noMembership,
				setup:  func(tm *team) { tm.must(tm.updateMember("adam", "mia", deactivate)) },
				tenant: func(*team) string { return vitrine.NewID() }},
			{name: "a member, for a tenant that does not exist", who: "mia", want: noMembership,
				tenant: func(*team) string { return vitrine.NewID() }},
			{name: "a member, for a malformed tenant id", who: "mia", want: noMembership,
				tenant: func(*team) string { return "id-invalido" }},
			{name: "a member, for another company's id", who: "mia", want: noMembership,
				tenant: func(tm *team) string {
					tn, err := tm.svc.Operator().CreateTenant(ctx, "Elsewhere", "", email("owen"))
					tm.must(err)
					return tn.ID
				}},
			{name: "a member reactivated", who: "mia", want: allowed,
				setup: func(tm *team) {
					tm.must(tm.updateMember("adam", "mia", deactivate))
					tm.must(tm.updateMember("adam", "mia", reactivate))
				}},
		} {
			t.Run(c.name, func(t *testing.T) {
				tm := w.newTeam(t)
				if c.setup != nil {
					c.setup(tm)
				}
				tenantID := tm.id
				if c.tenant != nil {
					tenantID = c.tenant(tm)
				}
				a, err := w.svc.Access(ctx, callerOf(t, w.svc, email(c.who)), tenantID)
				c.want.check(t, rule, err)
				if err != nil && (a != nil || !errors.Is(err, vitrine.ErrNoMembership)) {
					t.Errorf("%s: got %v and %v, want no access and vitrine.ErrNoMembership", rule, a, err)
				}
			})
		}
	})
}
