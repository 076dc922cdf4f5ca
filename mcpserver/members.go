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
	Status      string    `json:"status" jsonschema:"\"active\", or \"inactive\": an inactive member reaches nothing in the company."`
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
	Limit  pageLimit `json:"limit,omitempty" jsonschema:"Members per page, 1 to 100. Default: 20."`
	Cursor string    `json:"cursor,omitempty" jsonschema:"The next_cursor of the previous page. Omit for the first page."`
}

type listMembersOut struct {
	Members    []memberOut `json:"members"`
	NextCursor string      `json:"next_cursor" jsonschema:"Pass as cursor for the next page; empty on the last page."`
}

type addMemberIn struct {
	TenantArg
	Email string `json:"email" jsonschema:"Email of the Vitrine user to invite."`
	Role  string `json:"role" jsonschema:"A built-in role (owner, admin, member, viewer) or a custom role of the company, from list_roles."`
}

// invitationOut is add_member's answer: the same whether or not the email
// has an account.
type invitationOut struct {
	Email  string `json:"email"`
	Role   string `json:"role"`
	Status string `json:"status" jsonschema:"\"invited\": the membership opens the company once its user accepts it."`
}

type updateMemberIn struct {
	TenantArg
	UserID string       `json:"user_id" jsonschema:"The member's user id, from list_members."`
	Role   string       `json:"role,omitempty" jsonschema:"The new role."`
	Status memberStatus `json:"status,omitempty" jsonschema:"\"inactive\" takes the member's access away at once, keeping the membership; \"active\" gives it back."`
}

type memberRefIn struct {
	TenantArg
	UserID string `json:"user_id" jsonschema:"The member's user id, from list_members."`
}

type removeMemberOut struct {
	UserID  string `json:"user_id"`
	Removed bool   `json:"removed"`
}

type permissionIn struct {
	TenantArg
	UserID     string         `json:"user_id" jsonschema:"The member's user id, from list_members."`
	Permission permissionName `json:"permission" jsonschema:"A permission of the catalog, such as \"products:delete\"."`
}

func memberTools(svc *service.Service) []*Tool {
	member := func(m *vitrine.Member, err error) (memberOut, error) {
		if err != nil {
			return memberOut{}, err
		}
		return memberView(m), nil
	}
	return []*Tool{
		tenantTool(svc, Tool{
			Name:        "list_members",
			Title:       "List members",
			Description: "List the members of a company, a page at a time, by email: each with role, status and permissions.",
			Toolset:     "members", Permission: vitrine.MembersRead, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, a *service.Access, in listMembersIn) (listMembersOut, error) {
			page, err := svc.ListMembers(ctx, a, int(in.Limit), in.Cursor)
			if err != nil {
				return listMembersOut{}, err
			}
			out := listMembersOut{Members: make([]memberOut, 0, len(page.Members)), NextCursor: page.NextCursor}
			for _, m := range page.Members {
				out.Members = append(out.Members, memberView(m))
			}
			return out, nil
		}),
		tenantTool(svc, Tool{
			Name:  "add_member",
			Title: "Invite a member",
			Description: "Invite a Vitrine user into a company, by email, with a role; they join when they accept " +
				"(accept_invitation). The answer is the same whether or not the email has an account. You cannot give " +
				"a role that holds permissions you do not hold; only an owner makes an owner.",
			Toolset: "members", Permission: vitrine.MembersManage,
		}, func(ctx context.Context, a *service.Access, in addMemberIn) (invitationOut, error) {
			inv, err := svc.Invite(ctx, a, in.Email, in.Role)
			if err != nil {
				return invitationOut{}, err
			}
			return invitationOut{Email: inv.Email, Role: inv.Role, Status: string(inv.Status)}, nil
		}),
		tenantTool(svc, Tool{
			Name:  "update_member",
			Title: "Change a member",
			Description: "Change a member's role, or status: \"inactive\" takes their access away from their very next " +
				"call. A company always keeps an active owner; only an owner changes an owner; you cannot change a " +
				"member who holds permissions you do not.",
			Toolset: "members", Permission: vitrine.MembersManage, Idempotent: true, TargetArg: "user_id",
		}, func(ctx context.Context, a *service.Access, in updateMemberIn) (memberOut, error) {
			return member(svc.UpdateMember(ctx, a, in.UserID, service.MemberChanges{Role: in.Role, Status: string(in.Status)}))
		}),
		tenantTool(svc, Tool{
			Name:  "remove_member",
			Title: "Remove a member",
			Description: "Take a user out of a company: their membership and its grants are deleted. To suspend access " +
				"but keep the membership, use update_member with status \"inactive\". The last active owner cannot be removed.",
			Toolset: "members", Permission: vitrine.MembersManage, Destructive: true, Idempotent: true, TargetArg: "user_id",
		}, func(ctx context.Context, a *service.Access, in memberRefIn) (removeMemberOut, error) {
			if err := svc.RemoveMember(ctx, a, in.UserID); err != nil {
				return removeMemberOut{}, err
			}
			return removeMemberOut{UserID: in.UserID, Removed: true}, nil
		}),
		tenantTool(svc, Tool{
			Name:  "grant_permission",
			Title: "Grant a permission",
			Description: "Give a member one permission on top of their role, such as products:delete. You can grant " +
				"only permissions you hold yourself.",
			Toolset: "members", Permission: vitrine.MembersManage, Idempotent: true, TargetArg: "user_id",
		}, func(ctx context.Context, a *service.Access, in permissionIn) (memberOut, error) {
			return member(svc.GrantPermission(ctx, a, in.UserID, string(in.Permission)))
		}),
		tenantTool(svc, Tool{
			Name:  "revoke_permission",
			Title: "Revoke a permission",
			Description: "Take back a permission granted to a member on top of their role. A permission that comes " +
				"with the role goes only by changing the role (update_member).",
			Toolset: "members", Permission: vitrine.MembersManage, Destructive: true, Idempotent: true, TargetArg: "user_id",
		}, func(ctx context.Context, a *service.Access, in permissionIn) (memberOut, error) {
			return member(svc.RevokePermission(ctx, a, in.UserID, string(in.Permission)))
		}),
	}
}
