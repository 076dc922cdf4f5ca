package vitrine

import (
	"math/bits"
	"strings"
)

// Permission is a "resource:action" right that a membership may hold in a tenant.
type Permission string

// The permission catalog.
const (
	TenantsRead    Permission = "tenants:read"
	TenantsUpdate  Permission = "tenants:update"
	TenantsDelete  Permission = "tenants:delete"
	ProductsRead   Permission = "products:read"
	ProductsCreate Permission = "products:create"
	ProductsUpdate Permission = "products:update"
	ProductsDelete Permission = "products:delete"
	MembersRead    Permission = "members:read"
	MembersManage  Permission = "members:manage"
	RolesRead      Permission = "roles:read"
	RolesManage    Permission = "roles:manage"
	AuditRead      Permission = "audit:read"
	CatalogManage  Permission = "catalog:manage"
	ShopManage     Permission = "shop:manage"
)

// PermissionInfo describes a permission for people and models.
type PermissionInfo struct {
	Name        Permission
	Description string
}

// Permissions is the catalog, in a stable order (the order of bits in a
// PermissionSet).
var Permissions = []PermissionInfo{
	{TenantsRead, "See the company: its name, slug and your own role in it."},
	{TenantsUpdate, "Rename the company or change its settings."},
	{TenantsDelete, "Delete the company and everything in it, or take all of it out (export_tenant)."},
	{ProductsRead, "List, search and read products."},
	{ProductsCreate, "Create products, one at a time or by import."},
	{ProductsUpdate, "Change products: fields, price, status and stock."},
	{ProductsDelete, "Delete products for good."},
	{MembersRead, "See who belongs to the company and their roles."},
	{MembersManage, "Add, change, deactivate and remove members; grant and revoke permissions."},
	{RolesRead, "See the roles and the permissions each holds."},
	{RolesManage, "Create, change and delete custom roles."},
	{AuditRead, "Read the audit log of every action taken in the company."},
	// Last: a set's bits are stored, and those before keep their place.
	{CatalogManage, "Define the company's categories and product attributes."},
	{ShopManage, "Open and close the company's shop window and set what it publishes."},
}

// PermissionSet is a set of permissions, one bit per catalog entry.
type PermissionSet uint32

// AllPermissions holds every permission in the catalog.
var AllPermissions = PermissionSet(1)<<len(Permissions) - 1

func permissionBit(p Permission) PermissionSet {
	for i, info := range Permissions {
		if info.Name == p {
			return 1 << i
		}
	}
	return 0
}

// KnownPermission reports whether p is in the catalog.
func KnownPermission(p Permission) bool { return permissionBit(p) != 0 }

// NewPermissionSet returns the set of the given permissions; unknown ones are
// ignored.
func NewPermissionSet(ps ...Permission) PermissionSet {
	var s PermissionSet
	for _, p := range ps {
		s |= permissionBit(p)
	}
	return s
}

// Has reports whether the set holds p.
func (s PermissionSet) Has(p Permission) bool {
	b := permissionBit(p)
	return b != 0 && s&b == b
}

// Covers reports whether s holds every permission of other.
func (s PermissionSet) Covers(other PermissionSet) bool { return other&^s == 0 }

// Len returns the number of permissions in the set.
func (s PermissionSet) Len() int { return bits.OnesCount32(uint32(s)) }

// List returns the permissions in catalog order.
func (s PermissionSet) List() []Permission {
	out := make([]Permission, 0, s.Len())
	for i, info := range Permissions {
		if s&(1<<i) != 0 {
			out = append(out, info.Name)
		}
	}
	return out
}

// Strings returns the permissions as strings, in catalog order; never nil.
func (s PermissionSet) Strings() []string {
	out := make([]string, 0, s.Len())
	for _, p := range s.List() {
		out = append(out, string(p))
	}
	return out
}

// String encodes the set as stores keep it: names separated by spaces.
func (s PermissionSet) String() string { return strings.Join(s.Strings(), " ") }

// ParsePermissionSet decodes String's form. Unknown names are dropped, so a
// permission retired from the catalog stops granting anything.
func ParsePermissionSet(text string) PermissionSet {
	var s PermissionSet
	for _, name := range strings.Fields(text) {
		s |= permissionBit(Permission(name))
	}
	return s
}

// ReadPermissions are the permissions that change nothing: all a read-only
// token can use.
var ReadPermissions = NewPermissionSet(TenantsRead, ProductsRead, MembersRead, RolesRead, AuditRead)

// ReadOnly reports whether p only reads.
func (p Permission) ReadOnly() bool { return ReadPermissions.Has(p) }
