package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/signin"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// SaveOAuthClient stores a client, or replaces the one with its id.
func (db *DB) SaveOAuthClient(ctx context.Context, c *signin.OAuthClient) error {
	meta, err := json.Marshal(c.Metadata)
	if err != nil {
		return fmt.Errorf("save OAuth client: %w", err)
	}
	err = db.d.Write(ctx, sqldb.Scope{}, func(cn sqldb.Conn) error {
		n, err := cn.Exec(ctx, `UPDATE oauth_clients SET kind = $1, metadata = $2, secret_hash = $3, fetched_at = $4 WHERE id = $5`,
			c.Kind, string(meta), c.SecretHash, c.FetchedAt, c.ID)
		if err != nil || n > 0 {
			return err
		}
		_, err = cn.Exec(ctx, `INSERT INTO oauth_clients (id, kind, metadata, secret_hash, created_at, fetched_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			c.ID, c.Kind, string(meta), c.SecretHash, c.CreatedAt, c.FetchedAt)
		return err
	})
	if err != nil {
		return fmt.Errorf("save OAuth client: %w", err)
	}
	return nil
}

const clientColumns = `c.id, c.kind, c.metadata, c.secret_hash, c.created_at, c.fetched_at`

func scanClient(r sqldb.Row, extra ...any) (*signin.OAuthClient, error) {
	var (
		c    signin.OAuthClient
		meta string
	)
	if err := r.Scan(append([]any{&c.ID, &c.Kind, &meta, &c.SecretHash, &c.CreatedAt, &c.FetchedAt}, extra...)...); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(meta), &c.Metadata); err != nil {
		return nil, fmt.Errorf("client %s: %w", c.ID, err)
	}
	c.CreatedAt, c.FetchedAt = c.CreatedAt.UTC(), c.FetchedAt.UTC()
	return &c, nil
}

// OAuthClient returns a client by id.
func (db *DB) OAuthClient(ctx context.Context, id string) (*signin.OAuthClient, error) {
	var c *signin.OAuthClient
	err := db.d.Read(ctx, sqldb.Scope{}, func(cn sqldb.Conn) (err error) {
		c, err = scanClient(cn.QueryRow(ctx, `SELECT `+clientColumns+` FROM oauth_clients c WHERE c.id = $1`, id))
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, vitrine.NotFound("Client")
	}
	if err != nil {
		return nil, fmt.Errorf("get OAuth client: %w", err)
	}
	return c, nil
}

// SaveOAuthGrant creates the user's grant to the client, or updates the
// scope of the active one. A scope narrowed (one without every scope of
// the earlier) revokes the grant's access tokens and refresh tokens, in
// the same transaction: they carry the earlier scope.
func (db *DB) SaveOAuthGrant(ctx context.Context, g *signin.OAuthGrant) error {
	err := db.d.Write(ctx, sqldb.Scope{UserID: g.UserID}, func(c sqldb.Conn) error {
		var id, scope string
		var created time.Time
		err := c.QueryRow(ctx, `SELECT id, scope, created_at FROM oauth_grants WHERE user_id = $1 AND client_id = $2 AND revoked_at IS NULL`+db.d.ForUpdate(),
			g.UserID, g.ClientID).Scan(&id, &scope, &created)
		switch {
		case errors.Is(err, sqldb.ErrNoRows):
			_, err = c.Exec(ctx, `INSERT INTO oauth_grants (id, user_id, client_id, scope, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)`,
				g.ID, g.UserID, g.ClientID, g.Scope, g.CreatedAt, g.UpdatedAt)
			return err
		case err != nil:
			return err
		}
		g.ID, g.CreatedAt = id, created.UTC()
		if _, err := c.Exec(ctx, `UPDATE oauth_grants SET scope = $1, updated_at = $2 WHERE id = $3`, g.Scope, g.UpdatedAt, id); err != nil {
			return err
		}
		if signin.ScopeIncludes(g.Scope, scope) {
			return nil
		}
		return revokeGrantTokens(ctx, c, id, g.UpdatedAt)
	})
	if err != nil {
		return fmt.Errorf("save OAuth grant: %w", err)
	}
	return nil
}

const grantColumns = `g.id, g.user_id, g.client_id, g.scope, g.created_at, g.updated_at, g.revoked_at`

func scanGrant(r sqldb.Row, extra ...any) (*signin.OAuthGrant, error) {
	var (
		g       signin.OAuthGrant
		revoked sql.NullTime
	)
	if err := r.Scan(append([]any{&g.ID, &g.UserID, &g.ClientID, &g.Scope, &g.CreatedAt, &g.UpdatedAt, &revoked}, extra...)...); err != nil {
		return nil, err
	}
	g.CreatedAt, g.UpdatedAt, g.RevokedAt = g.CreatedAt.UTC(), g.UpdatedAt.UTC(), timePtr(revoked)
	return &g, nil
}

// OAuthGrant returns a grant by id, revoked or not.
func (db *DB) OAuthGrant(ctx context.Context, id string) (*signin.OAuthGrant, error) {
	var g *signin.OAuthGrant
	err := db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) (err error) {
		g, err = scanGrant(c.QueryRow(ctx, `SELECT `+grantColumns+` FROM oauth_grants g WHERE g.id = $1`, id))
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, vitrine.NotFound("Grant")
	}
	if err != nil {
		return nil, fmt.Errorf("get OAuth grant: %w", err)
	}
	return g, nil
}

// OAuthGrantsOfUser returns the user's active grants, newest first.
func (db *DB) OAuthGrantsOfUser(ctx context.Context, userID string) ([]*signin.OAuthGrant, error) {
	var out []*signin.OAuthGrant
	err := db.d.Read(ctx, sqldb.Scope{UserID: userID}, func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (*signin.OAuthGrant, error) {
			var (
				cl   signin.OAuthClient
				meta string
			)
			g, err := scanGrant(r, &cl.ID, &cl.Kind, &meta, &cl.SecretHash, &cl.CreatedAt, &cl.FetchedAt)
			if err != nil {
				return nil, err
			}
			if err := json.Unmarshal([]byte(meta), &cl.Metadata); err != nil {
				return nil, fmt.Errorf("client %s: %w", cl.ID, err)
			}
			g.Client = &cl
			return g, nil
		}, `SELECT `+grantColumns+`, `+clientColumns+`
			FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id
			WHERE g.user_id = $1 AND g.revoked_at IS NULL ORDER BY g.updated_at DESC, g.id DESC`, userID)
		if err != nil || len(out) == 0 {
			return err
		}
		// The last use of each grant's tokens: the column itself, not an
		// aggregate of it, which SQLite would return as text.
		byID := map[string]*signin.OAuthGrant{}
		for _, g := range out {
			byID[g.ID] = g
		}
		type use struct {
			grantID string
			at      time.Time
		}
		uses, err := sqldb.Collect(ctx, c, func(r sqldb.Row) (use, error) {
			var u use
			err := r.Scan(&u.grantID, &u.at)
			return u, err
		}, `SELECT grant_id, last_used_at FROM api_tokens WHERE user_id = $1 AND grant_id IS NOT NULL AND last_used_at IS NOT NULL`, userID)
		for _, u := range uses {
			if g := byID[u.grantID]; g != nil && (g.LastUsedAt == nil || u.at.After(*g.LastUsedAt)) {
				at := u.at.UTC()
				g.LastUsedAt = &at
			}
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list OAuth grants: %w", err)
	}
	return out, nil
}

// RevokeOAuthGrant revokes the grant, its access tokens (which moves the
// access epoch, so that every instance sees it at its next request) and
// its refresh tokens, in one transaction.
func (db *DB) RevokeOAuthGrant(ctx context.Context, userID, id string, at time.Time) error {
	err := db.d.Write(ctx, sqldb.Scope{UserID: userID}, func(c sqldb.Conn) error {
		n, err := c.Exec(ctx, `UPDATE oauth_grants SET revoked_at = $1 WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL`, at, id, userID)
		if err != nil {
			return err
		}
		if n == 0 {
			return vitrine.NotFound("Grant")
		}
		return revokeGrantTokens(ctx, c, id, at)
	})
	if vitrine.TypeOf(err) == vitrine.NotFoundError {
		return err
	}
	if err != nil {
		return fmt.Errorf("revoke OAuth grant: %w", err)
	}
	return nil
}

// revokeGrantTokens revokes every access token of a grant (which moves
// the access epoch) and ends its codes and refresh tokens.
func revokeGrantTokens(ctx context.Context, c sqldb.Conn, grantID string, at time.Time) error {
	if _, err := c.Exec(ctx, `UPDATE api_tokens SET revoked_at = $1 WHERE grant_id = $2 AND revoked_at IS NULL`, at, grantID); err != nil {
		return err
	}
	_, err := c.Exec(ctx, `UPDATE oauth_sessions SET active = FALSE WHERE grant_id = $1 AND active`, grantID)
	return err
}

// CreateOAuthSession stores a code, PKCE request or refresh token.
func (db *DB) CreateOAuthSession(ctx context.Context, s *signin.OAuthSession) error {
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		_, err := c.Exec(ctx, `INSERT INTO oauth_sessions (kind, signature, request_id, grant_id, request, active, expires_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			s.Kind, s.Signature, s.RequestID, s.GrantID, string(s.Request), s.Active, s.ExpiresAt, s.CreatedAt)
		return err
	})
	if err != nil {
		return fmt.Errorf("create OAuth %s: %w", s.Kind, err)
	}
	return nil
}

// OAuthSession returns a code, PKCE request or refresh token, active or not.
func (db *DB) OAuthSession(ctx context.Context, kind, signature string) (*signin.OAuthSession, error) {
	s := signin.OAuthSession{Kind: kind, Signature: signature}
	var req string
	err := db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		return c.QueryRow(ctx, `SELECT request_id, grant_id, request, active, expires_at, created_at FROM oauth_sessions
			WHERE kind = $1 AND signature = $2`, kind, signature).
			Scan(&s.RequestID, &s.GrantID, &req, &s.Active, &s.ExpiresAt, &s.CreatedAt)
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, vitrine.NotFound("Session")
	}
	if err != nil {
		return nil, fmt.Errorf("get OAuth %s: %w", kind, err)
	}
	s.Request, s.ExpiresAt, s.CreatedAt = []byte(req), s.ExpiresAt.UTC(), s.CreatedAt.UTC()
	return &s, nil
}

// DeactivateOAuthSession marks a session used, once.
func (db *DB) DeactivateOAuthSession(ctx context.Context, kind, signature string) error {
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		n, err := c.Exec(ctx, `UPDATE oauth_sessions SET active = FALSE WHERE kind = $1 AND signature = $2 AND active`, kind, signature)
		if err == nil && n == 0 {
			return vitrine.Conflict("", "The %s was already used", kind)
		}
		return err
	})
	if vitrine.TypeOf(err) == vitrine.ConflictError {
		return err
	}
	if err != nil {
		return fmt.Errorf("use OAuth %s: %w", kind, err)
	}
	return nil
}

// RevokeOAuthRequest ends a token family.
func (db *DB) RevokeOAuthRequest(ctx context.Context, requestID string, at time.Time) error {
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		if _, err := c.Exec(ctx, `UPDATE oauth_sessions SET active = FALSE WHERE request_id = $1 AND active`, requestID); err != nil {
			return err
		}
		_, err := c.Exec(ctx, `UPDATE api_tokens SET revoked_at = $1 WHERE request_id = $2 AND revoked_at IS NULL`, at, requestID)
		return err
	})
	if err != nil {
		return fmt.Errorf("revoke OAuth tokens: %w", err)
	}
	return nil
}

// grantTokenRetention is how long an expired access token of a grant is
// kept (its last use shows on the connected-apps page).
const grantTokenRetention = 7 * 24 * time.Hour

// CreateGrantToken stores an access token issued under a grant.
func (db *DB) CreateGrantToken(ctx context.Context, t *vitrine.Token, grantID, requestID string) error {
	err := db.d.Write(ctx, sqldb.Scope{UserID: t.UserID}, func(c sqldb.Conn) error {
		if _, err := c.Exec(ctx, `INSERT INTO api_tokens (id, user_id, name, prefix, hash, read_only, toolsets, expires_at, created_at, grant_id, request_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			t.ID, t.UserID, t.Name, t.Prefix, t.Hash, t.ReadOnly, vitrine.EncodeToolsets(t.Toolsets), nullTime(t.ExpiresAt), t.CreatedAt,
			grantID, requestID); err != nil {
			return err
		}
		// Keep the newest expired one, whose last use the grant shows.
		_, err := c.Exec(ctx, `DELETE FROM api_tokens WHERE grant_id = $1 AND expires_at < $2
			AND id NOT IN (SELECT id FROM api_tokens WHERE grant_id = $3 AND expires_at < $4 ORDER BY expires_at DESC LIMIT 1)`,
			grantID, t.CreatedAt.Add(-grantTokenRetention), grantID, t.CreatedAt.Add(-grantTokenRetention))
		return err
	})
	if err != nil {
		return fmt.Errorf("create OAuth access token: %w", err)
	}
	return nil
}

// GrantToken returns an access token of a grant by its prefix.
func (db *DB) GrantToken(ctx context.Context, prefix string) (*vitrine.Token, string, string, error) {
	var (
		t                  *vitrine.Token
		grantID, requestID string
	)
	err := db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) (err error) {
		t, err = scanToken(c.QueryRow(ctx, `SELECT `+tokenColumns+`, grant_id, request_id FROM api_tokens
			WHERE prefix = $1 AND grant_id IS NOT NULL`, prefix), &grantID, &requestID)
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, "", "", vitrine.NotFound("Token")
	}
	if err != nil {
		return nil, "", "", fmt.Errorf("get OAuth access token: %w", err)
	}
	return t, grantID, requestID, nil
}

// CreateWebSession stores a signed-in browser.
func (db *DB) CreateWebSession(ctx context.Context, s *signin.WebSession) error {
	err := db.d.Write(ctx, sqldb.Scope{UserID: s.UserID}, func(c sqldb.Conn) error {
		if _, err := c.Exec(ctx, `DELETE FROM web_sessions WHERE user_id = $1 AND expires_at < $2`, s.UserID, s.CreatedAt); err != nil {
			return err
		}
		_, err := c.Exec(ctx, `INSERT INTO web_sessions (id, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
			s.ID, s.UserID, s.CreatedAt, s.ExpiresAt)
		return err
	})
	if err != nil {
		return fmt.Errorf("create web session: %w", err)
	}
	return nil
}

// WebSession returns an unexpired session and its user.
func (db *DB) WebSession(ctx context.Context, id string, now time.Time) (*signin.WebSession, *vitrine.User, error) {
	s := signin.WebSession{ID: id}
	var u vitrine.User
	err := db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		return c.QueryRow(ctx, `SELECT s.user_id, s.created_at, s.expires_at, u.id, u.email, u.name, COALESCE(u.subject, ''), u.disabled, u.created_at, u.updated_at
			FROM web_sessions s JOIN users u ON u.id = s.user_id WHERE s.id = $1 AND s.expires_at > $2`, id, now).
			Scan(&s.UserID, &s.CreatedAt, &s.ExpiresAt, &u.ID, &u.Email, &u.Name, &u.Subject, &u.Disabled, &u.CreatedAt, &u.UpdatedAt)
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, nil, vitrine.NotFound("Session")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("get web session: %w", err)
	}
	return &s, &u, nil
}

// DeleteWebSessionsOfUser signs every browser of the user out.
func (db *DB) DeleteWebSessionsOfUser(ctx context.Context, userID string) error {
	if !validIDs(userID) {
		return nil
	}
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) error { return endWebSessions(ctx, c, userID) })
	if err != nil {
		return fmt.Errorf("end web sessions: %w", err)
	}
	return nil
}

// DeleteWebSession signs a browser out.
func (db *DB) DeleteWebSession(ctx context.Context, id string) error {
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		_, err := c.Exec(ctx, `DELETE FROM web_sessions WHERE id = $1`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete web session: %w", err)
	}
	return nil
}

// purgeBatch bounds the rows one statement of PurgeOAuth removes.
const purgeBatch = 1000

// PurgeOAuth removes what no flow can use any more (signin.OAuthStore),
// in batches.
func (db *DB) PurgeOAuth(ctx context.Context, now, unusedBefore time.Time) (int64, error) {
	var total int64
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM oauth_sessions WHERE (kind, signature) IN (SELECT kind, signature FROM oauth_sessions WHERE expires_at < $1 LIMIT $2)`,
			[]any{now, purgeBatch}},
		{`DELETE FROM web_sessions WHERE id IN (SELECT id FROM web_sessions WHERE expires_at < $1 LIMIT $2)`, []any{now, purgeBatch}},
		{`DELETE FROM oauth_clients WHERE id IN (SELECT c.id FROM oauth_clients c
			WHERE ((c.kind = 'registered' AND c.created_at < $1) OR (c.kind = 'metadata' AND c.fetched_at < $1))
			AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.id) LIMIT $2)`, []any{unusedBefore, purgeBatch}},
	} {
		for {
			var n int64
			err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) (err error) {
				n, err = c.Exec(ctx, q.sql, q.args...)
				return err
			})
			total += n
			if err != nil {
				return total, fmt.Errorf("purge OAuth state: %w", err)
			}
			if n < purgeBatch {
				break
			}
		}
	}
	return total, nil
}
