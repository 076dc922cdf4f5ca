// Package sqldb runs units of work on the two databases Vitrine stores its
// catalog in: SQLite (sqlite.go) and PostgreSQL (postgres.go, with the
// scoped reads of pgscoped.go, the batched writes of pgwrite.go and the
// roles of pgroles.go). It holds the schema as its migrations make it,
// and knows none of the queries: those are package store's.
package sqldb

import (
	"context"
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// Scope is what a unit of work touches: on PostgreSQL it sets the row-level
// security context of its transaction.
type Scope struct {
	TenantID string
	UserID   string
	// AllTenants opens every tenant: for the operator's commands only.
	AllTenants bool
	// Epoch, if set and pending, is checked with the unit's first
	// statement (epoch.go).
	Epoch EpochCheck
}

// Dialect is one database's way of running units of work.
type Dialect interface {
	Name() string
	// Read runs fn on a connection that sees committed data.
	Read(ctx context.Context, s Scope, fn func(Conn) error) error
	// Write runs fn in a transaction: all of it commits, or none.
	Write(ctx context.Context, s Scope, fn func(Conn) error) error
	// Snapshot runs fn's reads in one read-only transaction that sees one
	// snapshot of committed data, from its first statement to its end
	// (Read's statements each see their own): what one statement reads
	// agrees with what another does. It never waits for writes, nor
	// makes them wait.
	Snapshot(ctx context.Context, s Scope, fn func(Conn) error) error
	// ForUpdate is the clause that locks the rows a SELECT reads until the
	// transaction ends ("" where the write transaction already excludes
	// every other writer).
	ForUpdate() string
	// Constraint returns the name of the unique or check constraint that
	// err violates, if it is such an error.
	Constraint(err error) (string, bool)
	Migrate(ctx context.Context) ([]Migration, error)
	// Migrations are the embedded migrations of this database.
	Migrations() fs.FS
	// RowSecurity says how the connections meet PostgreSQL's row-level
	// security, as the last Migrate set it up; "" on SQLite, or before any
	// Migrate.
	RowSecurity() string
	// AnalyzeFilled refreshes the planner's statistics of tables after a
	// write that filled them, when the first has changed by AnalyzeAfter
	// rows or more since its last analyze, and by more than half the rows
	// it had then (written counts the rows of the write that just
	// committed, which the server's counters may not hold yet). It says
	// whether it analyzed them: on PostgreSQL; SQLite's planner needs no
	// such statistics for a catalog's lookups.
	AnalyzeFilled(ctx context.Context, written int64, tables ...string) (bool, error)
	Stats() PoolStats
	Close() error
}

// Conn runs SQL written with $1, $2... placeholders.
type Conn interface {
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	Query(ctx context.Context, query string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, query string, args ...any) Row
}

// Rows are the rows a query found, read with Next and Scan.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Row is the first row a query found; its Scan returns ErrNoRows when
// there is none.
type Row interface {
	Scan(dest ...any) error
}

// ErrNoRows is what a row's Scan returns when the query found nothing.
var ErrNoRows = errors.New("store: no rows")

// Collect runs a query and scans every row with scan.
func Collect[T any](ctx context.Context, c Conn, scan func(Row) (T, error), query string, args ...any) ([]T, error) {
	rs, err := c.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []T
	for rs.Next() {
		v, err := scan(rs)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rs.Err()
}

// Migration is one schema change applied by Migrate.
type Migration struct {
	Version int64
	Name    string
}

// LatestMigration is the highest version among the migrations of fsys.
func LatestMigration(fsys fs.FS) int64 {
	var latest int64
	names, _ := fs.Glob(fsys, "*.sql")
	for _, n := range names {
		prefix, _, _ := strings.Cut(n, "_")
		if v, err := strconv.ParseInt(prefix, 10, 64); err == nil && v > latest {
			latest = v
		}
	}
	return latest
}

// PoolStats describes the database connections of one instance.
type PoolStats struct {
	MaxOpen, Open, InUse, Idle int
	// WaitCount and WaitDuration add up the waits for a free connection.
	WaitCount    int64
	WaitDuration time.Duration
}
