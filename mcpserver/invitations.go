package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
)

// invitationTools are the invitee's side of add_member: they need no
// membership, only the invitation.
func invitationTools() []*Tool {
	return []*Tool{
		callerTool(Tool{
			Name:        "list_invitations",
			Title:       "List my invitations",
			Description: "List the companies that invited you, not yet accepted or declined.",
			Toolset:     "tenants", ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, c *vitrine.Caller, _ shapes.NoArgs) (shapes.ListInvitationsOut, error) {
			invs, err := svc.Invitations(ctx, c)
			if err != nil {
				return shapes.ListInvitationsOut{}, err
			}
			out := shapes.ListInvitationsOut{Invitations: make([]shapes.InvitationView, 0, len(invs))}
			for _, i := range invs {
				out.Invitations = append(out.Invitations, shapes.InvitationView{TenantID: i.Tenant.ID, TenantName: i.Tenant.Name, Role: i.Role, InvitedAt: i.InvitedAt})
			}
			return out, nil
		}),
		callerTool(Tool{
			Name:        "accept_invitation",
			Title:       "Accept an invitation",
			Description: "Join a company that invited you, with the role it offered; returns the company.",
			Toolset:     "tenants", TargetArg: "tenant_id",
		}, func(ctx context.Context, svc *service.Service, c *vitrine.Caller, in shapes.InvitationIn) (shapes.TenantRow, error) {
			t, err := svc.AcceptInvitation(ctx, c, in.TenantID)
			if err != nil {
				return shapes.TenantRow{}, err
			}
			return shapes.TenantRowView(*t), nil
		}),
		callerTool(Tool{
			Name:        "decline_invitation",
			Title:       "Decline an invitation",
			Description: "Decline a company's invitation; it is deleted, and the company may invite again.",
			Toolset:     "tenants", TargetArg: "tenant_id",
		}, func(ctx context.Context, svc *service.Service, c *vitrine.Caller, in shapes.InvitationIn) (shapes.DeclineInvitationOut, error) {
			if err := svc.DeclineInvitation(ctx, c, in.TenantID); err != nil {
				return shapes.DeclineInvitationOut{}, err
			}
			return shapes.DeclineInvitationOut{TenantID: in.TenantID, Declined: true}, nil
		}),
	}
}
