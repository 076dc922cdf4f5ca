// Package store implements vitrine.Store on SQLite (embedded, the default)
// and PostgreSQL. Both run the same SQL text wherever the two databases
// agree; what differs between them in how units of work run lives in
// package sqldb. The catalog's half (products, variants, stock, the list
// query and its search, imports, categories and attributes) is
// internal/catalog's, whose Store a DB embeds; what both halves build
// their statements with is internal/base's.
package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/catalog"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// DB is a vitrine.Store on one database.
type DB struct {
	// Store keeps the catalog: its methods are the DB's, on the same
	// engine (CheckingEpoch makes both anew).
	*catalog.Store
	d   epochChecked
	log *slog.Logger
}

var _ vitrine.Store = (*DB)(nil)

// Options tune Open.
type Options struct {
	// Logger receives the store's own messages; nil discards them.
	Logger *slog.Logger
	// NoMigrate skips bringing the schema up to date on open.
	NoMigrate bool
	// MustExist refuses a SQLite file that does not exist, rather than
	// create an empty database (a typo in a path): the commands that
	// read one set it; migrate and the demo make one.
	MustExist bool
	// Tracer, if set, sees every statement and batch sent to PostgreSQL
	// (the benchmark counts round trips with it).
	Tracer pgx.QueryTracer
	// FacetIndexMemory is the memory the facet indexes of the companies
	// hold, the least recently used dropped first: 0 for the default
	// (DefaultFacetIndexMemory), below 0 for none (every faceted list
	// counts by SQL).
	FacetIndexMemory int64
	// OnIndexBytes, if set, is told the bytes the facet indexes and the
	// builds under way hold, each time they change (vitrine serve sets
	// its soft memory limit by it).
	OnIndexBytes func(int64)
}

// DefaultFacetIndexMemory is the facet indexes' memory by default.
const DefaultFacetIndexMemory = catalog.DefaultIndexMemory

// Open opens the database that url names and brings its schema up to date:
// "postgres://..." or "postgresql://..." for PostgreSQL; "sqlite:PATH" or a
// plain path for SQLite.
func Open(ctx context.Context, url string, opts Options) (*DB, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	var (
		d   sqldb.Dialect
		err error
	)
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		d, err = sqldb.OpenPostgres(ctx, url, opts.Tracer)
	case url == "":
		return nil, errors.New("no database given")
	case strings.Contains(url, "://") && !strings.HasPrefix(url, "sqlite:"):
		scheme, _, _ := strings.Cut(url, "://")
		return nil, fmt.Errorf("unknown database URL scheme %s://...; use a file path or postgres://", scheme)
	default:
		path := strings.TrimPrefix(url, "sqlite:")
		if opts.MustExist {
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("no database at %s; vitrine migrate creates one", path)
			}
		}
		d, err = sqldb.OpenSQLite(ctx, path)
	}
	if err != nil {
		return nil, err
	}
	db := &DB{d: epochChecked{Dialect: d}, log: opts.Logger}
	db.Store = catalog.New(db.d, opts.Logger)
	if opts.FacetIndexMemory == 0 {
		opts.FacetIndexMemory = DefaultFacetIndexMemory
	}
	db.Store.EnableIndexes(opts.FacetIndexMemory, opts.Logger, opts.OnIndexBytes)
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
func (db *DB) Close() error {
	db.Store.CloseIndexes()
	return db.d.Close()
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	return db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		var one int
		return c.QueryRow(ctx, `SELECT 1`).Scan(&one)
	})
}

// tenant is the scope of a unit of work in one tenant.
func tenant(id string) sqldb.Scope { return base.Tenant(id) }

// operator is the scope of the operator's commands, which work across
// tenants (the CLI's lookups by slug, say).
var operator = sqldb.Scope{AllTenants: true}

// limitTo is a LIMIT clause whose count is the placeholder p (base.LimitTo).
func limitTo(p string) string { return base.LimitTo(p) }

// Migration is one schema change applied by Migrate.
type Migration = sqldb.Migration

// Migrate brings the schema up to date and returns the migrations it applied.
func (db *DB) Migrate(ctx context.Context) ([]Migration, error) {
	ms, err := db.d.Migrate(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate %s schema: %w", db.d.Name(), err)
	}
	// The products' label words, which a migration leaves to fill: in
	// batches, each recorded as the catalog's change (none to fill: one
	// read of an empty index).
	if _, err := db.Store.FillLabelWords(ctx); err != nil {
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

// validIDs reports whether every id has an id's shape (base.ValidIDs).
func validIDs(ids ...string) bool { return base.ValidIDs(ids...) }
