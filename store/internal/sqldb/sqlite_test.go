package sqldb

import (
	"context"
	"path/filepath"
	"testing"
)

// The writer connection keeps writerCacheKiB of pages; the readers keep
// SQLite's default, so that the pool's memory stays one large cache and a
// few small ones.
func TestSQLiteWriterCache(t *testing.T) {
	ctx := context.Background()
	d, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	cacheSize := func(run func(context.Context, Scope, func(Conn) error) error) int64 {
		t.Helper()
		var n int64
		if err := run(ctx, Scope{}, func(c Conn) error { return c.QueryRow(ctx, `PRAGMA cache_size`).Scan(&n) }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := cacheSize(d.Write); got != -writerCacheKiB {
		t.Errorf("the writer's cache_size is %d, want %d (KiB)", got, -writerCacheKiB)
	}
	if got := cacheSize(d.Read); got != -2000 {
		t.Errorf("a reader's cache_size is %d, want SQLite's default -2000", got)
	}
}
