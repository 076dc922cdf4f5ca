package service

import (
	"context"
	"slices"
	"time"

	"github.com/vitrine/vitrine"
)

// AuditQuery holds list_audit_events' arguments.
type AuditQuery struct {
	UserID  string
	Tool    string
	Outcome string
	Since   string // RFC 3339
	Until   string // RFC 3339
	Limit   int
	Cursor  string
}

// AuditPage is a page of audit events, newest first.
type AuditPage struct {
	Events     []*vitrine.AuditEvent
	NextCursor string
}

// Outcomes lists the outcomes an audit event can have.
var Outcomes = []string{vitrine.OutcomeOK, string(vitrine.PermissionError), string(vitrine.NotFoundError),
	string(vitrine.ConflictError), string(vitrine.ValidationError), string(vitrine.GenericError)}

// ListAudit returns a page of the tenant's audit log.
func (s *Service) ListAudit(ctx context.Context, a *Access, q AuditQuery) (*AuditPage, error) {
	if err := a.Allow(OpListAuditEvents); err != nil {
		return nil, err
	}
	return s.listAudit(ctx, a.TenantID, q)
}

func (s *Service) listAudit(ctx context.Context, tenantID string, q AuditQuery) (*AuditPage, error) {
	f := vitrine.AuditFilter{UserID: q.UserID, Tool: q.Tool, Outcome: q.Outcome}
	if q.UserID != "" && !vitrine.ValidID(q.UserID) {
		return nil, vitrine.Invalid("user_id", "user_id must be a user's id, as list_members gives it; got %q", q.UserID)
	}
	if q.Outcome != "" && !slices.Contains(Outcomes, q.Outcome) {
		return nil, vitrine.Invalid("outcome", "outcome must be one of %v; got %q", Outcomes, q.Outcome)
	}
	for _, tc := range []struct {
		field, value string
		dst          **time.Time
	}{{"since", q.Since, &f.Since}, {"until", q.Until, &f.Until}} {
		if tc.value == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, tc.value)
		if err != nil {
			return nil, vitrine.Invalid(tc.field, "%s must be a time in RFC 3339, such as \"2026-11-30T09:00:00Z\"; got %q", tc.field, tc.value)
		}
		t = vitrine.Timestamp(t)
		*tc.dst = &t
	}
	if _, err := PageSize(q.Limit); err != nil {
		return nil, err
	}
	scope := tenantID + "\x00" + q.UserID + "\x00" + q.Tool + "\x00" + q.Outcome + "\x00" + q.Since + "\x00" + q.Until
	pg, err := OpenPage[string](ctx, s, scope, q.Limit, q.Cursor)
	if err != nil {
		return nil, err
	}
	if pg.After != nil {
		f.Before = *pg.After
	}
	// What this instance holds in its buffer is shown too: a read's event
	// is listed as soon as the read has answered.
	if err := s.audit.Flush(ctx); err != nil {
		return nil, err
	}
	f.Limit = pg.Fetch()
	events, err := s.store.ListAudit(ctx, tenantID, f)
	if err != nil {
		return nil, err
	}
	page := &AuditPage{}
	page.Events, page.NextCursor = ClosePage(pg, events, func(i int) string { return events[i].ID })
	return page, nil
}
