package service

import (
	"context"
	"errors"
	"time"

	"github.com/vitrine/vitrine"
)

// AuthError says why a presented token was refused. It is not a tool error:
// HTTP answers it with 401, stdio stops at start.
type AuthError struct{ Reason string }

func (e *AuthError) Error() string { return "unauthenticated: " + e.Reason }

// ErrUnauthenticated is the refusal of a missing or unknown token.
var ErrUnauthenticated = &AuthError{Reason: "the token is missing or unknown"}

// Authenticate resolves a presented token to its caller. It refuses, with
// an *AuthError, a token that is unknown, revoked or expired, or whose user
// is disabled; it checks every time, so a revocation takes effect at once.
// (What it reads of the token and user, it may find in the access cache,
// which holds only while nothing of them has changed.)
func (s *Service) Authenticate(ctx context.Context, secret string) (*vitrine.Caller, error) {
	prefix, ok := vitrine.TokenLookupPrefix(secret)
	if !ok {
		return nil, ErrUnauthenticated
	}
	epoch, err := s.store.AccessEpoch(ctx)
	if err != nil {
		return nil, err
	}
	t, u, ok := s.cache.token(epoch, prefix)
	if !ok {
		st, su, err := s.store.TokenByPrefix(ctx, prefix)
		if vitrine.TypeOf(err) == vitrine.NotFoundError {
			return nil, ErrUnauthenticated
		}
		if err != nil {
			return nil, err
		}
		t, u = *st, *su
		s.cache.putToken(epoch, prefix, t, u)
	}
	now := s.now()
	switch {
	case !t.Matches(secret):
		return nil, ErrUnauthenticated
	case t.RevokedAt != nil:
		return nil, &AuthError{Reason: "the token was revoked"}
	case !t.Usable(now):
		return nil, &AuthError{Reason: "the token expired"}
	case u.Disabled:
		return nil, &AuthError{Reason: "the user is disabled"}
	}
	if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) >= time.Minute {
		s.touch(t.ID, now)
		s.cache.used(prefix, now)
	}
	return &vitrine.Caller{User: u, Token: t, AccessEpoch: epoch}, nil
}

// touch records a token's use in the background: it is bookkeeping, and
// must neither delay nor refuse a request when the database is busy.
func (s *Service) touch(id string, at time.Time) {
	if _, busy := s.touching.LoadOrStore(id, true); busy {
		return
	}
	go func() {
		defer s.touching.Delete(id)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.store.TouchToken(ctx, id, at); err != nil {
			s.log.Warn("record token use", "token_id", id, "err", err)
		}
	}()
}

// IsAuthError reports whether err is a refused authentication.
func IsAuthError(err error) bool {
	var ae *AuthError
	return errors.As(err, &ae)
}

// Identity is a user as an external authorization server vouches for them
// (a verified OAuth access token).
type Identity struct {
	// Claim names what Value is: "email", or "sub" for a linked subject.
	Claim, Value string
	// ReadOnly narrows the caller to the tools that change nothing.
	ReadOnly  bool
	ExpiresAt time.Time
	// TokenID names the token in the audit log ("oauth:<jti>").
	TokenID string
}

// AuthenticateIdentity resolves a verified external identity to its
// caller: the Vitrine user with that email, or linked to that subject. The
// user's memberships stay the authority on what they may do.
func (s *Service) AuthenticateIdentity(ctx context.Context, id Identity) (*vitrine.Caller, error) {
	epoch, err := s.store.AccessEpoch(ctx)
	if err != nil {
		return nil, err
	}
	var u *vitrine.User
	switch id.Claim {
	case "sub":
		u, err = s.store.UserBySubject(ctx, id.Value)
	default:
		u, err = s.store.UserByEmail(ctx, id.Value)
	}
	if vitrine.TypeOf(err) == vitrine.NotFoundError {
		return nil, &AuthError{Reason: "no Vitrine user has this identity (" + id.Claim + ")"}
	}
	if err != nil {
		return nil, err
	}
	if u.Disabled {
		return nil, &AuthError{Reason: "the user is disabled"}
	}
	exp := id.ExpiresAt
	return &vitrine.Caller{User: *u, Token: vitrine.Token{ID: id.TokenID, UserID: u.ID, Name: "OAuth access token",
		ReadOnly: id.ReadOnly, ExpiresAt: &exp}, AccessEpoch: epoch}, nil
}
