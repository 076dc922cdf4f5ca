package vitrine

import "time"

// NoTenant is the tenant id of audit events that happened outside any
// tenant: whoami, list_tenants, and calls refused for want of a membership.
// Only the operator sees them (vitrine audit list).
const NoTenant = "00000000-0000-0000-0000-000000000000"

// AuditEvent records one tool call: who, where, what, and how it ended.
// Its ID is the call's request id: a call has at most one event, however
// many times it is stored (the store ignores a second insert of an id), so
// that a write's event, stored in the write's own transaction, and the
// same event handed to the audit log after the call make one row.
type AuditEvent struct {
	ID       string
	Time     time.Time
	TenantID string // NoTenant outside any tenant
	// Actor is who called: a user through a token, or the operator's
	// command line (then UserID is the user it acted as, with --as, or
	// empty, and TokenID is empty).
	Actor   Actor
	UserID  string
	TokenID string // empty when the operator acted
	// UserEmail is the email of UserID, as the audit listings show it
	// beside the id; empty when there is no user, or their email was
	// erased. Not stored with the event: read from the user's row.
	UserEmail string
	Tool      string
	TargetID  string // the resource the call was about, when there is one
	Outcome   string // "ok" or the error type
	RequestID string
}

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
