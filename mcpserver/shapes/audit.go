package shapes

import (
	"time"

	"github.com/vitrine/vitrine"
)

type auditOutcome string

type AuditEventOut struct {
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

type ListAuditIn struct {
	TenantArg
	UserID  string       `json:"user_id,omitempty"`
	Tool    string       `json:"tool,omitempty"`
	Outcome auditOutcome `json:"outcome,omitempty"`
	Since   string       `json:"since,omitempty" jsonschema:"RFC 3339 time, inclusive."`
	Until   string       `json:"until,omitempty" jsonschema:"RFC 3339 time, exclusive."`
	pageArgs
}

type ListAuditOut struct {
	Events     []AuditEventOut `json:"events"`
	NextCursor string          `json:"next_cursor"`
}

func AuditView(e *vitrine.AuditEvent) AuditEventOut {
	return AuditEventOut{ID: e.ID, Time: e.Time, TenantID: e.TenantID, UserID: e.UserID, TokenID: e.TokenID,
		Tool: e.Tool, TargetID: e.TargetID, Outcome: e.Outcome, RequestID: e.RequestID}
}
