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
	Outcome   string    `json:"outcome"`
	RequestID string    `json:"request_id"`
}

type listAuditIn struct {
	TenantArg
	UserID  string       `json:"user_id,omitempty"`
	Tool    string       `json:"tool,omitempty"`
	Outcome auditOutcome `json:"outcome,omitempty"`
	Since   string       `json:"since,omitempty" jsonschema:"RFC 3339 time, inclusive."`
	Until   string       `json:"until,omitempty" jsonschema:"RFC 3339 time, exclusive."`
	pageArgs
}

type listAuditOut struct {
	Events     []auditEventOut `json:"events"`
	NextCursor string          `json:"next_cursor"`
}

func auditView(e *vitrine.AuditEvent) auditEventOut {
	return auditEventOut{ID: e.ID, Time: e.Time, TenantID: e.TenantID, UserID: e.UserID, TokenID: e.TokenID,
		Tool: e.Tool, TargetID: e.TargetID, Outcome: e.Outcome, RequestID: e.RequestID}
}

func auditTools() []*Tool {
	return []*Tool{
		tenantTool(Tool{
			Name:  "list_audit_events",
			Title: "List audit events",
			Description: "Read a company's audit log, newest first: every call, denials included, with who, token, " +
				"target and outcome.",
			Toolset: "audit", Op: service.OpListAuditEvents, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in listAuditIn) (listAuditOut, error) {
			page, err := svc.ListAudit(ctx, a, service.AuditQuery{UserID: in.UserID, Tool: in.Tool, Outcome: string(in.Outcome),
				Since: in.Since, Until: in.Until, Limit: int(in.Limit), Cursor: string(in.Cursor)})
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
