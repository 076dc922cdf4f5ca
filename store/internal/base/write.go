package base

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// Touches says what a write changes besides its audit event, for what the
// transaction does after it.
type Touches uint8

const (
	// Accounts is a write of tenancy, memberships or roles: nothing a
	// company's shop window shows.
	Accounts Touches = iota
	// Catalog is a write of what a company's window shows: its products,
	// variants and stock, categories, attribute definitions, the window's
	// own settings, the company's name. It adds one to the company's
	// catalog sequence (tenants.catalog_seq), by which feeds are tagged
	// and the facet index follows the catalog's changes.
	Catalog
)

// Write runs fn in a write transaction of the scope's tenant, and stores
// in the same transaction the audit event of ch's call (if it has one),
// about what target returns once fn has written: a change never commits
// without its trace, nor its trace without it. (Calls that write nothing
// have their events stored by the service's audit log instead; the
// event's id is the call's, so that the audit log's copy of a write's
// event adds no second row.) A Catalog write then bumps the tenant's
// catalog sequence, as the transaction's last statement: the tenant's row
// is locked only from there to the commit (on PostgreSQL the bump goes in
// the COMMIT's round trip), and the sequences commit in their order. A
// write that fails, or that fn refuses, rolls the bump back with the rest.
func Write(ctx context.Context, d sqldb.Dialect, s sqldb.Scope, ch vitrine.Change, touches Touches, target func() string, fn func(sqldb.Conn) error) error {
	return d.Write(ctx, s, func(c sqldb.Conn) error {
		if err := fn(c); err != nil {
			return err
		}
		if e := ch.Event(s.TenantID, target()); e != nil {
			if err := InsertAudit(ctx, c, []*vitrine.AuditEvent{e}); err != nil {
				return err
			}
		}
		if touches == Catalog {
			return sqldb.ExecLater(ctx, c, `UPDATE tenants SET catalog_seq = catalog_seq + 1 WHERE id = $1`, s.TenantID)
		}
		return nil
	})
}

// Is returns a target that is known before the write.
func Is(target string) func() string { return func() string { return target } }

// NoUser is the user_id of an audit event of the operator acting in no
// one's name (its actor says so): the column is a user's id, never empty.
const NoUser = "00000000-0000-0000-0000-000000000000"

// auditActor is the actor an event is stored with: a call that names none
// is a user's, the only kind there was before actors were recorded.
func auditActor(a vitrine.Actor) string {
	if a == "" {
		return string(vitrine.ActorUser)
	}
	return string(a)
}

func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// auditBatch bounds the rows of one INSERT.
const auditBatch = 200

// InsertAudit stores events, of any tenants; an event whose id is stored
// already is left as it is (one call, one event: see vitrine.AuditEvent).
func InsertAudit(ctx context.Context, c sqldb.Conn, events []*vitrine.AuditEvent) error {
	for len(events) > 0 {
		n := min(len(events), auditBatch)
		var (
			q      strings.Builder
			args   = make([]any, 0, n*10)
			values = make([]string, 0, n)
		)
		for _, e := range events[:n] {
			base := len(args)
			args = append(args, e.TenantID, e.ID, e.Time, auditActor(e.Actor), or(e.UserID, NoUser), e.TokenID, e.Tool, auditText(e.TargetID), e.Outcome, e.RequestID)
			values = append(values, fmt.Sprintf("($%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d)",
				base+1, base+2, base+3, base+4, base+5, base+6, base+7, base+8, base+9, base+10))
		}
		q.WriteString(`INSERT INTO audit_events (tenant_id, id, at, actor, user_id, token_id, tool, target_id, outcome, request_id) VALUES `)
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
