package vitrine

import (
	"context"
	"time"
)

// NoTenant is the tenant id of audit events that happened outside any
// tenant: whoami, list_tenants, and calls refused for want of a membership.
// Only the operator sees them (vitrine audit list).
const NoTenant = "00000000-0000-0000-0000-000000000000"

// AuditEvent records one tool call: who, where, what, and how it ended.
type AuditEvent struct {
	ID        string
	Time      time.Time
	TenantID  string // NoTenant outside any tenant
	UserID    string
	TokenID   string // empty when the operator acted in a user's name
	Tool      string
	TargetID  string // the resource the call was about, when there is one
	Outcome   string // "ok" or the error type
	RequestID string

	// recorded is set once the event is stored, by the transaction of the
	// call's first write or by the audit log afterwards.
	recorded bool
}

// Recorded reports whether the event is stored.
func (e *AuditEvent) Recorded() bool { return e.recorded }

// MarkRecorded notes that the event is stored.
func (e *AuditEvent) MarkRecorded() { e.recorded = true }

// OutcomeOK is the outcome of a call that succeeded.
const OutcomeOK = "ok"

// AuditFilter selects a page of a tenant's audit log, newest first.
type AuditFilter struct {
	UserID  string
	Tool    string
	Outcome string
	Since   *time.Time // inclusive
	Until   *time.Time // exclusive
	Limit   int
	// Before is the id the page starts before; empty for the first page.
	Before string
}

type auditKey struct{}

// WithAuditEvent returns a context carrying the event of the tool call it
// runs. A store that writes tenant data for the call records the event in
// the same transaction, so that no change is ever without its trace.
func WithAuditEvent(ctx context.Context, e *AuditEvent) context.Context {
	return context.WithValue(ctx, auditKey{}, e)
}

// AuditEventFrom returns the event of the call running in ctx, if any.
func AuditEventFrom(ctx context.Context) *AuditEvent {
	e, _ := ctx.Value(auditKey{}).(*AuditEvent)
	return e
}

// SetAuditTarget names the resource a call created, for its audit event,
// unless the event names one already.
func SetAuditTarget(ctx context.Context, id string) {
	if e := AuditEventFrom(ctx); e != nil && e.TargetID == "" {
		e.TargetID = id
	}
}
