// Package dbtest gives tests a fresh database of every kind Vitrine runs on,
// so that one test asserts the same behaviour on each.
//
// PostgreSQL tests run on the server at VITRINE_TEST_POSTGRES (default
// postgres://postgres@127.0.0.1:5432/postgres), each in a database of its
// own that it creates and drops. When the server cannot be reached they are
// skipped, unless VITRINE_TEST_POSTGRES_REQUIRED is set (make test and CI
// set it): then they fail.
package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	_ "github.com/ncruces/go-sqlite3/driver" // for Exec on SQLite
	"github.com/vitrine/vitrine/store"
)

// Dialect is a kind of database tests run on.
type Dialect struct {
	Name string
	// URL returns the URL of a new, empty database that lives as long as t.
	URL func(t testing.TB) string
}

// Dialects returns the databases the tests run on.
func Dialects() []Dialect {
	return []Dialect{{Name: "sqlite", URL: SQLiteURL}, {Name: "postgres", URL: PostgresURL}}
}

// Each runs fn as a subtest on every dialect.
func Each(t *testing.T, fn func(t *testing.T, url string)) {
	for _, d := range Dialects() {
		t.Run(d.Name, func(t *testing.T) { fn(t, d.URL(t)) })
	}
}

// SQLiteURL returns the URL of a new SQLite database in t's temporary folder.
func SQLiteURL(t testing.TB) string {
	return "sqlite:" + filepath.Join(t.TempDir(), "vitrine.db")
}

// PostgresAdminURL is the server and the user that create test databases.
func PostgresAdminURL() string {
	if u := os.Getenv("VITRINE_TEST_POSTGRES"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// adminConn connects to the test server as its administrator. Without a
// server it skips t, or fails it where PostgreSQL is required
// (VITRINE_TEST_POSTGRES_REQUIRED, as make test sets it).
func adminConn(t testing.TB, admin string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), admin)
	if err != nil {
		if os.Getenv("VITRINE_TEST_POSTGRES_REQUIRED") != "" {
			t.Fatalf("PostgreSQL is required for this test run and cannot be reached at %s: %v", admin, err)
		}
		t.Skipf("PostgreSQL not reachable at %s (set VITRINE_TEST_POSTGRES): %v", admin, err)
	}
	return conn
}

// PostgresURL creates a database for t on the test server, dropping it when
// t ends, and returns its URL.
func PostgresURL(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	admin := PostgresAdminURL()
	conn := adminConn(t, admin)
	defer conn.Close(ctx)
	name := "vitrine_test_" + strings.ToLower(rand.Text()[:12])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Errorf("drop test database %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
		// The role a superuser's connections switch to in that database.
		if _, err := conn.Exec(ctx, "DROP ROLE IF EXISTS "+store.AppRoleName(name)); err != nil {
			t.Errorf("drop the test database's role: %v", err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// PostgresOwnerURL creates, for t, a login that is neither superuser nor
// BYPASSRLS and may not create roles or databases (the account of managed
// PostgreSQL), and a database it owns; it drops both when t ends, and
// returns the URL of the database as that login.
func PostgresOwnerURL(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	admin := PostgresAdminURL()
	conn := adminConn(t, admin)
	defer conn.Close(ctx)
	name := "vitrine_owner_" + strings.ToLower(rand.Text()[:12])
	for _, q := range []string{
		"CREATE ROLE " + name + " LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB",
		"CREATE DATABASE " + name + " OWNER " + name,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Errorf("drop test database %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		for _, q := range []string{"DROP DATABASE " + name + " WITH (FORCE)", "DROP ROLE " + name} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	u.User = url.User(name)
	return u.String()
}

// Open opens url, closing it when t ends.
func Open(t testing.TB, url string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), url, store.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Exec runs SQL on the database behind url as its administrator, outside
// the store and its row-level security: for tests that break or inspect it
// on purpose. Placeholders are $1, $2...
func Exec(t testing.TB, url, query string, args ...any) {
	t.Helper()
	if err := TryExec(url, query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// TryExec is Exec returning the database's answer.
func TryExec(url, query string, args ...any) error {
	ctx := context.Background()
	if IsPostgres(url) {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, query, args...)
		return err
	}
	db, err := sql.Open("sqlite3", strings.TrimPrefix(url, "sqlite:"))
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(query, args...)
	return err
}

// LockSQLite takes the write lock of the SQLite database at url (a URL or
// a path), as another process would, so that the server's next write waits
// in flight; release gives the lock back. It is given back at the end of t
// anyway.
func LockSQLite(t testing.TB, url string) (release func()) {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite3", "file:"+strings.TrimPrefix(url, "sqlite:")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
				t.Error(err)
			}
			conn.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// IsPostgres reports whether url names a PostgreSQL database.
func IsPostgres(url string) bool {
	return strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://")
}

// Query runs a query on the database behind url as its administrator,
// outside the store, and returns its rows, each column as text.
func Query(t testing.TB, url, query string, args ...any) [][]string {
	t.Helper()
	ctx := context.Background()
	var out [][]string
	if IsPostgres(url) {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		rows, err := conn.Query(ctx, query, args...)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		defer rows.Close()
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			row := make([]string, len(vals))
			for i, v := range vals {
				row[i] = fmt.Sprint(v)
			}
			out = append(out, row)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	db, err := sql.Open("sqlite3", strings.TrimPrefix(url, "sqlite:"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
