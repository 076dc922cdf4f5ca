package mcpserver

import (
	"context"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

type auditOutcome string

type auditEventOut struct {
	ID        string    `json:"id"`
	Time      time.Time `json:"time"`
	TenantID  string    `json:"tenant_id"`
	UserID    string    `json:"user_id"`
	TokenID   string    `json:"token_id"`
	Tool      string    `json:"tool"`
	TargetID  string    `json:"target_id"`
	Outcome   string    `json:"outcome" jsonschema:"\"ok\", or the type of the error the call answered."`
	RequestID string    `json:"request_id"`
}

type listAuditIn struct {
	TenantArg
	UserID  string       `json:"user_id,omitempty" jsonschema:"Only calls made by this user."`
	Tool    string       `json:"tool,omitempty" jsonschema:"Only calls of this tool, such as \"delete_product\"."`
	Outcome auditOutcome `json:"outcome,omitempty" jsonschema:"Only calls that ended so."`
	Since   string       `json:"since,omitempty" jsonschema:"Only calls at or after this time (RFC 3339)."`
	Until   string       `json:"until,omitempty" jsonschema:"Only calls before this time (RFC 3339)."`
	Limit   pageLimit    `json:"limit,omitempty" jsonschema:"Events per page, 1 to 100. Default: 20."`
	Cursor  string       `json:"cursor,omitempty" jsonschema:"The next_cursor of the previous page, with the same filters. Omit for the first page."`
}

type listAuditOut struct {
	Events     []auditEventOut `json:"events"`
	NextCursor string          `json:"next_cursor" jsonschema:"Pass as cursor for the next page; empty on the last page."`
}

func auditView(e *vitrine.AuditEvent) auditEventOut {
	return auditEventOut{ID: e.ID, Time: e.Time, TenantID: e.TenantID, UserID: e.UserID, TokenID: e.TokenID,
		Tool: e.Tool, TargetID: e.TargetID, Outcome: e.Outcome, RequestID: e.RequestID}
}

func auditTools(svc *service.Service) []*Tool {
	return []*Tool{
		tenantTool(svc, Tool{
			Name:  "list_audit_events",
			Title: "List audit events",
			Description: "Read a company's audit log, newest first: every tool call made in it, by whom, with which " +
				"token, on what, and how it ended (denials included). Filter by user, tool, outcome and time.",
			Toolset: "audit", Permission: vitrine.AuditRead, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, a *service.Access, in listAuditIn) (listAuditOut, error) {
			page, err := svc.ListAudit(ctx, a, service.AuditQuery{UserID: in.UserID, Tool: in.Tool, Outcome: string(in.Outcome),
				Since: in.Since, Until: in.Until, Limit: int(in.Limit), Cursor: in.Cursor})
			if err != nil {
				return listAuditOut{}, err
			}
			out := listAuditOut{Events: make([]auditEventOut, 0, len(page.Events)), NextCursor: page.NextCursor}
			for _, e := range page.Events {
				out.Events = append(out.Events, auditView(e))
			}
			return out, nil
		}),
	}
}
