package shapes

import (
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

type RoleOut struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Permissions []string `json:"permissions"`
	Builtin     bool     `json:"builtin"`
}

func RoleView(r *vitrine.Role) RoleOut {
	return RoleOut{Name: r.Name, Description: r.Description, Permissions: r.Permissions.Strings(), Builtin: r.Builtin}
}

type PermissionOut struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	ReadOnly    bool   `json:"read_only"`
}

type ListPermissionsOut struct {
	Permissions []PermissionOut `json:"permissions"`
	NextCursor  string          `json:"next_cursor"`
}

type ListRolesIn struct {
	TenantArg
}

type ListRolesOut struct {
	Roles      []RoleOut `json:"roles"`
	NextCursor string    `json:"next_cursor"`
}

type RoleIn struct {
	TenantArg
	Name        roleName         `json:"name" jsonschema:"Lowercase letters, digits, - or _; not a built-in name."`
	Permissions []permissionName `json:"permissions" jsonschema:"All the role holds."`
	Description *roleText        `json:"description,omitempty"`
}

type RoleRefIn struct {
	TenantArg
	Name roleName `json:"name" jsonschema:"A custom role."`
}

type DeleteRoleOut struct {
	Name    string `json:"name"`
	Deleted bool   `json:"deleted"`
}

func (in RoleIn) Input() service.RoleInput {
	ps := make([]string, len(in.Permissions))
	for i, p := range in.Permissions {
		ps[i] = string(p)
	}
	return service.RoleInput{Name: string(in.Name), Permissions: ps, Description: (*string)(in.Description)}
}
