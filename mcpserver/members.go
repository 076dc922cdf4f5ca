package mcpserver

import (
	"context"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

type (
	memberStatus   string
	permissionName string
)

// memberOut is a member of a company as tools return it.
type memberOut struct {
	UserID      string    `json:"user_id"`
	Email       string    `json:"email"`
	Name        string    `json:"name"`
	Role        string    `json:"role"`
	Status      string    `json:"status"`
	Granted     []string  `json:"granted_permissions"`
	Permissions []string  `json:"permissions"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

func memberView(m *vitrine.Member) memberOut {
	return memberOut{UserID: m.UserID, Email: m.Email, Name: m.Name, Role: m.Role, Status: string(m.Status),
		Granted: m.Grants.Strings(), Permissions: m.Permissions().Strings(), CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
}

type listMembersIn struct {
	TenantArg
	pageArgs
}

type listMembersOut struct {
	Members    []memberOut `json:"members"`
	NextCursor string      `json:"next_cursor"`
}

type addMemberIn struct {
	TenantArg
	Email email    `json:"email"`
	Role  roleName `json:"role" jsonschema:"Built-in or custom (list_roles)."`
}

// invitationOut is add_member's answer: the same whether or not the email
// has an account.
type invitationOut struct {
	Email  string `json:"email"`
	Role   string `json:"role"`
	Status string `json:"status" jsonschema:"invited until the user accepts."`
}

type updateMemberIn struct {
	TenantArg
	UserID string       `json:"user_id"`
	Role   roleName     `json:"role,omitempty"`
	Status memberStatus `json:"status,omitempty" jsonschema:"inactive: no access, membership kept."`
}

type memberRefIn struct {
	TenantArg
	UserID string `json:"user_id"`
}

type removeMemberOut struct {
	UserID  string `json:"user_id"`
	Removed bool   `json:"removed"`
}

type permissionIn struct {
	TenantArg
	UserID     string         `json:"user_id"`
	Permission permissionName `json:"permission"`
}

func memberTools() []*Tool {
	member := func(m *vitrine.Member, err error) (memberOut, error) {
		if err != nil {
			return memberOut{}, err
		}
		return memberView(m), nil
	}
	return []*Tool{
		tenantTool(Tool{
			Name:        "list_members",
			Title:       "List members",
			Description: "List a company's members by email, a page at a time, with role, status and permissions.",
			Toolset:     "members", Op: service.OpListMembers, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in listMembersIn) (listMembersOut, error) {
			page, err := svc.ListMembers(ctx, a, int(in.Limit), string(in.Cursor))
			if err != nil {
				return listMembersOut{}, err
			}
			out := listMembersOut{Members: make([]memberOut, 0, len(page.Members)), NextCursor: page.NextCursor}
			for _, m := range page.Members {
				out.Members = append(out.Members, memberView(m))
			}
			return out, nil
		}),
		tenantTool(Tool{
			Name:  "add_member",
			Title: "Invite a member",
			Description: "Invite a user into a company by email, with a role no stronger than yours; they join when they " +
				"accept. The answer is the same whether or not the email has an account.",
			Toolset: "members", Op: service.OpAddMember,
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in addMemberIn) (invitationOut, error) {
			inv, err := svc.Invite(ctx, a, string(in.Email), string(in.Role))
			if err != nil {
				return invitationOut{}, err
			}
			return invitationOut{Email: inv.Email, Role: inv.Role, Status: string(inv.Status)}, nil
		}),
		tenantTool(Tool{
			Name:        "update_member",
			Title:       "Change a member",
			Description: "Change a member's role or status. Only an owner changes an owner; a company keeps an active owner.",
			Toolset:     "members", Op: service.OpUpdateMember, Idempotent: true, TargetArg: "user_id",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in updateMemberIn) (memberOut, error) {
			return member(svc.UpdateMember(ctx, a, in.UserID, service.MemberChanges{Role: string(in.Role), Status: string(in.Status)}))
		}),
		tenantTool(Tool{
			Name:        "remove_member",
			Title:       "Remove a member",
			Description: "Delete a member's membership and grants; to suspend instead, update_member with status inactive.",
			Toolset:     "members", Op: service.OpRemoveMember, Destructive: true, Idempotent: true, TargetArg: "user_id",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in memberRefIn) (removeMemberOut, error) {
			if err := svc.RemoveMember(ctx, a, in.UserID); err != nil {
				return removeMemberOut{}, err
			}
			return removeMemberOut{UserID: in.UserID, Removed: true}, nil
		}),
		tenantTool(Tool{
			Name:        "grant_permission",
			Title:       "Grant a permission",
			Description: "Give a member a permission on top of their role; only one you hold yourself.",
			Toolset:     "members", Op: service.OpGrantPermission, Idempotent: true, TargetArg: "user_id",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in permissionIn) (memberOut, error) {
			return member(svc.GrantPermission(ctx, a, in.UserID, string(in.Permission)))
		}),
		tenantTool(Tool{
			Name:        "revoke_permission",
			Title:       "Revoke a permission",
			Description: "Take back a permission granted on top of a member's role; the role's own go with the role.",
			Toolset:     "members", Op: service.OpRevokePermission, Destructive: true, Idempotent: true, TargetArg: "user_id",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in permissionIn) (memberOut, error) {
			return member(svc.RevokePermission(ctx, a, in.UserID, string(in.Permission)))
		}),
	}
}
