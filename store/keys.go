package store

import (
	"context"
	"fmt"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// ServerKey returns the key stored under name, storing fresh under it
// first if there is none: whoever stores first wins, and every caller then
// gets the same key.
func (db *DB) ServerKey(ctx context.Context, name string, fresh []byte) ([]byte, error) {
	var key []byte
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		if _, err := c.Exec(ctx, `INSERT INTO server_keys (name, key, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
			name, fresh, vitrine.Now()); err != nil {
			return err
		}
		return c.QueryRow(ctx, `SELECT key FROM server_keys WHERE name = $1`, name).Scan(&key)
	})
	if err != nil {
		return nil, fmt.Errorf("server key %s: %w", name, err)
	}
	return key, nil
}
