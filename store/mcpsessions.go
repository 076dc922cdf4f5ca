package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// endedSessionRetention is how long an ended session is remembered: far
// past the idle timeout after which no instance holds a session anyway.
const endedSessionRetention = 24 * time.Hour

// EndMCPSession records that an MCP session ended.
func (db *DB) EndMCPSession(ctx context.Context, id string, at time.Time) error {
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		if _, err := c.Exec(ctx, `INSERT INTO mcp_sessions_ended (id, ended_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, id, at); err != nil {
			return err
		}
		_, err := c.Exec(ctx, `DELETE FROM mcp_sessions_ended WHERE ended_at < $1`, at.Add(-endedSessionRetention))
		return err
	})
	if err != nil {
		return fmt.Errorf("end MCP session: %w", err)
	}
	return nil
}

// MCPSessionEnded reports whether an MCP session was ended.
func (db *DB) MCPSessionEnded(ctx context.Context, id string) (bool, error) {
	var one int
	err := db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		return c.QueryRow(ctx, `SELECT 1 FROM mcp_sessions_ended WHERE id = $1`, id).Scan(&one)
	})
	switch {
	case errors.Is(err, sqldb.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read ended MCP session: %w", err)
	}
	return true, nil
}
