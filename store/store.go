// Package store implements vitrine.Store on SQLite (embedded, the default)
// and PostgreSQL. Both run the same SQL text wherever the two databases
// agree; what differs between them lives in sqlite.go and postgres.go.
package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/vitrine/vitrine"
)

// DB is a vitrine.Store on one database.
type DB struct {
	d dialect
	// search returns how queries read the tenant's products holding words,
	// as the dialect's index of words allows (search.go).
	search func(ctx context.Context, c conn, tenantID string, words []string) (wordSearch, error)
	log    *slog.Logger
}

var _ vitrine.Store = (*DB)(nil)

// Options tune Open.
type Options struct {
	// Logger receives the store's own messages; nil discards them.
	Logger *slog.Logger
	// NoMigrate skips bringing the schema up to date on open.
	NoMigrate bool
	// Tracer, if set, sees every statement and batch sent to PostgreSQL
	// (the benchmark counts round trips with it).
	Tracer pgx.QueryTracer
}

// Open opens the database that url names and brings its schema up to date:
// "postgres://..." or "postgresql://..." for PostgreSQL; "sqlite:PATH" or a
// plain path for SQLite.
func Open(ctx context.Context, url string, opts Options) (*DB, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	var (
		d      dialect
		search = sqliteSearch
		err    error
	)
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		d, err = openPostgres(ctx, url, opts.Tracer)
		search = postgresSearch
	case url == "":
		return nil, errors.New("no database given")
	default:
		d, err = openSQLite(ctx, strings.TrimPrefix(url, "sqlite:"))
	}
	if err != nil {
		return nil, err
	}
	db := &DB{d: d, search: search, log: opts.Logger}
	if !opts.NoMigrate {
		if _, err := db.Migrate(ctx); err != nil {
			d.close()
			return nil, err
		}
	}
	return db, nil
}

// Dialect names the database: "sqlite" or "postgres".
func (db *DB) Dialect() string { return db.d.name() }

// Close releases the database.
func (db *DB) Close() error { return db.d.close() }

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	return db.d.read(ctx, scope{}, func(c conn) error {
		var one int
		return c.QueryRow(ctx, `SELECT 1`).Scan(&one)
	})
}

// scope is what a unit of work touches: on PostgreSQL it sets the row-level
// security context of its transaction.
type scope struct {
	tenantID string
	userID   string
	// allTenants opens every tenant: for the operator's commands only.
	allTenants bool
}

func tenant(id string) scope { return scope{tenantID: id} }

// operator is the scope of the operator's commands, which work across
// tenants (the CLI's lookups by slug, say).
var operator = scope{allTenants: true}

// dialect is one database's way of running units of work.
type dialect interface {
	name() string
	// read runs fn on a connection that sees committed data.
	read(ctx context.Context, s scope, fn func(conn) error) error
	// write runs fn in a transaction: all of it commits, or none.
	write(ctx context.Context, s scope, fn func(conn) error) error
	// forUpdate is the clause that locks the rows a SELECT reads until the
	// transaction ends ("" where the write transaction already excludes
	// every other writer).
	forUpdate() string
	// constraint returns the name of the unique or check constraint that
	// err violates, if it is such an error.
	constraint(err error) (string, bool)
	migrate(ctx context.Context) ([]Migration, error)
	// migrations are the embedded migrations of this database.
	migrations() fs.FS
	stats() PoolStats
	close() error
}

// limitTo is a LIMIT clause whose count is the placeholder p. SQLite plans
// a statement whose LIMIT is a bare parameter for the value bound, and so
// prepares it again each time it runs; a LIMIT expression is planned once.
func limitTo(p string) string { return ` LIMIT CAST(` + p + ` AS INTEGER)` }

// conn runs SQL written with $1, $2... placeholders.
type conn interface {
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	Query(ctx context.Context, query string, args ...any) (rows, error)
	QueryRow(ctx context.Context, query string, args ...any) row
}

type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

type row interface {
	Scan(dest ...any) error
}

// errNoRows is what a row's Scan returns when the query found nothing.
var errNoRows = errors.New("store: no rows")

// Migration is one schema change applied by Migrate.
type Migration struct {
	Version int64
	Name    string
}

// Migrate brings the schema up to date and returns the migrations it applied.
func (db *DB) Migrate(ctx context.Context) ([]Migration, error) {
	ms, err := db.d.migrate(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate %s schema: %w", db.d.name(), err)
	}
	return ms, nil
}

// validIDs reports whether every id has an id's shape. Methods answer
// NotFound for a malformed id before asking the database, which on
// PostgreSQL would refuse it as a uuid.
func validIDs(ids ...string) bool {
	for _, id := range ids {
		if !vitrine.ValidID(id) {
			return false
		}
	}
	return true
}

// collect runs a query and scans every row with scan.
func collect[T any](ctx context.Context, c conn, scan func(row) (T, error), query string, args ...any) ([]T, error) {
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
