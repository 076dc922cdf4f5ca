package vitrine

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"strings"
	"time"
)

// TokenPrefix starts every personal access token, so that secret scanners can
// recognise a leaked one.
const TokenPrefix = "vtr_"

// MaxPersonalTokens bounds the personal tokens a user holds that are
// neither revoked nor expired: each has its own rate limit, so tokens
// without end would be a rate without end.
const MaxPersonalTokens = 100

// tokenLookupLen is the number of characters after TokenPrefix that are
// stored in clear as the token's lookup key and display prefix.
const tokenLookupLen = 8

// Token is a user's personal access token. Only a hash of the secret is
// stored; the secret itself is shown once, at creation.
type Token struct {
	ID     string
	UserID string
	Name   string
	// Prefix is the start of the secret ("vtr_AbCd1234"): it finds the token
	// and lets people tell their tokens apart.
	Prefix   string
	Hash     []byte
	ReadOnly bool
	// Toolsets are the toolsets the token grants (Toolset names, in
	// listing order): its holder lists and calls their tools only.
	Toolsets []string
	// OAuth marks a token an OAuth authorization server issued (Vitrine's
	// own, or the external one): its client can ask the person for more
	// (step-up authorization). A personal token cannot; a new one must be
	// made.
	OAuth      bool
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
	CreatedAt  time.Time
}

// Usable reports whether the token may authenticate at time now.
func (t *Token) Usable(now time.Time) bool {
	return t.RevokedAt == nil && (t.ExpiresAt == nil || now.Before(*t.ExpiresAt))
}

// NewTokenSecret returns a new random secret: the prefix and 40 base62
// characters (238 bits).
func NewTokenSecret() string {
	return TokenPrefix + base62(40)
}

func base62(n int) string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := make([]byte, n)
	buf := make([]byte, 1)
	for i := 0; i < n; {
		rand.Read(buf)
		// 248 = 4*62: reject the rest so every character is equally likely.
		if buf[0] < 248 {
			b[i] = alphabet[buf[0]%62]
			i++
		}
	}
	return string(b)
}

// HashToken returns the digest a token is stored by. The secret has 238 bits
// of entropy, so a fast hash is enough: there is nothing to brute-force.
func HashToken(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// TokenLookupPrefix returns the stored prefix of a presented secret, or false
// when the secret does not have a token's shape.
func TokenLookupPrefix(secret string) (string, bool) {
	if !strings.HasPrefix(secret, TokenPrefix) || len(secret) != len(TokenPrefix)+40 {
		return "", false
	}
	return secret[:len(TokenPrefix)+tokenLookupLen], true
}

// Matches compares a presented secret with the stored hash in constant time.
func (t *Token) Matches(secret string) bool {
	return subtle.ConstantTimeCompare(t.Hash, HashToken(secret)) == 1
}

// Caller is the authenticated user on whose behalf a request runs, and the
// token it presented.
type Caller struct {
	User  User
	Token Token
	// AccessEpoch is the database's access epoch (Store.AccessEpoch) read
	// when the caller was authenticated, under which what is cached of
	// their access holds; 0 when it was not read, and nothing cached is used.
	AccessEpoch int64
	// Call is the call the caller makes, which the adapter gives each call
	// its own copy of the caller to carry; zero outside any (the operator's
	// commands). Read-only, as all of the caller.
	Call Call
}

// ReadOnly reports whether the caller may only read.
func (c *Caller) ReadOnly() bool { return c.Token.ReadOnly }
