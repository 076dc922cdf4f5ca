package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

type roleOut struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Permissions []string `json:"permissions"`
	Builtin     bool     `json:"builtin"`
}

func roleView(r *vitrine.Role) roleOut {
	return roleOut{Name: r.Name, Description: r.Description, Permissions: r.Permissions.Strings(), Builtin: r.Builtin}
}

type permissionOut struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	ReadOnly    bool   `json:"read_only"`
}

type listPermissionsOut struct {
	Permissions []permissionOut `json:"permissions"`
	NextCursor  string          `json:"next_cursor"`
}

type listRolesIn struct {
	TenantArg
}

type listRolesOut struct {
	Roles      []roleOut `json:"roles"`
	NextCursor string    `json:"next_cursor"`
}

type roleIn struct {
	TenantArg
	Name        roleName         `json:"name" jsonschema:"Lowercase letters, digits, - or _; not a built-in name."`
	Permissions []permissionName `json:"permissions" jsonschema:"All the role holds."`
	Description *roleText        `json:"description,omitempty"`
}

type roleRefIn struct {
	TenantArg
	Name roleName `json:"name" jsonschema:"A custom role."`
}

type deleteRoleOut struct {
	Name    string `json:"name"`
	Deleted bool   `json:"deleted"`
}

func (in roleIn) input() service.RoleInput {
	ps := make([]string, len(in.Permissions))
	for i, p := range in.Permissions {
		ps[i] = string(p)
	}
	return service.RoleInput{Name: string(in.Name), Permissions: ps, Description: (*string)(in.Description)}
}

func roleTools() []*Tool {
	role := func(r *vitrine.Role, err error) (roleOut, error) {
		if err != nil {
			return roleOut{}, err
		}
		return roleView(r), nil
	}
	return []*Tool{
		tenantTool(Tool{
			Name:        "list_permissions",
			Title:       "List permissions",
			Description: "List every permission a role or a grant can hold, with what it allows.",
			Toolset:     "roles", Op: service.OpListPermissions, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, a *service.Access, _ listRolesIn) (listPermissionsOut, error) {
			ps, err := svc.Permissions(ctx, a)
			if err != nil {
				return listPermissionsOut{}, err
			}
			out := listPermissionsOut{Permissions: make([]permissionOut, 0, len(ps))}
			for _, p := range ps {
				out.Permissions = append(out.Permissions, permissionOut{Name: string(p.Name), Description: p.Description, ReadOnly: p.Name.ReadOnly()})
			}
			return out, nil
		}),
		tenantTool(Tool{
			Name:        "list_roles",
			Title:       "List roles",
			Description: "List a company's roles with their permissions: built-in (unchangeable) and custom.",
			Toolset:     "roles", Op: service.OpListRoles, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, a *service.Access, _ listRolesIn) (listRolesOut, error) {
			rs, err := svc.Roles(ctx, a)
			if err != nil {
				return listRolesOut{}, err
			}
			out := listRolesOut{Roles: make([]roleOut, 0, len(rs))}
			for _, r := range rs {
				out.Roles = append(out.Roles, roleView(&r))
			}
			return out, nil
		}),
		tenantTool(Tool{
			Name:        "create_role",
			Title:       "Create a role",
			Description: "Create a custom role in a company, holding only permissions you hold.",
			Toolset:     "roles", Op: service.OpCreateRole, TargetArg: "name",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in roleIn) (roleOut, error) {
			return role(svc.CreateRole(ctx, a, in.input()))
		}),
		tenantTool(Tool{
			Name:        "update_role",
			Title:       "Update a role",
			Description: "Replace a custom role's permissions (and description, if given), from its members' next call.",
			Toolset:     "roles", Op: service.OpUpdateRole, Idempotent: true, TargetArg: "name",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in roleIn) (roleOut, error) {
			return role(svc.UpdateRole(ctx, a, in.input()))
		}),
		tenantTool(Tool{
			Name:        "delete_role",
			Title:       "Delete a role",
			Description: "Delete a custom role that no member holds (else a ConflictError says how many do).",
			Toolset:     "roles", Op: service.OpDeleteRole, Destructive: true, Idempotent: true, TargetArg: "name",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in roleRefIn) (deleteRoleOut, error) {
			if err := svc.DeleteRole(ctx, a, string(in.Name)); err != nil {
				return deleteRoleOut{}, err
			}
			return deleteRoleOut{Name: string(in.Name), Deleted: true}, nil
		}),
	}
}
