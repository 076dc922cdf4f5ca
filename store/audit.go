package store

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// write runs fn in a write transaction of the scope's tenant, and stores
// in the same transaction the audit event of ch's call (if it has one),
// about what target returns once fn has written: a change never commits
// without its trace, nor its trace without it. (Calls that write nothing
// have their events stored by the service's audit log instead; the
// event's id is the call's, so that the audit log's copy of a write's
// event adds no second row.)
func (db *DB) write(ctx context.Context, s sqldb.Scope, ch vitrine.Change, target func() string, fn func(sqldb.Conn) error) error {
	return db.d.Write(ctx, s, func(c sqldb.Conn) error {
		if err := fn(c); err != nil {
			return err
		}
		if e := ch.Event(s.TenantID, target()); e != nil {
			return insertAudit(ctx, c, []*vitrine.AuditEvent{e})
		}
		return nil
	})
}

// is returns a target that is known before the write.
func is(target string) func() string { return func() string { return target } }

// noTarget is the target of a membership's writes: none of their own, so
// that add_member's event is the same whether the email has an account or
// not (the tools that name a member, or a tenant, say so in their call).
var noTarget = is("")

// auditBatch bounds the rows of one INSERT.
const auditBatch = 200

func insertAudit(ctx context.Context, c sqldb.Conn, events []*vitrine.AuditEvent) error {
	for len(events) > 0 {
		n := min(len(events), auditBatch)
		var (
			q      strings.Builder
			args   = make([]any, 0, n*9)
			values = make([]string, 0, n)
		)
		for _, e := range events[:n] {
			base := len(args)
			args = append(args, e.TenantID, e.ID, e.Time, e.UserID, e.TokenID, e.Tool, auditText(e.TargetID), e.Outcome, e.RequestID)
			values = append(values, fmt.Sprintf("($%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d)",
				base+1, base+2, base+3, base+4, base+5, base+6, base+7, base+8, base+9))
		}
		q.WriteString(`INSERT INTO audit_events (tenant_id, id, at, user_id, token_id, tool, target_id, outcome, request_id) VALUES `)
		q.WriteString(strings.Join(values, ", "))
		q.WriteString(` ON CONFLICT DO NOTHING`) // one call, one event: see vitrine.AuditEvent
		if err := sqldb.ExecLater(ctx, c, q.String(), args...); err != nil {
			return err
		}
		events = events[n:]
	}
	return nil
}

// auditText keeps what an agent sent (a target id, say) storable as text on
// both databases: valid UTF-8, no NUL, at most 100 characters.
func auditText(s string) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
	if utf8.RuneCountInString(s) > 100 {
		s = string([]rune(s)[:100])
	}
	return s
}

// AppendAudit stores events of any tenants in one transaction.
func (db *DB) AppendAudit(ctx context.Context, events []*vitrine.AuditEvent) error {
	if len(events) == 0 {
		return nil
	}
	if err := db.d.Write(ctx, operator, func(c sqldb.Conn) error { return insertAudit(ctx, c, events) }); err != nil {
		return fmt.Errorf("append audit events: %w", err)
	}
	return nil
}

// ListAudit returns a page of a tenant's audit log, newest first.
func (db *DB) ListAudit(ctx context.Context, tenantID string, f vitrine.AuditFilter) ([]*vitrine.AuditEvent, error) {
	s := tenant(tenantID)
	if tenantID == vitrine.NoTenant {
		s = operator
	}
	if !validIDs(tenantID) {
		return nil, nil
	}
	var q queryBuilder
	q.add(`tenant_id = `, tenantID)
	if f.UserID != "" {
		q.add(`user_id = `, f.UserID)
	}
	if f.Tool != "" {
		q.add(`tool = `, f.Tool)
	}
	if f.Outcome != "" {
		q.add(`outcome = `, f.Outcome)
	}
	if f.Since != nil {
		q.add(`at >= `, *f.Since)
	}
	if f.Until != nil {
		q.add(`at < `, *f.Until)
	}
	if f.Before != "" {
		q.add(`id < `, f.Before)
	}
	query := `SELECT tenant_id, id, at, user_id, token_id, tool, target_id, outcome, request_id FROM audit_events WHERE ` +
		strings.Join(q.where, ` AND `) + ` ORDER BY id DESC` + limitTo(q.arg(f.Limit))
	var out []*vitrine.AuditEvent
	err := db.d.Read(ctx, s, func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (*vitrine.AuditEvent, error) {
			var e vitrine.AuditEvent
			err := r.Scan(&e.TenantID, &e.ID, &e.Time, &e.UserID, &e.TokenID, &e.Tool, &e.TargetID, &e.Outcome, &e.RequestID)
			return &e, err
		}, query, q.args...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list audit events: %w", err)
	}
	return out, nil
}

// pruneLock is the PostgreSQL advisory lock that lets one instance at a
// time prune the audit log.
const pruneLock = 0x76697472696e65 // "vitrine"

// PruneAudit removes up to limit events of any tenant older than before,
// in one short transaction, and returns how many it removed. On
// PostgreSQL, while another instance prunes, it removes none and says so
// with busy.
func (db *DB) PruneAudit(ctx context.Context, before time.Time, limit int) (n int64, busy bool, err error) {
	err = db.d.Write(ctx, operator, func(c sqldb.Conn) error {
		if db.d.Name() == "postgres" {
			var locked bool
			if err := c.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, int64(pruneLock)).Scan(&locked); err != nil {
				return err
			}
			if !locked {
				busy = true
				return nil
			}
		}
		var err error
		n, err = c.Exec(ctx, `DELETE FROM audit_events WHERE (tenant_id, id) IN
			(SELECT tenant_id, id FROM audit_events WHERE at < $1 ORDER BY at`+limitTo("$2")+`)`, vitrine.Timestamp(before), limit)
		return err
	})
	if err != nil {
		return 0, false, fmt.Errorf("prune audit events: %w", err)
	}
	return n, busy, nil
}
