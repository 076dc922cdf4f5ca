package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
)

func roleTools() []*Tool {
	role := func(r *vitrine.Role, err error) (shapes.RoleOut, error) {
		if err != nil {
			return shapes.RoleOut{}, err
		}
		return shapes.RoleView(r), nil
	}
	return []*Tool{
		tenantTool(Tool{
			Name:        "list_permissions",
			Title:       "List permissions",
			Description: "List every permission a role or a grant can hold, with what it allows.",
			Toolset:     "roles", Op: service.OpListPermissions, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, a *service.Access, _ shapes.ListRolesIn) (shapes.ListPermissionsOut, error) {
			ps, err := svc.Permissions(ctx, a)
			if err != nil {
				return shapes.ListPermissionsOut{}, err
			}
			out := shapes.ListPermissionsOut{Permissions: make([]shapes.PermissionOut, 0, len(ps))}
			for _, p := range ps {
				out.Permissions = append(out.Permissions, shapes.PermissionOut{Name: string(p.Name), Description: p.Description, ReadOnly: p.Name.ReadOnly()})
			}
			return out, nil
		}),
		tenantTool(Tool{
			Name:        "list_roles",
			Title:       "List roles",
			Description: "List a company's roles with their permissions: built-in (unchangeable) and custom.",
			Toolset:     "roles", Op: service.OpListRoles, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, a *service.Access, _ shapes.ListRolesIn) (shapes.ListRolesOut, error) {
			rs, err := svc.Roles(ctx, a)
			if err != nil {
				return shapes.ListRolesOut{}, err
			}
			out := shapes.ListRolesOut{Roles: make([]shapes.RoleOut, 0, len(rs))}
			for _, r := range rs {
				out.Roles = append(out.Roles, shapes.RoleView(&r))
			}
			return out, nil
		}),
		tenantTool(Tool{
			Name:        "create_role",
			Title:       "Create a role",
			Description: "Create a custom role in a company, holding only permissions you hold.",
			Toolset:     "roles", Op: service.OpCreateRole, TargetArg: "name",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in shapes.RoleIn) (shapes.RoleOut, error) {
			return role(svc.CreateRole(ctx, a, in.Input()))
		}),
		tenantTool(Tool{
			Name:        "update_role",
			Title:       "Update a role",
			Description: "Replace a custom role's permissions (and description, if given), from its members' next call.",
			Toolset:     "roles", Op: service.OpUpdateRole, Idempotent: true, TargetArg: "name",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in shapes.RoleIn) (shapes.RoleOut, error) {
			return role(svc.UpdateRole(ctx, a, in.Input()))
		}),
		tenantTool(Tool{
			Name:        "delete_role",
			Title:       "Delete a role",
			Description: "Delete a custom role that no member holds (else a ConflictError says how many do).",
			Toolset:     "roles", Op: service.OpDeleteRole, Destructive: true, Idempotent: true, TargetArg: "name",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in shapes.RoleRefIn) (shapes.DeleteRoleOut, error) {
			if err := svc.DeleteRole(ctx, a, string(in.Name)); err != nil {
				return shapes.DeleteRoleOut{}, err
			}
			return shapes.DeleteRoleOut{Name: string(in.Name), Deleted: true}, nil
		}),
	}
}
