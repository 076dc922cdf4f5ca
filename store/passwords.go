package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/signin"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// UserPassword returns the user with that email and their password hash
// ("" when they have none).
func (db *DB) UserPassword(ctx context.Context, email string) (*vitrine.User, string, error) {
	var (
		u    *vitrine.User
		hash sql.NullString
	)
	err := db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) (err error) {
		u, err = scanUserWith(c.QueryRow(ctx, `SELECT `+userColumns+`, password_hash FROM users WHERE email_key = $1`, emailKey(email)), &hash)
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, "", vitrine.NotFound("User")
	}
	if err != nil {
		return nil, "", fmt.Errorf("get user's password: %w", err)
	}
	return u, hash.String, nil
}

// scanUserWith scans userColumns followed by the columns of extra.
func scanUserWith(r sqldb.Row, extra ...any) (*vitrine.User, error) {
	var u vitrine.User
	dest := append([]any{&u.ID, &u.Email, &u.Name, &u.Subject, &u.Disabled, &u.CreatedAt, &u.UpdatedAt}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	return &u, nil
}

// SetPassword stores a user's password hash and forgets the failed
// sign-ins of their email.
func (db *DB) SetPassword(ctx context.Context, userID, hash string, at time.Time) error {
	if !validIDs(userID) {
		return vitrine.NotFound("User")
	}
	var n int64
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) (err error) {
		n, err = setPassword(ctx, c, userID, hash, at)
		return err
	})
	if err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	if n == 0 {
		return vitrine.NotFound("User")
	}
	return nil
}

// setPassword sets a user's password, forgets their failed sign-ins and
// signs out every browser signed in as them: whoever knew the old
// password, or holds a session from before, is out.
func setPassword(ctx context.Context, c sqldb.Conn, userID, hash string, at time.Time) (int64, error) {
	n, err := c.Exec(ctx, `UPDATE users SET password_hash = $1, updated_at = $2 WHERE id = $3`, hash, at, userID)
	if err != nil || n == 0 {
		return n, err
	}
	if _, err = c.Exec(ctx, `DELETE FROM sign_in_failures WHERE email_key = (SELECT email_key FROM users WHERE id = $1)`, userID); err != nil {
		return n, err
	}
	return n, endWebSessions(ctx, c, userID)
}

// endWebSessions signs out every browser of the user.
func endWebSessions(ctx context.Context, c sqldb.Conn, userID string) error {
	_, err := c.Exec(ctx, `DELETE FROM web_sessions WHERE user_id = $1`, userID)
	return err
}

// SignInFailures returns the failures counted for an email key.
func (db *DB) SignInFailures(ctx context.Context, key string) (signin.Failures, error) {
	var (
		f     signin.Failures
		until sql.NullTime
	)
	err := db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		return c.QueryRow(ctx, `SELECT failures, locked_until FROM sign_in_failures WHERE email_key = $1`, key).Scan(&f.Failures, &until)
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return signin.Failures{}, nil
	}
	if err != nil {
		return f, fmt.Errorf("read sign-in failures: %w", err)
	}
	if until.Valid {
		f.LockedUntil = until.Time.UTC()
	}
	return f, nil
}

// RecordSignInFailure counts one more failure for key and locks it for
// lock(failures), in one transaction: concurrent failures, on any
// instance, all count.
func (db *DB) RecordSignInFailure(ctx context.Context, key string, at, forgetBefore time.Time, lock func(failures int) time.Duration) (signin.Failures, error) {
	var f signin.Failures
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		if _, err := c.Exec(ctx, `DELETE FROM sign_in_failures WHERE email_key = $1 AND updated_at < $2`, key, forgetBefore); err != nil {
			return err
		}
		err := c.QueryRow(ctx, `INSERT INTO sign_in_failures (email_key, failures, updated_at) VALUES ($1, 1, $2)
			ON CONFLICT (email_key) DO UPDATE SET failures = sign_in_failures.failures + 1, updated_at = $2
			RETURNING failures`, key, at).Scan(&f.Failures)
		if err != nil {
			return err
		}
		var until sql.NullTime
		if d := lock(f.Failures); d > 0 {
			f.LockedUntil = vitrine.Timestamp(at.Add(d))
			until = sql.NullTime{Time: f.LockedUntil, Valid: true}
		}
		_, err = c.Exec(ctx, `UPDATE sign_in_failures SET locked_until = $1 WHERE email_key = $2`, until, key)
		return err
	})
	if err != nil {
		return f, fmt.Errorf("record sign-in failure: %w", err)
	}
	if f.Failures == 1 {
		// A new row: the table grows by one key, so let it shed the keys
		// nobody tried for a while (emails made up by a password sprayer).
		err = db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
			_, err := c.Exec(ctx, `DELETE FROM sign_in_failures WHERE updated_at < $1`, forgetBefore)
			return err
		})
		if err != nil {
			db.log.Warn("forget old sign-in failures", "err", err)
		}
	}
	return f, nil
}

// ClearSignInFailures forgets the failures of key.
func (db *DB) ClearSignInFailures(ctx context.Context, key string) error {
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		_, err := c.Exec(ctx, `DELETE FROM sign_in_failures WHERE email_key = $1`, key)
		return err
	})
	if err != nil {
		return fmt.Errorf("clear sign-in failures: %w", err)
	}
	return nil
}

// CreatePasswordLink stores a link and deletes its user's older unused
// links, in one transaction: only the newest link works.
func (db *DB) CreatePasswordLink(ctx context.Context, l *signin.PasswordLink) error {
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		if _, err := c.Exec(ctx, `DELETE FROM password_links WHERE user_id = $1 AND used_at IS NULL`, l.UserID); err != nil {
			return err
		}
		_, err := c.Exec(ctx, `INSERT INTO password_links (id, user_id, hash, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)`,
			l.ID, l.UserID, l.Hash, l.ExpiresAt, l.CreatedAt)
		return err
	})
	if err != nil {
		return fmt.Errorf("create password link: %w", err)
	}
	return nil
}

// PasswordLink returns the link with that hash, if unused and unexpired at
// now, with its user.
func (db *DB) PasswordLink(ctx context.Context, hash []byte, now time.Time) (*signin.PasswordLink, *vitrine.User, error) {
	var (
		l signin.PasswordLink
		u vitrine.User
	)
	err := db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		return c.QueryRow(ctx, `SELECT l.id, l.user_id, l.hash, l.expires_at, l.created_at,
				u.id, u.email, u.name, COALESCE(u.subject, ''), u.disabled, u.created_at, u.updated_at
			FROM password_links l JOIN users u ON u.id = l.user_id
			WHERE l.hash = $1 AND l.used_at IS NULL AND l.expires_at > $2`, hash, now).
			Scan(&l.ID, &l.UserID, &l.Hash, &l.ExpiresAt, &l.CreatedAt,
				&u.ID, &u.Email, &u.Name, &u.Subject, &u.Disabled, &u.CreatedAt, &u.UpdatedAt)
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, nil, vitrine.NotFound("Password link")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("get password link: %w", err)
	}
	return &l, &u, nil
}

// RedeemPasswordLink uses up the link with that hash and sets its user's
// password, in one transaction; a link used (or expired) meanwhile is
// NotFoundError, and changes nothing.
func (db *DB) RedeemPasswordLink(ctx context.Context, hash []byte, passwordHash string, at time.Time) (*vitrine.User, error) {
	var u *vitrine.User
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		var userID string
		err := c.QueryRow(ctx, `UPDATE password_links SET used_at = $1
			WHERE hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING user_id`, at, hash).Scan(&userID)
		if err != nil {
			return err
		}
		if _, err := setPassword(ctx, c, userID, passwordHash, at); err != nil {
			return err
		}
		u, err = scanUser(c.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, userID))
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, vitrine.NotFound("Password link")
	}
	if err != nil {
		return nil, fmt.Errorf("redeem password link: %w", err)
	}
	return u, nil
}
