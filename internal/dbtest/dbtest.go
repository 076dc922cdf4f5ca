// Package dbtest gives tests a fresh database of every kind Vitrine runs on,
// so that one test asserts the same behaviour on each.
package dbtest

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

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
	return []Dialect{{Name: "sqlite", URL: SQLiteURL}}
}

// SQLiteURL returns the URL of a new SQLite database in t's temporary folder.
func SQLiteURL(t testing.TB) string {
	return "sqlite:" + filepath.Join(t.TempDir(), "vitrine.db")
}

// Each runs fn as a subtest on every dialect.
func Each(t *testing.T, fn func(t *testing.T, url string)) {
	for _, d := range Dialects() {
		t.Run(d.Name, func(t *testing.T) { fn(t, d.URL(t)) })
	}
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

// Exec runs SQL on the database behind url, outside the store: for tests
// that break or inspect it on purpose.
func Exec(t testing.TB, url, query string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite3", strings.TrimPrefix(url, "sqlite:"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}
