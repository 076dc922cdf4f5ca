package vitrine

import (
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"
)

// User is a person who signs in. Email is unique, compared without case.
type User struct {
	ID    string
	Email string
	Name  string
	// Subject is the user's identity at an OAuth authorization server
	// (the "sub" claim), when one is linked.
	Subject   string
	Disabled  bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// NormalizeEmail validates an email address and returns it trimmed, and the
// key it is unique by.
func NormalizeEmail(field, email string) (addr, key string, err error) {
	email = strings.TrimSpace(email)
	if email == "" {
		return "", "", Invalid(field, "%s is required", field)
	}
	if len(email) > 254 {
		return "", "", Invalid(field, "%s is longer than 254 characters", field)
	}
	a, perr := mail.ParseAddress(email)
	if perr != nil || a.Address != email || !strings.Contains(email[strings.LastIndexByte(email, '@'):], ".") {
		return "", "", Invalid(field, "%s is not a valid email address: %q", field, email)
	}
	return email, strings.ToLower(email), nil
}

// ValidateName checks a display name: present, printable, at most max characters.
func ValidateName(field, name string, max int) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", Invalid(field, "%s must not be empty", field)
	}
	if !utf8.ValidString(name) {
		return "", Invalid(field, "%s must be valid UTF-8", field)
	}
	if n := utf8.RuneCountInString(name); n > max {
		return "", Invalid(field, "%s is %d characters long; the limit is %d", field, n, max)
	}
	for _, r := range name {
		if r < ' ' || r == 0x7f {
			return "", Invalid(field, "%s must not contain control characters", field)
		}
	}
	return name, nil
}
