package vitrine

import "time"

// Names of the built-in roles.
const (
	RoleOwner  = "owner"
	RoleAdmin  = "admin"
	RoleMember = "member"
	RoleViewer = "viewer"
)

// Role is a named set of permissions. Built-in roles exist in every tenant;
// custom roles belong to one.
type Role struct {
	TenantID    string // empty for a built-in role
	Name        string
	Description string
	Permissions PermissionSet
	Builtin     bool
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// BuiltinRoles are the roles every tenant has, from the most to the least
// powerful.
var BuiltinRoles = []Role{
	{Name: RoleOwner, Builtin: true, Permissions: AllPermissions,
		Description: "Runs the company: every permission, including deleting it."},
	{Name: RoleAdmin, Builtin: true, Permissions: AllPermissions &^ NewPermissionSet(TenantsDelete),
		Description: "Runs the catalog and the team: every permission but deleting the company."},
	{Name: RoleMember, Builtin: true, Permissions: NewPermissionSet(TenantsRead, ProductsRead, ProductsCreate, ProductsUpdate, MembersRead, RolesRead),
		Description: "Works on the catalog: reads, creates and changes products; sees the team and roles."},
	{Name: RoleViewer, Builtin: true, Permissions: NewPermissionSet(TenantsRead, ProductsRead),
		Description: "Reads the company and its products."},
}

// BuiltinRole returns the built-in role with that name.
func BuiltinRole(name string) (Role, bool) {
	for _, r := range BuiltinRoles {
		if r.Name == name {
			return r, true
		}
	}
	return Role{}, false
}
