package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// write runs fn in a write transaction of the scope's tenant, with the
// audit event of ch's call in the same transaction (base.Write): a write
// of accounts, which no shop window shows.
func (db *DB) write(ctx context.Context, s sqldb.Scope, ch vitrine.Change, target func() string, fn func(sqldb.Conn) error) error {
	return base.Write(ctx, db.d, s, ch, base.Accounts, target, fn)
}

// writeCatalog runs fn as write does, for a write of what the tenant's
// shop window shows: it bumps the tenant's catalog sequence too.
func (db *DB) writeCatalog(ctx context.Context, s sqldb.Scope, ch vitrine.Change, target func() string, fn func(sqldb.Conn) error) error {
	return base.Write(ctx, db.d, s, ch, base.Catalog, target, fn)
}

// is returns a target that is known before the write.
func is(target string) func() string { return base.Is(target) }

// noTarget is the target of a membership's writes: none of their own, so
// that add_member's event is the same whether the email has an account or
// not (the tools that name a member, or a tenant, say so in their call).
var noTarget = is("")

// AppendAudit stores events of any tenants in one transaction.
func (db *DB) AppendAudit(ctx context.Context, events []*vitrine.AuditEvent) error {
	if len(events) == 0 {
		return nil
	}
	if err := db.d.Write(ctx, operator, func(c sqldb.Conn) error { return base.InsertAudit(ctx, c, events) }); err != nil {
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
	var q base.QueryBuilder
	q.Add(`tenant_id = `, tenantID)
	if f.UserID != "" {
		q.Add(`user_id = `, f.UserID)
	}
	if f.Tool != "" {
		q.Add(`tool = `, f.Tool)
	}
	if f.Outcome != "" {
		q.Add(`outcome = `, f.Outcome)
	}
	if f.Since != nil {
		q.Add(`at >= `, *f.Since)
	}
	if f.Until != nil {
		q.Add(`at < `, *f.Until)
	}
	if f.Before != "" {
		q.Add(`id < `, f.Before)
	}
	// The email of each event's user, beside its id: the users' rows are
	// no tenant's, and a page is a bounded number of lookups by key.
	query := `SELECT tenant_id, id, at, actor, user_id, token_id, tool, target_id, outcome, request_id,
		COALESCE((SELECT email FROM users WHERE users.id = audit_events.user_id), '') FROM audit_events WHERE ` +
		strings.Join(q.Where, ` AND `) + ` ORDER BY id DESC` + limitTo(q.Arg(f.Limit))
	var out []*vitrine.AuditEvent
	err := db.d.Read(ctx, s, func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (*vitrine.AuditEvent, error) {
			var (
				e     vitrine.AuditEvent
				actor string
			)
			err := r.Scan(&e.TenantID, &e.ID, &e.Time, &actor, &e.UserID, &e.TokenID, &e.Tool, &e.TargetID, &e.Outcome, &e.RequestID, &e.UserEmail)
			e.Actor = vitrine.Actor(actor)
			if e.UserID == base.NoUser {
				e.UserID = ""
			}
			return &e, err
		}, query, q.Args...)
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
