package accounts

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
)

// CreateUser adds a user.
func (o *Operator) CreateUser(ctx context.Context, email, name string) (*vitrine.User, error) {
	addr, _, err := vitrine.NormalizeEmail("email", email)
	if err != nil {
		return nil, err
	}
	if name, err = vitrine.ValidateName("name", name, 200); err != nil {
		return nil, err
	}
	now := o.a.now()
	u := &vitrine.User{ID: vitrine.NewID(), Email: addr, Name: name, CreatedAt: now, UpdatedAt: now}
	if err := o.a.store.CreateUser(ctx, u); err != nil {
		return nil, err
	}
	return u, nil
}

// User finds a user by email, naming field in the NotFoundError.
func (o *Operator) User(ctx context.Context, field, email string) (*vitrine.User, error) {
	addr, _, err := vitrine.NormalizeEmail(field, email)
	if err != nil {
		return nil, err
	}
	u, err := o.a.store.UserByEmail(ctx, addr)
	if vitrine.TypeOf(err) == vitrine.NotFoundError {
		return nil, &vitrine.Error{Type: vitrine.NotFoundError, Field: field, Message: fmt.Sprintf("User not found: no user has the email %q", addr)}
	}
	return u, err
}

// ListUsers returns up to limit users after the email after.
func (o *Operator) ListUsers(ctx context.Context, after string, limit int) ([]*vitrine.User, error) {
	_, key, _ := vitrine.NormalizeEmail("email", after)
	return o.a.store.ListUsers(ctx, key, limit)
}

// NewToken describes a token to create.
type NewToken struct {
	Email    string
	Name     string
	ReadOnly bool
	// Toolsets are the toolsets it grants (vitrine.Toolsets names); nil
	// grants the default ones.
	Toolsets []string
	// ExpiresAt, when set, must be in the future.
	ExpiresAt *time.Time
}

// CreateToken creates a personal access token and returns it with its
// secret, which is shown this once and never stored.
func (o *Operator) CreateToken(ctx context.Context, in NewToken) (*vitrine.Token, string, error) {
	u, err := o.User(ctx, "email", in.Email)
	if err != nil {
		return nil, "", err
	}
	name, err := vitrine.ValidateName("name", in.Name, 100)
	if err != nil {
		return nil, "", err
	}
	toolsets := vitrine.DefaultToolsets()
	if in.Toolsets != nil {
		if toolsets, err = vitrine.ParseToolsets("toolsets", in.Toolsets); err != nil {
			return nil, "", err
		}
		if len(toolsets) == 0 {
			return nil, "", vitrine.Invalid("toolsets", "a token grants one toolset at least; the toolsets are %s", strings.Join(vitrine.ToolsetNames(), ", "))
		}
	}
	now := o.a.now()
	if in.ExpiresAt != nil {
		exp := vitrine.Timestamp(*in.ExpiresAt)
		if !exp.After(now) {
			return nil, "", vitrine.Invalid("expires", "the expiry must be in the future")
		}
		in.ExpiresAt = &exp
	}
	secret := vitrine.NewTokenSecret()
	prefix, _ := vitrine.TokenLookupPrefix(secret)
	t := &vitrine.Token{ID: vitrine.NewID(), UserID: u.ID, Name: name, Prefix: prefix, Hash: vitrine.HashToken(secret),
		ReadOnly: in.ReadOnly, Toolsets: toolsets, ExpiresAt: in.ExpiresAt, CreatedAt: now}
	if err := o.a.store.CreateToken(ctx, t); err != nil {
		return nil, "", err
	}
	return t, secret, nil
}

// ListTokens returns the tokens of the user with that email, newest first.
func (o *Operator) ListTokens(ctx context.Context, email string) ([]*vitrine.Token, error) {
	u, err := o.User(ctx, "email", email)
	if err != nil {
		return nil, err
	}
	return o.a.store.TokensOfUser(ctx, u.ID)
}

// RevokeToken revokes a token by id. It is refused from the very next
// request on, by every instance: tokens are checked on every request.
func (o *Operator) RevokeToken(ctx context.Context, id string) (*vitrine.Token, error) {
	t, err := o.a.store.RevokeToken(ctx, id, o.a.now())
	if vitrine.TypeOf(err) == vitrine.NotFoundError {
		return nil, &vitrine.Error{Type: vitrine.NotFoundError, Field: "id", Message: fmt.Sprintf("Token not found: no token has the id %q (vitrine token list shows them)", id)}
	}
	return t, err
}

// UserChanges holds what user update may change; nil leaves it alone.
type UserChanges struct {
	Name     *string
	Subject  *string // "" unlinks
	Disabled *bool
}

// UpdateUser changes a user. A disabled user's tokens are refused from the
// next request on.
func (o *Operator) UpdateUser(ctx context.Context, email string, ch UserChanges) (*vitrine.User, error) {
	u, err := o.User(ctx, "email", email)
	if err != nil {
		return nil, err
	}
	if ch.Name != nil {
		if u.Name, err = vitrine.ValidateName("name", *ch.Name, 200); err != nil {
			return nil, err
		}
	}
	if ch.Subject != nil {
		s := strings.TrimSpace(*ch.Subject)
		if len(s) > 255 {
			return nil, vitrine.Invalid("subject", "subject is longer than 255 characters")
		}
		u.Subject = s
	}
	if ch.Disabled != nil {
		u.Disabled = *ch.Disabled
	}
	u.UpdatedAt = o.a.now()
	if err := o.a.store.UpdateUser(ctx, u); err != nil {
		return nil, err
	}
	return u, nil
}
