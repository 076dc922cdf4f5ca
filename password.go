package vitrine

import (
	"strings"
	"time"
	"unicode/utf8"
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
		return Invalid(field, "%s must be valid UTF-8", field)
	}
	n := utf8.RuneCountInString(password)
	if n < MinPasswordLen {
		return Invalid(field, "%s is %d characters long; it needs at least %d", field, n, MinPasswordLen)
	}
	if n > MaxPasswordLen {
		return Invalid(field, "%s is %d characters long; the limit is %d", field, n, MaxPasswordLen)
	}
	if strings.EqualFold(strings.TrimSpace(password), strings.TrimSpace(email)) {
		return Invalid(field, "%s must not be the email address", field)
	}
	return nil
}

// SignInFailures are the failed sign-ins in a row counted for one email
// (by its key), whether or not a user has it.
type SignInFailures struct {
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
	UsedAt    *time.Time
	CreatedAt time.Time
}
