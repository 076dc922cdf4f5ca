package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/vitrine/vitrine"
)

// CreateToken stores a new token (its hash, never its secret).
func (db *DB) CreateToken(ctx context.Context, t *vitrine.Token) error {
	err := db.d.write(ctx, scope{userID: t.UserID}, func(c conn) error {
		_, err := c.Exec(ctx, `INSERT INTO api_tokens (id, user_id, name, prefix, hash, read_only, expires_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			t.ID, t.UserID, t.Name, t.Prefix, t.Hash, t.ReadOnly, nullTime(t.ExpiresAt), t.CreatedAt)
		return err
	})
	if err != nil {
		return fmt.Errorf("create token: %w", err)
	}
	return nil
}

// TokenByPrefix returns the token stored under prefix, with its user.
func (db *DB) TokenByPrefix(ctx context.Context, prefix string) (*vitrine.Token, *vitrine.User, error) {
	var (
		t                      vitrine.Token
		u                      vitrine.User
		expires, used, revoked sql.NullTime
	)
	err := db.d.read(ctx, scope{}, func(c conn) error {
		return c.QueryRow(ctx, `SELECT t.id, t.user_id, t.name, t.prefix, t.hash, t.read_only, t.expires_at, t.last_used_at, t.revoked_at, t.created_at,
				u.id, u.email, u.name, u.disabled, u.created_at, u.updated_at
			FROM api_tokens t JOIN users u ON u.id = t.user_id
			WHERE t.prefix = $1`, prefix).
			Scan(&t.ID, &t.UserID, &t.Name, &t.Prefix, &t.Hash, &t.ReadOnly, &expires, &used, &revoked, &t.CreatedAt,
				&u.ID, &u.Email, &u.Name, &u.Disabled, &u.CreatedAt, &u.UpdatedAt)
	})
	if errors.Is(err, errNoRows) {
		return nil, nil, vitrine.NotFound("Token")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("get token: %w", err)
	}
	t.ExpiresAt, t.LastUsedAt, t.RevokedAt = timePtr(expires), timePtr(used), timePtr(revoked)
	return &t, &u, nil
}

// TouchToken records a token's use. It writes at most once a minute per
// token, so authentication stays a read on the hot path.
func (db *DB) TouchToken(ctx context.Context, id string, at time.Time) error {
	err := db.d.write(ctx, scope{}, func(c conn) error {
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
