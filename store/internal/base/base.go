// Package base is what the store's packages build their units of work and
// statements with: a tenant's scope, a write that stores its call's audit
// event in its own transaction, ids checked before the database is asked,
// numbered arguments, and the few clauses the dialects write differently.
// store (accounts, tenancy, the audit log) and store/internal/catalog (the
// catalog) both use it; the engines themselves are sqldb's.
package base

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// Tenant is the scope of a unit of work in one tenant.
func Tenant(id string) sqldb.Scope { return sqldb.Scope{TenantID: id} }

// ValidIDs reports whether every id has an id's shape. Methods answer
// NotFound for a malformed id before asking the database, which on
// PostgreSQL would refuse it as a uuid.
func ValidIDs(ids ...string) bool {
	for _, id := range ids {
		if !vitrine.ValidID(id) {
			return false
		}
	}
	return true
}

// LimitTo is a LIMIT clause whose count is the placeholder p. SQLite plans
// a statement whose LIMIT is a bare parameter for the value bound, and so
// prepares it again each time it runs; a LIMIT expression is planned once.
func LimitTo(p string) string { return ` LIMIT CAST(` + p + ` AS INTEGER)` }

// Write runs fn in a write transaction of the scope's tenant, and stores
// in the same transaction the audit event of ch's call (if it has one),
// about what target returns once fn has written: a change never commits
// without its trace, nor its trace without it. (Calls that write nothing
// have their events stored by the service's audit log instead; the
// event's id is the call's, so that the audit log's copy of a write's
// event adds no second row.)
func Write(ctx context.Context, d sqldb.Dialect, s sqldb.Scope, ch vitrine.Change, target func() string, fn func(sqldb.Conn) error) error {
	return d.Write(ctx, s, func(c sqldb.Conn) error {
		if err := fn(c); err != nil {
			return err
		}
		if e := ch.Event(s.TenantID, target()); e != nil {
			return InsertAudit(ctx, c, []*vitrine.AuditEvent{e})
		}
		return nil
	})
}

// Is returns a target that is known before the write.
func Is(target string) func() string { return func() string { return target } }

// auditBatch bounds the rows of one INSERT.
const auditBatch = 200

// InsertAudit stores events, of any tenants; an event whose id is stored
// already is left as it is (one call, one event: see vitrine.AuditEvent).
func InsertAudit(ctx context.Context, c sqldb.Conn, events []*vitrine.AuditEvent) error {
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

// QueryBuilder collects WHERE terms and numbers their arguments.
type QueryBuilder struct {
	Where []string
	Args  []any
}

// Arg adds an argument and returns its placeholder.
func (q *QueryBuilder) Arg(v any) string {
	q.Args = append(q.Args, v)
	return "$" + strconv.Itoa(len(q.Args))
}

// Add adds the term that compares with v: Add(`tenant_id = `, id).
func (q *QueryBuilder) Add(term string, v any) {
	q.Where = append(q.Where, term+q.Arg(v))
}

// By names a table read by one of its indexes. SQLite, which keeps no
// statistics here, would rather scan a company's rows in primary-key order
// (tenant_id first) than look a product's rows up by the index that leads
// with (tenant_id, product_id): the index is forced there. PostgreSQL's
// planner has its statistics and chooses.
func By(d sqldb.Dialect, table, index string) string {
	if d.Name() == "postgres" {
		return table
	}
	return table + " INDEXED BY " + index
}

// IDList is the condition, after a column, that it is one of the ids of
// the second argument ($2): a JSON array on SQLite, an array on
// PostgreSQL, so that a list of any length is one argument.
func IDList(d sqldb.Dialect) string {
	if d.Name() == "postgres" {
		return `= ANY($2::uuid[])`
	}
	return `IN (SELECT value FROM json_each($2))`
}

// IDArg is the argument IDList reads.
func IDArg(d sqldb.Dialect, ids []string) any {
	if d.Name() == "postgres" {
		return ids
	}
	b, _ := json.Marshal(ids)
	return string(b)
}
