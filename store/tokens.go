package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// CreateToken stores a new token (its hash, never its secret).
func (db *DB) CreateToken(ctx context.Context, t *vitrine.Token) error {
	err := db.d.Write(ctx, sqldb.Scope{UserID: t.UserID}, func(c sqldb.Conn) error {
		// The user's row locked, two tokens made at once count each other.
		var id string
		if err := c.QueryRow(ctx, `SELECT id FROM users WHERE id = $1`+db.d.ForUpdate(), t.UserID).Scan(&id); err != nil {
			return err
		}
		var n int
		if err := c.QueryRow(ctx, `SELECT count(*) FROM api_tokens WHERE user_id = $1 AND grant_id IS NULL AND revoked_at IS NULL
			AND (expires_at IS NULL OR expires_at > $2)`, t.UserID, t.CreatedAt).Scan(&n); err != nil {
			return err
		}
		if n >= vitrine.MaxPersonalTokens {
			return vitrine.Conflict("", "The user already has %d personal tokens, the most one may hold: revoke one first", n)
		}
		_, err := c.Exec(ctx, `INSERT INTO api_tokens (id, user_id, name, prefix, hash, read_only, toolsets, expires_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			t.ID, t.UserID, t.Name, t.Prefix, t.Hash, t.ReadOnly, vitrine.EncodeToolsets(t.Toolsets), nullTime(t.ExpiresAt), t.CreatedAt)
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return vitrine.NotFound("User")
	}
	if vitrine.AsError(err) != nil {
		return err
	}
	if err != nil {
		return fmt.Errorf("create token: %w", err)
	}
	return nil
}

// AccessEpoch reads the access epoch, which the database's triggers move
// on every change to users, tokens, tenants, memberships and roles
// (migration 00005).
func (db *DB) AccessEpoch(ctx context.Context) (int64, error) {
	var n int64
	err := db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		return c.QueryRow(ctx, sqldb.EpochQuery).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("read access epoch: %w", err)
	}
	return n, nil
}

// TokenByPrefix returns the token stored under prefix, with its user.
func (db *DB) TokenByPrefix(ctx context.Context, prefix string) (*vitrine.Token, *vitrine.User, error) {
	var (
		t *vitrine.Token
		u vitrine.User
	)
	err := db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) (err error) {
		t, err = scanToken(c.QueryRow(ctx, `SELECT t.id, t.user_id, t.name, t.prefix, t.hash, t.read_only, t.toolsets, t.grant_id IS NOT NULL,
				t.expires_at, t.last_used_at, t.revoked_at, t.created_at, u.id, u.email, u.name, COALESCE(u.subject, ''), u.disabled, u.created_at, u.updated_at
			FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.prefix = $1`, prefix),
			&u.ID, &u.Email, &u.Name, &u.Subject, &u.Disabled, &u.CreatedAt, &u.UpdatedAt)
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, nil, vitrine.NotFound("Token")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("get token: %w", err)
	}
	return t, &u, nil
}

// TouchToken records a token's use. It writes at most once a minute per
// token, so authentication stays a read on the hot path.
func (db *DB) TouchToken(ctx context.Context, id string, at time.Time) error {
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		_, err := c.Exec(ctx, `UPDATE api_tokens SET last_used_at = $1
			WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)`, at, id, at.Add(-time.Minute))
		return err
	})
	if err != nil {
		return fmt.Errorf("touch token: %w", err)
	}
	return nil
}

func nullTime(t *time.Time) sql.NullTime {
	if t == nil {
		return sql.NullTime{}
	}
	return sql.NullTime{Time: *t, Valid: true}
}

func timePtr(t sql.NullTime) *time.Time {
	if !t.Valid {
		return nil
	}
	v := t.Time.UTC()
	return &v
}

const tokenColumns = `id, user_id, name, prefix, hash, read_only, toolsets, grant_id IS NOT NULL, expires_at, last_used_at, revoked_at, created_at`

func scanToken(r sqldb.Row, extra ...any) (*vitrine.Token, error) {
	var (
		t                      vitrine.Token
		toolsets               string
		expires, used, revoked sql.NullTime
	)
	dest := append([]any{&t.ID, &t.UserID, &t.Name, &t.Prefix, &t.Hash, &t.ReadOnly, &toolsets, &t.OAuth, &expires, &used, &revoked, &t.CreatedAt}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	t.Toolsets = vitrine.DecodeToolsets(toolsets)
	t.ExpiresAt, t.LastUsedAt, t.RevokedAt = timePtr(expires), timePtr(used), timePtr(revoked)
	return &t, nil
}

// TokensOfUser returns a user's personal tokens, newest first.
func (db *DB) TokensOfUser(ctx context.Context, userID string) ([]*vitrine.Token, error) {
	if !validIDs(userID) {
		return nil, nil
	}
	var out []*vitrine.Token
	err := db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (*vitrine.Token, error) { return scanToken(r) }, `SELECT `+tokenColumns+` FROM api_tokens WHERE user_id = $1 AND grant_id IS NULL ORDER BY id DESC`, userID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

// RevokeToken marks a token revoked, keeping the first revocation time.
func (db *DB) RevokeToken(ctx context.Context, id string, at time.Time) (*vitrine.Token, error) {
	if !validIDs(id) {
		return nil, vitrine.NotFound("Token")
	}
	var t *vitrine.Token
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) (err error) {
		if _, err := c.Exec(ctx, `UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, at, id); err != nil {
			return err
		}
		t, err = scanToken(c.QueryRow(ctx, `SELECT `+tokenColumns+` FROM api_tokens WHERE id = $1`, id))
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, vitrine.NotFound("Token")
	}
	if err != nil {
		return nil, fmt.Errorf("revoke token: %w", err)
	}
	return t, nil
}
