package signin

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vitrine/vitrine"
)

// Password lengths, in characters.
const (
	MinPasswordLen = 12
	MaxPasswordLen = 256
)

// ValidatePassword checks a new password for the user with that email:
// between MinPasswordLen and MaxPasswordLen characters, and not the email
// itself. The ValidationError names field.
func ValidatePassword(field, password, email string) error {
	if !utf8.ValidString(password) {
		return vitrine.Invalid(field, "%s must be valid UTF-8", field)
	}
	n := utf8.RuneCountInString(password)
	if n < MinPasswordLen {
		return vitrine.Invalid(field, "%s is %d characters long; it needs at least %d", field, n, MinPasswordLen)
	}
	if n > MaxPasswordLen {
		return vitrine.Invalid(field, "%s is %d characters long; the limit is %d", field, n, MaxPasswordLen)
	}
	if strings.EqualFold(strings.TrimSpace(password), strings.TrimSpace(email)) {
		return vitrine.Invalid(field, "%s must not be the email address", field)
	}
	return nil
}

// Failures are the failed sign-ins in a row counted for one email
// (by its key), whether or not a user has it.
type Failures struct {
	Failures int
	// LockedUntil is when the email may try again; zero when it is not
	// locked.
	LockedUntil time.Time
}

// PasswordLink is a one-time link that lets a user set their password. Only
// the hash of its secret is stored.
type PasswordLink struct {
	ID        string
	UserID    string
	Hash      []byte
	ExpiresAt time.Time
	CreatedAt time.Time
}

// PasswordStore keeps what signing in with a password needs: users'
// password hashes, the failed sign-ins that lock an email out, and the
// one-time links that let a user set a password. None of it belongs to a
// tenant.
type PasswordStore interface {
	// UserPassword returns the user with that email and their password
	// hash, "" when they have none; NotFoundError when nobody has the email.
	UserPassword(ctx context.Context, email string) (*vitrine.User, string, error)
	// SetPassword stores a user's password hash, forgets the failed
	// sign-ins of their email and ends their browser sessions.
	SetPassword(ctx context.Context, userID, hash string, at time.Time) error
	// SignInFailures returns the failures counted for an email key; the
	// zero value when there are none.
	SignInFailures(ctx context.Context, key string) (Failures, error)
	// RecordSignInFailure counts one more failure for key at time at, and
	// locks the key until at + lock(failures), in one transaction. Failures
	// last recorded before forgetBefore are forgotten first.
	RecordSignInFailure(ctx context.Context, key string, at, forgetBefore time.Time, lock func(failures int) time.Duration) (Failures, error)
	// ClearSignInFailures forgets the failures of key.
	ClearSignInFailures(ctx context.Context, key string) error
	// CreatePasswordLink stores a link and deletes its user's older unused
	// links, in one transaction.
	CreatePasswordLink(ctx context.Context, l *PasswordLink) error
	// PasswordLink returns the link with that hash, if unused and
	// unexpired at now, with its user; else NotFoundError.
	PasswordLink(ctx context.Context, hash []byte, now time.Time) (*PasswordLink, *vitrine.User, error)
	// RedeemPasswordLink uses up the link with that hash, if unused and
	// unexpired at at, and sets its user's password hash (as
	// SetPassword), in one transaction; else NotFoundError.
	RedeemPasswordLink(ctx context.Context, hash []byte, passwordHash string, at time.Time) (*vitrine.User, error)
}
