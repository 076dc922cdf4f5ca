package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
)

func auditTools() []*Tool {
	return []*Tool{
		tenantTool(Tool{
			Name:  "list_audit_events",
			Title: "List audit events",
			Description: "Read a company's audit log, newest first: every call, denials included, with who (a user, " +
				"by id and email, or the operator's command line), token, target and outcome.",
			Toolset: "audit", Op: service.OpListAuditEvents, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in shapes.ListAuditIn) (shapes.ListAuditOut, error) {
			page, err := svc.ListAudit(ctx, a, service.AuditQuery{UserID: in.UserID, Tool: in.Tool, Outcome: string(in.Outcome),
				Since: in.Since, Until: in.Until, Limit: int(in.PageSize), Cursor: string(in.Cursor)})
			if err != nil {
				return shapes.ListAuditOut{}, err
			}
			out := shapes.ListAuditOut{Events: make([]shapes.AuditEventOut, 0, len(page.Events)), NextCursor: page.NextCursor}
			for _, e := range page.Events {
				out.Events = append(out.Events, shapes.AuditView(e))
			}
			return out, nil
		}),
	}
}
