package harness

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/vitrine/vitrine/store"
)

// FindVitrine finds the vitrine binary to measure (path, or else the one
// beside this command), and its version line.
func FindVitrine(ctx context.Context, path string) (string, string, error) {
	if path == "" {
		self, err := os.Executable()
		if err != nil {
			return "", "", err
		}
		path = filepath.Join(filepath.Dir(self), "vitrine")
	}
	out, err := exec.CommandContext(ctx, path, "version").Output()
	version := strings.TrimSpace(string(out))
	if err == nil && !strings.HasPrefix(version, "vitrine ") {
		err = fmt.Errorf("its version reads %q", version)
	}
	if err != nil {
		return "", "", fmt.Errorf("--vitrine: %s is not a vitrine binary that runs (%v); build it with make build, or give its path", path, err)
	}
	return path, version, nil
}

// ServeFlags start vitrine serve without its rate and concurrency limits,
// which would measure the limits instead of the server.
var ServeFlags = []string{"serve", "--ip-rate", "0", "--token-rate", "0", "--token-concurrency", "0", "--shop-ip-rate", "0", "--shop-profile-rate", "0"}

// NewDatabaseOf returns a new, empty database of the dialect: on
// PostgreSQL ("postgres", at the server of URL postgres) one owned by a
// login of its own (NewOwnedDatabase: admin is its URL as postgres's
// user), else a SQLite file (admin empty); and how to drop it.
func NewDatabaseOf(ctx context.Context, dialect, postgres string) (url, admin string, drop func(), err error) {
	if dialect == "postgres" {
		return NewOwnedDatabase(ctx, postgres)
	}
	url, drop, err = NewDatabase(ctx, "")
	return url, "", drop, err
}

// NewDatabase returns a new, empty database: a SQLite file in a folder of
// its own, or, given the URL of a PostgreSQL server, a database made on
// it; and how to drop it.
func NewDatabase(ctx context.Context, postgres string) (string, func(), error) {
	if postgres == "" {
		dir, err := os.MkdirTemp("", "vitrine-bench-")
		if err != nil {
			return "", nil, err
		}
		return filepath.Join(dir, "bench.db"), func() { os.RemoveAll(dir) }, nil
	}
	conn, err := pgx.Connect(ctx, postgres)
	if err != nil {
		return "", nil, err
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("vitrine_bench_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, err
	}
	return URLWithDB(postgres, name), func() {
		conn, err := pgx.Connect(context.Background(), postgres)
		if err == nil {
			conn.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)")
			// The role a superuser's connections switched to in it.
			conn.Exec(context.Background(), "DROP ROLE IF EXISTS "+store.AppRoleName(name))
			conn.Close(context.Background())
		}
	}, nil
}

// NewOwnedDatabase is NewDatabase on PostgreSQL through a login of its
// own that is neither superuser nor BYPASSRLS and may not create roles or
// databases (the account of managed PostgreSQL, whose connections meet
// the tables' forced row-level security as their owner): it makes the
// login, with a random password, and a database it owns. It returns the
// URL of the database as that login, the URL of the same database as
// postgres's user (to inspect it), and how to drop both.
func NewOwnedDatabase(ctx context.Context, postgres string) (owned, admin string, drop func(), err error) {
	conn, err := pgx.Connect(ctx, postgres)
	if err != nil {
		return "", "", nil, err
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("vitrine_bench_owner_%d", time.Now().UnixNano())
	password := rand.Text()
	for _, q := range []string{
		"CREATE ROLE " + name + " LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB PASSWORD '" + password + "'",
		"CREATE DATABASE " + name + " OWNER " + name,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			conn.Exec(ctx, "DROP ROLE IF EXISTS "+name)
			return "", "", nil, err
		}
	}
	admin = URLWithDB(postgres, name)
	u, err := url.Parse(admin)
	if err != nil {
		return "", "", nil, err
	}
	u.User = url.UserPassword(name, password)
	return u.String(), admin, func() {
		conn, err := pgx.Connect(context.Background(), postgres)
		if err == nil {
			conn.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)")
			conn.Exec(context.Background(), "DROP ROLE IF EXISTS "+name)
			conn.Close(context.Background())
		}
	}, nil
}

// URLWithDB is the URL u of a PostgreSQL server naming the database name.
func URLWithDB(u, name string) string {
	i := strings.LastIndex(u, "/")
	q := ""
	if j := strings.Index(u, "?"); j > i {
		q = u[j:]
	}
	return u[:i+1] + name + q
}

// Analyze does what autovacuum does shortly after a bulk load: without
// statistics the planner takes a million rows for a few.
func Analyze(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "ANALYZE")
	return err
}
