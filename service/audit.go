package service

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/vitrine/vitrine"
)

// auditLog stores the events of calls that wrote nothing (reads, denials,
// failures) with group commit: events of concurrent calls share one
// transaction, and each call waits for its event's commit before it
// answers, so no acknowledged call goes unrecorded. Events of calls that
// write are stored by the store in the write's own transaction instead.
type auditLog struct {
	store vitrine.AuditStore
	log   interface {
		Error(msg string, args ...any)
	}

	mu      sync.Mutex
	queue   []pendingEvent
	running bool
}

type pendingEvent struct {
	e    *vitrine.AuditEvent
	done chan error
}

// auditTimeout bounds one batch's write.
const auditTimeout = 10 * time.Second

// record stores e and returns once it is committed. The writer goroutine
// runs only while there are events to write.
func (l *auditLog) record(ctx context.Context, e *vitrine.AuditEvent) error {
	p := pendingEvent{e: e, done: make(chan error, 1)}
	l.mu.Lock()
	l.queue = append(l.queue, p)
	if !l.running {
		l.running = true
		go l.run()
	}
	l.mu.Unlock()
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *auditLog) run() {
	for {
		l.mu.Lock()
		batch := l.queue
		l.queue = nil
		if len(batch) == 0 {
			l.running = false
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		events := make([]*vitrine.AuditEvent, len(batch))
		for i, p := range batch {
			events[i] = p.e
		}
		ctx, cancel := context.WithTimeout(context.Background(), auditTimeout)
		err := l.store.AppendAudit(ctx, events)
		cancel()
		if err != nil {
			l.log.Error("write audit events", "events", len(events), "err", err)
		}
		for _, p := range batch {
			p.done <- err
		}
	}
}

// RecordAudit stores the event of a tool call that its writes did not
// already store. The call must not answer before this returns nil.
func (s *Service) RecordAudit(ctx context.Context, e *vitrine.AuditEvent) error {
	if e.Recorded() {
		return nil
	}
	return s.audit.record(ctx, e)
}

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
	if _, err := pageSize(q.Limit); err != nil {
		return nil, err
	}
	scope := tenantID + "\x00" + q.UserID + "\x00" + q.Tool + "\x00" + q.Outcome + "\x00" + q.Since + "\x00" + q.Until
	pg, err := openPage[string](ctx, s, scope, q.Limit, q.Cursor)
	if err != nil {
		return nil, err
	}
	if pg.after != nil {
		f.Before = *pg.after
	}
	f.Limit = pg.fetch()
	events, err := s.store.ListAudit(ctx, tenantID, f)
	if err != nil {
		return nil, err
	}
	page := &AuditPage{}
	page.Events, page.NextCursor = closePage(pg, events, func(e *vitrine.AuditEvent) string { return e.ID })
	return page, nil
}
