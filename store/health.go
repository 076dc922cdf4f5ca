package store

import (
	"context"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// PoolStats describes the database connections of one instance.
type PoolStats struct {
	MaxOpen, Open, InUse, Idle int
	// WaitCount and WaitDuration add up the waits for a free connection.
	WaitCount    int64
	WaitDuration time.Duration
}

// Stats reports the connection pools.
func (db *DB) Stats() PoolStats { return db.d.stats() }

// Ready reports whether the database answers and its schema is the one
// this binary's migrations make.
func (db *DB) Ready(ctx context.Context) error {
	var version int64
	err := db.d.read(ctx, scope{}, func(c conn) error {
		return c.QueryRow(ctx, `SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version WHERE is_applied`).Scan(&version)
	})
	if err != nil {
		return fmt.Errorf("database unreachable: %w", err)
	}
	if want := latestMigration(db.d.migrations()); version != want {
		return fmt.Errorf("schema at version %d, this binary needs %d: run vitrine migrate", version, want)
	}
	return nil
}

// latestMigration is the highest version among the migrations of fsys.
func latestMigration(fsys fs.FS) int64 {
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
