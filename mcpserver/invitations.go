package mcpserver

import (
	"context"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

type invitationView struct {
	TenantID   string    `json:"tenant_id"`
	TenantName string    `json:"tenant_name"`
	Role       string    `json:"role"`
	InvitedAt  time.Time `json:"invited_at"`
}

type listInvitationsOut struct {
	Invitations []invitationView `json:"invitations"`
	NextCursor  string           `json:"next_cursor"`
}

type invitationIn struct {
	// Not TenantArg: the company that invited the caller is not among
	// their companies (list_tenants) until they accept.
	TenantID string `json:"tenant_id" jsonschema:"From list_invitations."`
}

type declineInvitationOut struct {
	TenantID string `json:"tenant_id"`
	Declined bool   `json:"declined"`
}

// invitationTools are the invitee's side of add_member: they need no
// membership, only the invitation.
func invitationTools() []*Tool {
	return []*Tool{
		callerTool(Tool{
			Name:        "list_invitations",
			Title:       "List my invitations",
			Description: "List the companies that invited you and that you have not yet accepted or declined.",
			Toolset:     "tenants", ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, c *vitrine.Caller, _ noArgs) (listInvitationsOut, error) {
			invs, err := svc.Invitations(ctx, c)
			if err != nil {
				return listInvitationsOut{}, err
			}
			out := listInvitationsOut{Invitations: make([]invitationView, 0, len(invs))}
			for _, i := range invs {
				out.Invitations = append(out.Invitations, invitationView{TenantID: i.Tenant.ID, TenantName: i.Tenant.Name, Role: i.Role, InvitedAt: i.InvitedAt})
			}
			return out, nil
		}),
		callerTool(Tool{
			Name:        "accept_invitation",
			Title:       "Accept an invitation",
			Description: "Join a company that invited you, with the role it offered. Returns the company as you now reach it.",
			Toolset:     "tenants", TargetArg: "tenant_id",
		}, func(ctx context.Context, svc *service.Service, c *vitrine.Caller, in invitationIn) (tenantOut, error) {
			return tenant(svc.AcceptInvitation(ctx, c, in.TenantID))
		}),
		callerTool(Tool{
			Name:        "decline_invitation",
			Title:       "Decline an invitation",
			Description: "Decline a company's invitation; it is deleted, and the company can invite you again.",
			Toolset:     "tenants", TargetArg: "tenant_id",
		}, func(ctx context.Context, svc *service.Service, c *vitrine.Caller, in invitationIn) (declineInvitationOut, error) {
			if err := svc.DeclineInvitation(ctx, c, in.TenantID); err != nil {
				return declineInvitationOut{}, err
			}
			return declineInvitationOut{TenantID: in.TenantID, Declined: true}, nil
		}),
	}
}
