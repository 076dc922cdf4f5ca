package sqldb

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed migrations/postgres/*.sql
var postgresMigrations embed.FS

// pgDB is PostgreSQL through a pgx pool. Migrations run on a connection of
// their own, as the user of the URL; the pool's connections then act as
// the login, or as the database's own role if the login bypasses
// row-level security (pgroles.go).
type pgDB struct {
	cfg  *pgx.ConnConfig
	pool *pgxpool.Pool
	// mode is what the last migration set up.
	mode pgMode
	// writes counts the write transactions begun (discardPlansEvery).
	writes atomic.Uint64
}

// OpenPostgres opens the PostgreSQL database at url; tracer, if not nil,
// sees every statement and batch sent to it.
func OpenPostgres(ctx context.Context, url string, tracer pgx.QueryTracer) (Dialect, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		// A database that does not answer fails the call, not hangs it.
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	cfg.ConnConfig.Tracer = tracer
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	cfg.ConnConfig.RuntimeParams["application_name"] = "vitrine"
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		m, err := readMode(c.QueryRow(ctx, modeQuery))
		if err != nil || !m.bypasses {
			return err
		}
		if _, err := c.Exec(ctx, "SET ROLE "+ident(m.appRole())); err != nil {
			return fmt.Errorf("switch to role %s (run \"vitrine migrate\" first): %w", m.appRole(), err)
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	// The pool's first connection is made while Migrate checks the schema
	// on a connection of its own: each starts a PostgreSQL backend, several
	// milliseconds, which vitrine stdio pays at every conversation. On a
	// database not migrated yet it may fail (the role it switches to does
	// not exist yet); the pool then connects at its first use, as always.
	go func() {
		if c, err := pool.Acquire(context.WithoutCancel(ctx)); err == nil {
			c.Release()
		}
	}()
	return &pgDB{cfg: cfg.ConnConfig.Copy(), pool: pool}, nil
}

func (d *pgDB) Name() string { return "postgres" }

func (d *pgDB) ForUpdate() string { return " FOR UPDATE" }

func (d *pgDB) Close() error { d.pool.Close(); return nil }

// Read runs fn's statements each in one round trip: outside any tenant or
// user (tokens, the access epoch: what every request reads first), on the
// pool, where row-level security sees no tenant, as in a transaction that
// sets none; in a scope, as a pipelined batch (pgscoped.go) that sets the
// row-level security context, read-only, and runs the statement in one
// implicit transaction. BEGIN, the settings, the statement and COMMIT were
// four round trips for one query's one. (Each statement of a read sees its
// own snapshot, as it did in a READ COMMITTED transaction.)
func (d *pgDB) Read(ctx context.Context, s Scope, fn func(Conn) error) error {
	check := s.pendingCheck()
	s.Epoch = nil
	switch {
	case s != (Scope{}):
		return fn(pgScoped{pool: d.pool, args: s.settings(), epoch: check})
	case check != nil:
		return fn(pgScoped{pool: d.pool, epoch: check})
	}
	return fn(pgConn{d.pool})
}

func (d *pgDB) Write(ctx context.Context, s Scope, fn func(Conn) error) error {
	return d.tx(ctx, s, pgx.TxOptions{}, fn)
}

// Snapshot runs fn in a REPEATABLE READ, READ ONLY transaction: its
// snapshot is taken at its first statement (which carries BEGIN and the
// row-level security settings in its round trip) and holds to COMMIT.
func (d *pgDB) Snapshot(ctx context.Context, s Scope, fn func(Conn) error) error {
	return d.tx(ctx, s, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

func (d *pgDB) Constraint(err error) (string, bool) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "23505" || pe.Code == "23514") {
		return pe.ConstraintName, true
	}
	return "", false
}

func (d *pgDB) Migrations() fs.FS {
	fsys, _ := fs.Sub(postgresMigrations, "migrations/postgres")
	return fsys
}

func (d *pgDB) Stats() PoolStats {
	s := d.pool.Stat()
	return PoolStats{MaxOpen: int(s.MaxConns()), Open: int(s.TotalConns()), InUse: int(s.AcquiredConns()), Idle: int(s.IdleConns()),
		WaitCount: s.EmptyAcquireCount(), WaitDuration: s.EmptyAcquireWaitTime()}
}

func (d *pgDB) Migrate(ctx context.Context) ([]Migration, error) {
	db := stdlib.OpenDB(*d.cfg.Copy())
	defer db.Close()
	m, err := readMode(db.QueryRowContext(ctx, modeQuery))
	if err != nil {
		return nil, err
	}
	// Instances starting together take turns, for the whole of it: the
	// role prepared before the migrations and the grants after them too,
	// which PostgreSQL refuses to make twice at the same moment ("tuple
	// concurrently updated").
	unlock, err := lockMigrations(ctx, db)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := prepareRole(ctx, db, m); err != nil {
		return nil, err
	}
	fsys, err := migrationsFor(d.Migrations(), m)
	if err != nil {
		return nil, err
	}
	// goose's own lock, which releases that this binary's did not know
	// of still take: one migrates, the others then find nothing to do.
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 120))
	if err != nil {
		return nil, err
	}
	applied, err := runGoose(ctx, goose.DialectPostgres, db, fsys, goose.WithSessionLocker(locker))
	if err != nil {
		return nil, err
	}
	if err := finishRoles(ctx, db, m); err != nil {
		return nil, err
	}
	d.mode = m
	return applied, nil
}

// migrationLockKey names the advisory lock under which Migrate runs; goose
// takes its own (5887940537704921958) inside it. Advisory locks are of one
// database: two databases of a cluster migrate at the same time.
const migrationLockKey = 7_346_921_055_118_322_001

// migrationLockWait bounds the wait for another instance's migration.
const migrationLockWait = 2 * time.Minute

// lockMigrations takes the migration lock on a connection of its own,
// waiting for the instance that holds it, and returns its release.
func lockMigrations(ctx context.Context, db *sql.DB) (unlock func(), err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	wait, cancel := context.WithTimeout(ctx, migrationLockWait)
	defer cancel()
	if _, err := conn.ExecContext(wait, `SELECT pg_advisory_lock($1)`, int64(migrationLockKey)); err != nil {
		conn.Close()
		if wait.Err() != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("another instance has been migrating the database for %s; is one stuck?", migrationLockWait)
		}
		return nil, fmt.Errorf("wait for the migration lock: %w", err)
	}
	return func() {
		// If this fails, Migrate's closing of db ends the session, and
		// the lock with it.
		conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(migrationLockKey))
		conn.Close()
	}, nil
}

// pgConn runs statements in a transaction, or on the pool.
type pgConn struct {
	tx interface {
		Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
		Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
		QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	}
}

func (c pgConn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := c.tx.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (c pgConn) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	rs, err := c.tx.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgRows{rs}, nil
}

func (c pgConn) QueryRow(ctx context.Context, query string, args ...any) Row {
	return pgRow{c.tx.QueryRow(ctx, query, args...)}
}

type pgRows struct{ pgx.Rows }

func (r pgRows) Scan(dest ...any) error {
	if err := r.Rows.Scan(dest...); err != nil {
		return err
	}
	utc(dest)
	return nil
}

type pgRow struct{ r pgx.Row }

func (r pgRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNoRows
	}
	if err == nil {
		utc(dest)
	}
	return err
}

// utc gives scanned times the location SQLite's give them.
func utc(dest []any) {
	for _, d := range dest {
		switch t := d.(type) {
		case *time.Time:
			*t = t.UTC()
		case *sql.NullTime:
			t.Time = t.Time.UTC()
		}
	}
}
