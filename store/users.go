package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

const userColumns = `id, email, name, COALESCE(subject, ''), disabled, created_at, updated_at`

func scanUser(r sqldb.Row) (*vitrine.User, error) { return scanUserWith(r) }

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// CreateUser stores a new user; a taken email is a ConflictError.
func (db *DB) CreateUser(ctx context.Context, u *vitrine.User) error {
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		_, err := c.Exec(ctx, `INSERT INTO users (id, email, email_key, name, subject, disabled, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			u.ID, u.Email, emailKey(u.Email), u.Name, nullString(u.Subject), u.Disabled, u.CreatedAt, u.UpdatedAt)
		return err
	})
	if name, ok := db.d.Constraint(err); ok && name == "users_email_key" {
		return vitrine.Conflict("email", "A user with email %q already exists", u.Email)
	}
	if err != nil {
		return fmt.Errorf("create user: %w", err)
	}
	return nil
}

// UserByID returns a user, or NotFoundError.
func (db *DB) UserByID(ctx context.Context, id string) (*vitrine.User, error) {
	if !validIDs(id) {
		return nil, vitrine.NotFound("User")
	}
	return db.user(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id)
}

// UserByEmail returns the user with that email, compared without case.
func (db *DB) UserByEmail(ctx context.Context, email string) (*vitrine.User, error) {
	return db.user(ctx, `SELECT `+userColumns+` FROM users WHERE email_key = $1`, emailKey(email))
}

// UserBySubject returns the user linked to an OAuth subject.
func (db *DB) UserBySubject(ctx context.Context, subject string) (*vitrine.User, error) {
	return db.user(ctx, `SELECT `+userColumns+` FROM users WHERE subject = $1`, subject)
}

// UpdateUser writes a user's name, subject and disabled flag; a subject
// linked to another user is a ConflictError. A disabled user's browser
// sessions end.
func (db *DB) UpdateUser(ctx context.Context, u *vitrine.User) error {
	if !validIDs(u.ID) {
		return vitrine.NotFound("User")
	}
	var n int64
	err := db.d.Write(ctx, sqldb.Scope{}, func(c sqldb.Conn) (err error) {
		n, err = c.Exec(ctx, `UPDATE users SET name = $1, subject = $2, disabled = $3, updated_at = $4 WHERE id = $5`,
			u.Name, nullString(u.Subject), u.Disabled, u.UpdatedAt, u.ID)
		if err != nil || n == 0 || !u.Disabled {
			return err
		}
		// Disabled: signed out of every browser, so that enabling them
		// again brings back no session of before.
		return endWebSessions(ctx, c, u.ID)
	})
	if name, ok := db.d.Constraint(err); ok && name == "users_subject_key" {
		return vitrine.Conflict("subject", "Another user is linked to the subject %q", u.Subject)
	}
	if err != nil {
		return fmt.Errorf("update user: %w", err)
	}
	if n == 0 {
		return vitrine.NotFound("User")
	}
	return nil
}

func (db *DB) user(ctx context.Context, query string, arg string) (*vitrine.User, error) {
	var u *vitrine.User
	err := db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) (err error) {
		u, err = scanUser(c.QueryRow(ctx, query, arg))
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, vitrine.NotFound("User")
	}
	if err != nil {
		return nil, fmt.Errorf("get user: %w", err)
	}
	return u, nil
}

func emailKey(email string) string {
	_, key, err := vitrine.NormalizeEmail("email", email)
	if err != nil {
		return email
	}
	return key
}

// ListUsers returns up to limit users ordered by email, after the email key
// after.
func (db *DB) ListUsers(ctx context.Context, after string, limit int) ([]*vitrine.User, error) {
	var out []*vitrine.User
	err := db.d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, scanUser, `SELECT `+userColumns+` FROM users WHERE email_key > $1 ORDER BY email_key`+limitTo(`$2`), after, limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return out, nil
}
