package sqldb

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"
	"github.com/ncruces/go-sqlite3/ext/fts5"
	"github.com/pressly/goose/v3"
)

//go:embed migrations/sqlite/*.sql
var sqliteMigrations embed.FS

// sqliteTimeFormat stores times as fixed-width UTC text with microseconds:
// it sorts as the times do (the driver's RFC 3339 with trimmed fractions
// does not) and holds exactly what PostgreSQL holds. The driver decodes it,
// like any SQLite time format, into time.Time.
const sqliteTimeFormat = "2006-01-02T15:04:05.000000Z"

// sqliteDB keeps two pools on one file: a single writer connection, so that
// writers queue in Go instead of spinning on SQLITE_BUSY, and a few readers
// that WAL lets run beside it.
type sqliteDB struct {
	path    string
	writer  *sql.DB
	readers *sql.DB
	// Prepared statements of the reader pool, by query text: parsing SQL
	// was a tenth of a read call's time. (The writer's single connection
	// is always inside a transaction, where database/sql cannot prepare on
	// the pool; its statements are parsed each time.)
	readerStmts stmtCache
}

// stmtCache holds up to maxStmts prepared statements. Most query texts are
// few (constants, or built from a handful of optional filters), but some
// grow with their arguments (an IN list of SKUs): past the cap, a text is
// run without keeping its statement.
type stmtCache struct {
	m sync.Map // query text -> *sql.Stmt
	n atomic.Int64
}

const maxStmts = 256

// writerCacheKiB is the page cache of the writer connection, in KiB
// (SQLite's default, which the readers keep, is 2,000 KiB). A batch of
// catalog writes inserts into indexes whose keys come in no order (a
// product's price, its name) or at one place per value (a tag, a
// category, a vendor): with 2 MiB, each write read most of those pages
// again through the VFS, and a fill of one company by batches of 2,000
// products slowed as the company grew (its last tenth at 0.71 of its
// first at 300,000 products, 0.75 at 1,000,000). The cache is one
// connection's, filled only as pages are read, in the connection's own
// WebAssembly memory (outside the Go heap, at most 256 MiB).
const writerCacheKiB = 64 << 10

func sqliteDSN(path string, readOnly bool) string {
	q := url.Values{}
	// busy_timeout first: adding any pragma resets the driver's default.
	pragmas := []string{"busy_timeout(10000)", "foreign_keys(on)", "journal_mode(wal)", "synchronous(full)"}
	if readOnly {
		pragmas = append(pragmas, "query_only(on)")
	} else {
		pragmas = append(pragmas, fmt.Sprintf("cache_size(-%d)", writerCacheKiB))
	}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// OpenSQLite opens the SQLite database in the file at path, creating it if
// there is none.
func OpenSQLite(ctx context.Context, path string) (Dialect, error) {
	if path == "" {
		return nil, errors.New("sqlite: no file given")
	}
	if dir := filepath.Dir(path); dir != "." {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("sqlite: folder of %s: %w", path, err)
		}
	}
	writer, err := driver.Open(sqliteDSN(path, false), fts5.Register)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	writer.SetConnMaxIdleTime(0)
	// The writer creates the file and switches it to WAL before any reader
	// opens it.
	if err := writer.PingContext(ctx); err != nil {
		writer.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	readers, err := driver.Open(sqliteDSN(path, true), fts5.Register)
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	n := max(2, runtime.GOMAXPROCS(0))
	readers.SetMaxOpenConns(n)
	readers.SetMaxIdleConns(n)
	readers.SetConnMaxIdleTime(0)
	return &sqliteDB{path: path, writer: writer, readers: readers}, nil
}

func (d *sqliteDB) Name() string { return "sqlite" }

// ForUpdate is empty: a write transaction holds the database's write lock
// (BEGIN IMMEDIATE on the single writer connection) from its start.
func (d *sqliteDB) ForUpdate() string { return "" }

func (d *sqliteDB) Close() error {
	d.readerStmts.close()
	return errors.Join(d.readers.Close(), d.writer.Close())
}

// Read runs fn on the reader pool, each statement on its own: a read unit
// sees committed data, statement by statement, and needs no transaction
// (BEGIN and COMMIT would double the statements of a one-query read).
// A pending epoch check reads the epoch in the unit's first statement, as
// one more column (epochFirst): a statement of its own cost as much as
// get_product's read of the product (each begins a read transaction, and
// locks the WAL index). When that statement found no row, or cannot carry
// the column, the epoch is one more read: on SQLite, reads cost no round
// trip.
func (d *sqliteDB) Read(ctx context.Context, s Scope, fn func(Conn) error) error {
	c := sqlConn{pool: d.readers, stmts: &d.readerStmts}
	check := s.pendingCheck()
	if check == nil {
		return fn(c)
	}
	err := fn(epochFirst{sqlConn: c, check: check})
	if check.Pending() {
		if cerr := checkSQLiteEpoch(ctx, c, s); cerr != nil {
			return cerr
		}
	}
	return err
}

// epochFirst is a reader connection whose unit of work still has its epoch
// to check: its first read checks it in its own statement, as one more
// column before each row's (epochRow, epochRows); a statement that cannot
// carry it (withEpoch) is preceded by the epoch's own read.
type epochFirst struct {
	sqlConn
	check EpochCheck
}

// withEpoch is query with the access epoch as its first result column,
// or "" when query is not one plain SELECT (a WITH, a compound SELECT):
// the column goes in the outermost SELECT itself, so that the query's
// ORDER BY and LIMIT stay what they are. SQLite computes the scalar
// subquery once.
func withEpoch(query string) string {
	q := strings.TrimLeft(query, " \t\n")
	rest, ok := strings.CutPrefix(q, "SELECT ")
	upper := strings.ToUpper(q)
	if !ok || strings.Contains(upper, " UNION ") || strings.Contains(upper, " INTERSECT ") || strings.Contains(upper, " EXCEPT ") {
		return ""
	}
	return `SELECT (` + EpochQuery + `), ` + rest
}

func (c epochFirst) QueryRow(ctx context.Context, query string, args ...any) Row {
	q := withEpoch(query)
	if !c.check.Pending() || q == "" {
		if err := checkSQLiteEpoch(ctx, c.sqlConn, Scope{Epoch: c.check}); err != nil {
			return errRow{err}
		}
		return c.sqlConn.QueryRow(ctx, query, args...)
	}
	return epochRow{row: c.sqlConn.QueryRow(ctx, q, args...), check: c.check}
}

func (c epochFirst) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	q := withEpoch(query)
	if !c.check.Pending() || q == "" {
		if err := checkSQLiteEpoch(ctx, c.sqlConn, Scope{Epoch: c.check}); err != nil {
			return nil, err
		}
		return c.sqlConn.Query(ctx, query, args...)
	}
	rows, err := c.sqlConn.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return &epochRows{Rows: rows, check: c.check}, nil
}

func (c epochFirst) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	if err := checkSQLiteEpoch(ctx, c.sqlConn, Scope{Epoch: c.check}); err != nil {
		return 0, err
	}
	return c.sqlConn.Exec(ctx, query, args...)
}

// epochRow is a row read with the epoch before its columns: its Scan
// checks the epoch, and answers ErrEpochMoved if it moved. A row not found
// leaves the check pending, for Read to make.
type epochRow struct {
	row   Row
	check EpochCheck
}

func (r epochRow) Scan(dest ...any) error {
	var n int64
	if err := r.row.Scan(append([]any{&n}, dest...)...); err != nil {
		return err
	}
	return compareEpoch(r.check, n)
}

// epochRows are rows read with the epoch before their columns: the first
// one scanned checks it.
type epochRows struct {
	Rows
	check   EpochCheck
	checked bool
}

func (r *epochRows) Scan(dest ...any) error {
	var n int64
	if err := r.Rows.Scan(append([]any{&n}, dest...)...); err != nil {
		return err
	}
	if r.checked {
		return nil
	}
	r.checked = true
	return compareEpoch(r.check, n)
}

func (d *sqliteDB) Write(ctx context.Context, s Scope, fn func(Conn) error) error {
	return inSQLiteTx(ctx, d.writer, nil, "write", s, fn)
}

// Snapshot runs fn in a deferred, read-only transaction on a reader
// connection: in WAL mode its first read fixes the snapshot it sees until
// it ends; the writer goes on meanwhile.
func (d *sqliteDB) Snapshot(ctx context.Context, s Scope, fn func(Conn) error) error {
	return inSQLiteTx(ctx, d.readers, &sql.TxOptions{ReadOnly: true}, "read", s, fn)
}

// inSQLiteTx runs fn in a transaction of db begun with opts, after the
// scope's epoch check, and commits it; what names it in errors.
func inSQLiteTx(ctx context.Context, db *sql.DB, opts *sql.TxOptions, what string, s Scope, fn func(Conn) error) error {
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("sqlite: begin %s: %w", what, err)
	}
	defer tx.Rollback()
	c := sqlConn{tx: tx}
	if err := checkSQLiteEpoch(ctx, c, s); err != nil {
		return err
	}
	if err := fn(c); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: commit: %w", err)
	}
	return nil
}

func checkSQLiteEpoch(ctx context.Context, c sqlConn, s Scope) error {
	check := s.pendingCheck()
	if check == nil {
		return nil
	}
	var n int64
	if err := c.QueryRow(ctx, EpochQuery).Scan(&n); err != nil {
		return err
	}
	return compareEpoch(check, n)
}

// sqliteUniqueColumns maps SQLite's description of a unique index, which
// names columns rather than the index, to the constraint's name.
var sqliteUniqueColumns = map[string]string{
	"users.email_key":                                      "users_email_key",
	"tenants.slug":                                         "tenants_slug_key",
	"products.tenant_id, products.handle":                  "products_handle",
	"variants.tenant_id, variants.sku_key":                 "variants_sku_key",
	"variants.tenant_id, variants.id":                      "variants_pkey",
	"categories.tenant_id, categories.handle":              "categories_handle",
	"attributes.tenant_id, attributes.key":                 "attributes_pkey",
	"memberships.tenant_id, memberships.user_id":           "memberships_pkey",
	"api_tokens.prefix":                                    "api_tokens_prefix_key",
	"shops.domain":                                         "shops_domain_key",
	"markets.domain":                                       "markets_domain_key",
	"markets.tenant_id, markets.handle":                    "markets_handle",
	"markets.tenant_id, markets.id":                        "markets_pkey",
	"market_countries.tenant_id, market_countries.country": "market_countries_pkey",
	"translations.tenant_id, translations.resource, translations.locale, translations.value": "translations_handle_key",
}

func (d *sqliteDB) Constraint(err error) (string, bool) {
	var se *sqlite3.Error
	if !errors.As(err, &se) || se.Code() != sqlite3.CONSTRAINT {
		return "", false
	}
	msg := se.Error()
	for _, prefix := range []string{"UNIQUE constraint failed: ", "CHECK constraint failed: "} {
		if i := strings.Index(msg, prefix); i >= 0 {
			what := msg[i+len(prefix):]
			if name, ok := sqliteUniqueColumns[what]; ok {
				return name, true
			}
			return what, true
		}
	}
	return "", false
}

// RowSecurity is "": SQLite has no row-level security.
func (d *sqliteDB) RowSecurity() string { return "" }

func (d *sqliteDB) AnalyzeFilled(context.Context, int64, ...string) (bool, error) { return false, nil }

func (d *sqliteDB) Migrations() fs.FS {
	fsys, _ := fs.Sub(sqliteMigrations, "migrations/sqlite")
	return fsys
}

func (d *sqliteDB) Migrate(ctx context.Context) ([]Migration, error) {
	return runGoose(ctx, goose.DialectSQLite3, d.writer, d.Migrations())
}

func (d *sqliteDB) Stats() PoolStats {
	w, r := d.writer.Stats(), d.readers.Stats()
	return PoolStats{MaxOpen: w.MaxOpenConnections + r.MaxOpenConnections, Open: w.OpenConnections + r.OpenConnections,
		InUse: w.InUse + r.InUse, Idle: w.Idle + r.Idle, WaitCount: w.WaitCount + r.WaitCount, WaitDuration: w.WaitDuration + r.WaitDuration}
}

// runGoose applies the pending migrations of fsys.
func runGoose(ctx context.Context, dialect goose.Dialect, db *sql.DB, fsys fs.FS, opts ...goose.ProviderOption) ([]Migration, error) {
	opts = append(opts, goose.WithDisableGlobalRegistry(true))
	p, err := goose.NewProvider(dialect, db, fsys, opts...)
	if err != nil {
		return nil, err
	}
	results, err := p.Up(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Migration, 0, len(results))
	for _, r := range results {
		out = append(out, Migration{Version: r.Source.Version, Name: filepath.Base(r.Source.Path)})
	}
	return out, nil
}

// sqlConn runs SQL through database/sql, turning $N placeholders into ?N,
// which SQLite binds by number ($N it binds by order of appearance). On a
// pool, statements are prepared once and kept; in a transaction, run as
// they come.
type sqlConn struct {
	pool  *sql.DB
	stmts *stmtCache // of pool
	tx    *sql.Tx    // a transaction, instead of pool
}

// querier is what sqlConn runs a statement on.
type querier interface {
	ExecContext(ctx context.Context, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, args ...any) *sql.Row
}

func (c sqlConn) stmt(ctx context.Context, query string) (querier, error) {
	if c.tx != nil {
		return textStmt{c.tx, numbered(query)}, nil
	}
	if v, ok := c.stmts.m.Load(query); ok {
		return v.(*sql.Stmt), nil
	}
	if c.stmts.n.Load() >= maxStmts {
		return textStmt{c.pool, numbered(query)}, nil
	}
	st, err := c.pool.PrepareContext(ctx, numbered(query))
	if err != nil {
		return nil, err
	}
	if prev, loaded := c.stmts.m.LoadOrStore(query, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	c.stmts.n.Add(1)
	return st, nil
}

func (c *stmtCache) close() {
	c.m.Range(func(_, v any) bool { v.(*sql.Stmt).Close(); return true })
}

// Reprepares returns how many times SQLite prepared each statement of the
// reader pool again after its first preparation, by query text; nil on
// another database. (The store's tests check with it that statements stay
// prepared.)
func Reprepares(ctx context.Context, dialect Dialect) (map[string]int, error) {
	d, ok := dialect.(*sqliteDB)
	if !ok {
		return nil, nil
	}
	out := map[string]int{}
	var conns []*sql.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range d.readers.Stats().OpenConnections {
		c, err := d.readers.Conn(ctx)
		if err != nil {
			return nil, err
		}
		conns = append(conns, c)
		err = c.Raw(func(dc any) error {
			for s := range dc.(driver.Conn).Raw().Stmts() {
				out[s.SQL()] += s.Status(sqlite3.STMTSTATUS_REPREPARE, false)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// textStmt runs one query text, parsed each time, in a transaction or on
// the pool.
type textStmt struct {
	on interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	}
	query string
}

func (t textStmt) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	return t.on.ExecContext(ctx, t.query, args...)
}

func (t textStmt) QueryContext(ctx context.Context, args ...any) (*sql.Rows, error) {
	return t.on.QueryContext(ctx, t.query, args...)
}

func (t textStmt) QueryRowContext(ctx context.Context, args ...any) *sql.Row {
	return t.on.QueryRowContext(ctx, t.query, args...)
}

func (c sqlConn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, sqliteArgs(args)...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c sqlConn) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	rs, err := st.QueryContext(ctx, sqliteArgs(args)...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rs}, nil
}

func (c sqlConn) QueryRow(ctx context.Context, query string, args ...any) Row {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return errRow{err}
	}
	return sqlRow{st.QueryRowContext(ctx, sqliteArgs(args)...)}
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// sqliteArgs writes times in sqliteTimeFormat.
func sqliteArgs(args []any) []any {
	for i, a := range args {
		switch v := a.(type) {
		case time.Time:
			args[i] = v.UTC().Format(sqliteTimeFormat)
		case sql.NullTime:
			if v.Valid {
				args[i] = v.Time.UTC().Format(sqliteTimeFormat)
			} else {
				args[i] = nil
			}
		}
	}
	return args
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

type sqlRow struct{ r *sql.Row }

func (r sqlRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNoRows
	}
	return err
}

// numbered rewrites $N placeholders as ?N. It runs once per query text:
// the result is prepared and kept.
func numbered(query string) string {
	b := []byte(query)
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '$' && b[i+1] >= '0' && b[i+1] <= '9' {
			b[i] = '?'
		}
	}
	return string(b)
}
