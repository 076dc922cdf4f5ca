package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
)

func memberTools() []*Tool {
	member := func(m *vitrine.Member, err error) (shapes.MemberOut, error) {
		if err != nil {
			return shapes.MemberOut{}, err
		}
		return shapes.MemberView(m), nil
	}
	return []*Tool{
		tenantTool(Tool{
			Name:        "list_members",
			Title:       "List members",
			Description: "List a company's members by email, a page at a time, with role, status and permissions.",
			Toolset:     "members", Op: service.OpListMembers, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in shapes.ListMembersIn) (shapes.ListMembersOut, error) {
			page, err := svc.ListMembers(ctx, a, int(in.PageSize), string(in.Cursor))
			if err != nil {
				return shapes.ListMembersOut{}, err
			}
			out := shapes.ListMembersOut{Members: make([]shapes.MemberOut, 0, len(page.Members)), NextCursor: page.NextCursor}
			for _, m := range page.Members {
				out.Members = append(out.Members, shapes.MemberView(m))
			}
			return out, nil
		}),
		tenantTool(Tool{
			Name:  "add_member",
			Title: "Invite a member",
			Description: "Invite a user into a company by email, with a role no stronger than yours; they join when they " +
				"accept. The answer is the same whether or not the email has an account.",
			Toolset: "members", Op: service.OpAddMember,
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in shapes.AddMemberIn) (shapes.InvitationOut, error) {
			inv, err := svc.Invite(ctx, a, string(in.Email), string(in.Role))
			if err != nil {
				return shapes.InvitationOut{}, err
			}
			return shapes.InvitationOut{Email: inv.Email, Role: inv.Role, Status: string(inv.Status)}, nil
		}),
		tenantTool(Tool{
			Name:        "update_member",
			Title:       "Change a member",
			Description: "Change a member's role or status. Only an owner changes an owner; a company keeps an active owner.",
			Toolset:     "members", Op: service.OpUpdateMember, Idempotent: true, TargetArg: "user_id",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in shapes.UpdateMemberIn) (shapes.MemberOut, error) {
			return member(svc.UpdateMember(ctx, a, in.UserID, service.MemberChanges{Role: string(in.Role), Status: string(in.Status)}))
		}),
		tenantTool(Tool{
			Name:        "remove_member",
			Title:       "Remove a member",
			Description: "Delete a member's membership and grants; to suspend instead, update_member with status inactive.",
			Toolset:     "members", Op: service.OpRemoveMember, Destructive: true, Idempotent: true, TargetArg: "user_id",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in shapes.MemberRefIn) (shapes.RemoveMemberOut, error) {
			if err := svc.RemoveMember(ctx, a, in.UserID); err != nil {
				return shapes.RemoveMemberOut{}, err
			}
			return shapes.RemoveMemberOut{UserID: in.UserID, Removed: true}, nil
		}),
		tenantTool(Tool{
			Name:        "grant_permission",
			Title:       "Grant a permission",
			Description: "Give a member a permission on top of their role; only one you hold yourself.",
			Toolset:     "members", Op: service.OpGrantPermission, Idempotent: true, TargetArg: "user_id", ResultAs: "update_member",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in shapes.PermissionIn) (shapes.MemberOut, error) {
			return member(svc.GrantPermission(ctx, a, in.UserID, string(in.Permission)))
		}),
		tenantTool(Tool{
			Name:        "revoke_permission",
			Title:       "Revoke a permission",
			Description: "Take back a permission granted on top of a member's role; the role's own go with the role.",
			Toolset:     "members", Op: service.OpRevokePermission, Destructive: true, Idempotent: true, TargetArg: "user_id", ResultAs: "update_member",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in shapes.PermissionIn) (shapes.MemberOut, error) {
			return member(svc.RevokePermission(ctx, a, in.UserID, string(in.Permission)))
		}),
	}
}
