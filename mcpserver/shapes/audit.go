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
	Actor     string    `json:"actor" jsonschema:"Who called: user (through a token) or operator (the operator's command line, in no one's name or in the user's)."`
	UserID    string    `json:"user_id" jsonschema:"The user who called, or as whom the operator acted; empty when the operator acted in no one's name."`
	UserEmail string    `json:"user_email" jsonschema:"The email of user_id, empty when there is none or it was erased."`
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
	return AuditEventOut{ID: e.ID, Time: e.Time, TenantID: e.TenantID, Actor: string(e.Actor), UserID: e.UserID, UserEmail: e.UserEmail, TokenID: e.TokenID,
		Tool: e.Tool, TargetID: e.TargetID, Outcome: e.Outcome, RequestID: e.RequestID}
}
