package store

import (
	"context"
	"fmt"

	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// PoolStats describes the database connections of one instance.
type PoolStats = sqldb.PoolStats

// Stats reports the connection pools.
func (db *DB) Stats() PoolStats { return db.d.Stats() }

// Ready reports whether the database answers and its schema is the one
// this binary's migrations make.
func (db *DB) Ready(ctx context.Context) error {
	var version int64
	err := db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		return c.QueryRow(ctx, `SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version WHERE is_applied`).Scan(&version)
	})
	if err != nil {
		return fmt.Errorf("database unreachable: %w", err)
	}
	if want := sqldb.LatestMigration(db.d.Migrations()); version != want {
		return fmt.Errorf("schema at version %d, this binary needs %d: run vitrine migrate", version, want)
	}
	return nil
}
