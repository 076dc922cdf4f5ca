// Package store implements vitrine.Store on SQLite (embedded, the default)
// and PostgreSQL. Both run the same SQL text wherever the two databases
// agree; what differs between them in how units of work run lives in
// package sqldb, and in how products are searched, in search.go.
package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// DB is a vitrine.Store on one database.
type DB struct {
	d epochChecked
	// search returns how queries read the tenant's products holding words,
	// as the dialect's index of words allows (search.go).
	search func(ctx context.Context, c sqldb.Conn, tenantID string, words []string) (wordSearch, error)
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
		d      sqldb.Dialect
		search = sqliteSearch
		err    error
	)
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		d, err = sqldb.OpenPostgres(ctx, url, opts.Tracer)
		search = postgresSearch
	case url == "":
		return nil, errors.New("no database given")
	default:
		d, err = sqldb.OpenSQLite(ctx, strings.TrimPrefix(url, "sqlite:"))
	}
	if err != nil {
		return nil, err
	}
	db := &DB{d: epochChecked{Dialect: d}, search: search, log: opts.Logger}
	if !opts.NoMigrate {
		if _, err := db.Migrate(ctx); err != nil {
			d.Close()
			return nil, err
		}
	}
	return db, nil
}

// Dialect names the database: "sqlite" or "postgres".
func (db *DB) Dialect() string { return db.d.Name() }

// Close releases the database.
func (db *DB) Close() error { return db.d.Close() }

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	return db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		var one int
		return c.QueryRow(ctx, `SELECT 1`).Scan(&one)
	})
}

// tenant is the scope of a unit of work in one tenant.
func tenant(id string) sqldb.Scope { return sqldb.Scope{TenantID: id} }

// operator is the scope of the operator's commands, which work across
// tenants (the CLI's lookups by slug, say).
var operator = sqldb.Scope{AllTenants: true}

// limitTo is a LIMIT clause whose count is the placeholder p. SQLite plans
// a statement whose LIMIT is a bare parameter for the value bound, and so
// prepares it again each time it runs; a LIMIT expression is planned once.
func limitTo(p string) string { return ` LIMIT CAST(` + p + ` AS INTEGER)` }

// Migration is one schema change applied by Migrate.
type Migration = sqldb.Migration

// Migrate brings the schema up to date and returns the migrations it applied.
func (db *DB) Migrate(ctx context.Context) ([]Migration, error) {
	ms, err := db.d.Migrate(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate %s schema: %w", db.d.Name(), err)
	}
	return ms, nil
}

// RowSecurity says how the application's connections meet PostgreSQL's
// row-level security, as the last Migrate set it up; "" on SQLite, or
// before any Migrate.
func (db *DB) RowSecurity() string { return db.d.RowSecurity() }

// AppRoleName is the role a superuser or BYPASSRLS login switches to in
// the database of that name: one role per database, at most 63 bytes.
func AppRoleName(database string) string { return sqldb.AppRoleName(database) }

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
