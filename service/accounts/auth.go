package accounts

import (
	"context"
	"strings"
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
// (What it reads of the token and user, it may find in the token cache,
// which holds only while nothing of them has changed: cache.go.)
func (a *Accounts) Authenticate(ctx context.Context, secret string) (*vitrine.Caller, error) {
	prefix, ok := vitrine.TokenLookupPrefix(secret)
	if !ok {
		return nil, ErrUnauthenticated
	}
	epoch, err := a.store.AccessEpoch(ctx)
	if err != nil {
		return nil, err
	}
	t, u, ok := a.cache.token(epoch, prefix)
	if !ok {
		st, su, err := a.store.TokenByPrefix(ctx, prefix)
		if vitrine.TypeOf(err) == vitrine.NotFoundError {
			return nil, ErrUnauthenticated
		}
		if err != nil {
			return nil, err
		}
		t, u = *st, *su
		a.cache.putToken(epoch, prefix, t, u)
	}
	return a.admit(secret, prefix, t, u, epoch)
}

// AuthenticateCached is Authenticate without reading the access epoch: it
// admits a token by what is cached of it under the newest epoch this
// instance has read. It returns nil when the token is not cached, or what
// is cached of it would refuse it (the user may have been enabled since):
// ask Authenticate then. Its caller may act only in calls that check the
// epoch in their own first unit of work (vitrine.EpochStore), as
// mcpserver's pipeline does: the caller's AccessEpoch is the one to check.
func (a *Accounts) AuthenticateCached(secret string) *vitrine.Caller {
	prefix, ok := vitrine.TokenLookupPrefix(secret)
	if !ok {
		return nil
	}
	t, u, epoch, ok := a.cache.current(prefix)
	if !ok {
		return nil
	}
	c, err := a.admit(secret, prefix, t, u, epoch)
	if err != nil {
		return nil
	}
	return c
}

// admit checks a presented secret against the token stored under its
// prefix, read under epoch, and returns its caller.
func (a *Accounts) admit(secret, prefix string, t vitrine.Token, u vitrine.User, epoch int64) (*vitrine.Caller, error) {
	now := a.now()
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
		a.touch(t.ID, now)
		a.cache.used(prefix, now)
	}
	return &vitrine.Caller{User: u, Token: t, AccessEpoch: epoch}, nil
}

// touch records a token's use in the background: it is bookkeeping, and
// must neither delay nor refuse a request when the database is busy.
func (a *Accounts) touch(id string, at time.Time) {
	if _, busy := a.touching.LoadOrStore(id, true); busy {
		return
	}
	go func() {
		defer a.touching.Delete(id)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := a.store.TouchToken(ctx, id, at); err != nil {
			a.log.Warn("record token use", "token_id", id, "err", err)
		}
	}()
}

// Identity is a user as an external authorization server vouches for them
// (a verified OAuth access token, or an introspected opaque one).
type Identity struct {
	// Subject is the token's "sub": the user's id at the authorization
	// server, which an operator may link to a Vitrine user.
	Subject string
	// Email and EmailVerified are the token's "email" and
	// "email_verified"; an email names a user only when it is verified.
	Email         string
	EmailVerified bool
	// Name is the token's "name", for a user provisioned on first sign-in.
	Name string
	// SubjectOnly maps the identity by its linked subject alone, never by
	// email (vitrine serve --oauth-user-claim sub).
	SubjectOnly bool
	// ReadOnly narrows the caller to the tools that change nothing.
	ReadOnly bool
	// Toolsets are the toolsets the token's scopes grant.
	Toolsets  []string
	ExpiresAt time.Time
	// TokenID names the token in the audit log ("oauth:<jti>").
	TokenID string
}

// Provisioning lets a verified identity without a Vitrine user become one
// on first sign-in (just-in-time provisioning). The zero value provisions
// nobody.
type Provisioning struct {
	// Domains are the email domains (example.com) whose verified addresses
	// are given a user; the user belongs to no company until invited.
	Domains []string
}

func (p Provisioning) allows(email string) bool {
	_, domain, ok := strings.Cut(email, "@")
	if !ok {
		return false
	}
	for _, d := range p.Domains {
		if strings.EqualFold(strings.TrimPrefix(d, "@"), domain) {
			return true
		}
	}
	return false
}

// errUnverified refuses an identity that could only be matched by an email
// its authorization server has not verified: anyone may put any address on
// an account at some providers.
var errUnverified = &AuthError{Reason: "the access token's email is not verified (email_verified is not true): " +
	"verify the address at the identity provider, or link the user's subject (vitrine user update --subject)"}

// AuthenticateIdentity resolves a verified external identity to its
// caller: the Vitrine user linked to its subject, else (unless the
// identity is to be matched by subject alone) the user with its verified
// email, else, when prov allows the email's domain, a new user with no
// membership. The user's memberships stay the authority on what they may do.
func (a *Accounts) AuthenticateIdentity(ctx context.Context, id Identity, prov Provisioning) (*vitrine.Caller, error) {
	epoch, err := a.store.AccessEpoch(ctx)
	if err != nil {
		return nil, err
	}
	u, err := a.identityUser(ctx, id, prov)
	if err != nil {
		return nil, err
	}
	if u.Disabled {
		return nil, &AuthError{Reason: "the user is disabled"}
	}
	exp := id.ExpiresAt
	return &vitrine.Caller{User: *u, Token: vitrine.Token{ID: id.TokenID, UserID: u.ID, Name: "OAuth access token",
		ReadOnly: id.ReadOnly, Toolsets: id.Toolsets, OAuth: true, ExpiresAt: &exp}, AccessEpoch: epoch}, nil
}

func (a *Accounts) identityUser(ctx context.Context, id Identity, prov Provisioning) (*vitrine.User, error) {
	if id.Subject != "" {
		u, err := a.store.UserBySubject(ctx, id.Subject)
		if vitrine.TypeOf(err) != vitrine.NotFoundError {
			return u, err
		}
	}
	switch {
	case id.SubjectOnly:
		return nil, &AuthError{Reason: "no Vitrine user is linked to the access token's subject (sub): link one with vitrine user update --subject"}
	case id.Email == "":
		return nil, &AuthError{Reason: "the access token has no email claim and its subject (sub) is linked to no Vitrine user"}
	case !id.EmailVerified:
		return nil, errUnverified
	}
	u, err := a.store.UserByEmail(ctx, id.Email)
	if vitrine.TypeOf(err) != vitrine.NotFoundError {
		return u, err
	}
	if !prov.allows(id.Email) {
		return nil, &AuthError{Reason: "no Vitrine user has the access token's email"}
	}
	name, err := vitrine.ValidateName("name", id.Name, 200)
	if err != nil {
		name, _, _ = strings.Cut(id.Email, "@")
	}
	u, err = a.Operator().CreateUser(ctx, id.Email, name)
	switch vitrine.TypeOf(err) {
	case vitrine.ValidationError:
		return nil, &AuthError{Reason: "the access token's email is not an address Vitrine can use"}
	case vitrine.ConflictError:
		// Another request provisioned them first.
		return a.store.UserByEmail(ctx, id.Email)
	}
	if err != nil {
		return nil, err
	}
	a.log.Info("provisioned a user on first sign-in", "user_id", u.ID, "email", u.Email)
	return u, nil
}
