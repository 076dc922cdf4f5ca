package service

import (
	"context"
	"fmt"
	"time"

	"github.com/vitrine/vitrine"
)

// The operator's operations: what the vitrine CLI does with direct access
// to the database, outside any tenant's permissions.

// CreateUser adds a user.
func (s *Service) CreateUser(ctx context.Context, email, name string) (*vitrine.User, error) {
	addr, _, err := vitrine.NormalizeEmail("email", email)
	if err != nil {
		return nil, err
	}
	if name, err = vitrine.ValidateName("name", name, 200); err != nil {
		return nil, err
	}
	now := s.now()
	u := &vitrine.User{ID: vitrine.NewID(), Email: addr, Name: name, CreatedAt: now, UpdatedAt: now}
	if err := s.store.CreateUser(ctx, u); err != nil {
		return nil, err
	}
	return u, nil
}

// userByEmail finds a user, naming field in the NotFoundError.
func (s *Service) userByEmail(ctx context.Context, field, email string) (*vitrine.User, error) {
	addr, _, err := vitrine.NormalizeEmail(field, email)
	if err != nil {
		return nil, err
	}
	u, err := s.store.UserByEmail(ctx, addr)
	if vitrine.TypeOf(err) == vitrine.NotFoundError {
		return nil, &vitrine.Error{Type: vitrine.NotFoundError, Field: field, Message: fmt.Sprintf("User not found: no user has the email %q", addr)}
	}
	return u, err
}

// CreateTenant creates a tenant whose first owner is the user with the
// given email. Without a slug, one is derived from the name.
func (s *Service) CreateTenant(ctx context.Context, name, slug, ownerEmail string) (*vitrine.Tenant, error) {
	name, err := vitrine.ValidateName("name", name, 200)
	if err != nil {
		return nil, err
	}
	owner, err := s.userByEmail(ctx, "owner", ownerEmail)
	if err != nil {
		return nil, err
	}
	return s.createTenant(ctx, name, slug, owner.ID)
}

// createTenant stores a tenant with its owner. A derived slug that is taken
// gets a numbered suffix; a slug the user chose is theirs or a conflict.
func (s *Service) createTenant(ctx context.Context, name, slug, ownerID string) (*vitrine.Tenant, error) {
	derived := slug == ""
	if derived {
		slug = vitrine.Slugify(name)
	} else {
		var err error
		if slug, err = vitrine.ValidateSlug("slug", slug); err != nil {
			return nil, err
		}
	}
	base := slug
	for n := 2; ; n++ {
		now := s.now()
		t := &vitrine.Tenant{ID: vitrine.NewID(), Name: name, Slug: slug, CreatedAt: now, UpdatedAt: now}
		m := &vitrine.Membership{ID: vitrine.NewID(), TenantID: t.ID, UserID: ownerID, Role: vitrine.RoleOwner,
			Status: vitrine.MembershipActive, CreatedAt: now, UpdatedAt: now}
		err := s.store.CreateTenant(ctx, t, m)
		if derived && vitrine.TypeOf(err) == vitrine.ConflictError && n < 100 {
			suffix := fmt.Sprintf("-%d", n)
			slug = base[:min(len(base), 63-len(suffix))] + suffix
			continue
		}
		if err != nil {
			return nil, err
		}
		return t, nil
	}
}

// tenantByRef finds a tenant by id or by slug.
func (s *Service) tenantByRef(ctx context.Context, ref string) (*vitrine.Tenant, error) {
	if vitrine.ValidID(ref) {
		if t, err := s.store.TenantByID(ctx, ref); vitrine.TypeOf(err) != vitrine.NotFoundError {
			return t, err
		}
	}
	t, err := s.store.TenantBySlug(ctx, ref)
	if vitrine.TypeOf(err) == vitrine.NotFoundError {
		return nil, &vitrine.Error{Type: vitrine.NotFoundError, Field: "tenant", Message: fmt.Sprintf("Tenant not found: no company has the id or slug %q", ref)}
	}
	return t, err
}

// AddMember gives the user with that email a membership in the tenant
// (named by id or slug), with a role and a status.
func (s *Service) AddMember(ctx context.Context, tenantRef, email, role, status string) (*vitrine.Membership, error) {
	t, err := s.tenantByRef(ctx, tenantRef)
	if err != nil {
		return nil, err
	}
	u, err := s.userByEmail(ctx, "email", email)
	if err != nil {
		return nil, err
	}
	r, ok := vitrine.BuiltinRole(role)
	if !ok {
		return nil, vitrine.Invalid("role", "role must be one of owner, admin, member or viewer; got %q", role)
	}
	st, err := parseMembershipStatus(status)
	if err != nil {
		return nil, err
	}
	now := s.now()
	m := &vitrine.Membership{ID: vitrine.NewID(), TenantID: t.ID, UserID: u.ID, Role: r.Name, Status: st, RolePermissions: r.Permissions, CreatedAt: now, UpdatedAt: now}
	if err := s.store.CreateMembership(ctx, m); err != nil {
		return nil, err
	}
	return m, nil
}

func parseMembershipStatus(s string) (vitrine.MembershipStatus, error) {
	switch vitrine.MembershipStatus(s) {
	case "", vitrine.MembershipActive:
		return vitrine.MembershipActive, nil
	case vitrine.MembershipInactive:
		return vitrine.MembershipInactive, nil
	}
	return "", vitrine.Invalid("status", "status must be \"active\" or \"inactive\"; got %q", s)
}

// NewToken describes a token to create.
type NewToken struct {
	Email    string
	Name     string
	ReadOnly bool
	// ExpiresAt, when set, must be in the future.
	ExpiresAt *time.Time
}

// CreateToken creates a personal access token and returns it with its
// secret, which is shown this once and never stored.
func (s *Service) CreateToken(ctx context.Context, in NewToken) (*vitrine.Token, string, error) {
	u, err := s.userByEmail(ctx, "email", in.Email)
	if err != nil {
		return nil, "", err
	}
	name, err := vitrine.ValidateName("name", in.Name, 100)
	if err != nil {
		return nil, "", err
	}
	now := s.now()
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
		ReadOnly: in.ReadOnly, ExpiresAt: in.ExpiresAt, CreatedAt: now}
	if err := s.store.CreateToken(ctx, t); err != nil {
		return nil, "", err
	}
	return t, secret, nil
}

// EnsureTenant returns the tenant with that slug, creating it with its
// owner when there is none; created says which.
func (s *Service) EnsureTenant(ctx context.Context, name, slug, ownerEmail string) (t *vitrine.Tenant, created bool, err error) {
	t, err = s.store.TenantBySlug(ctx, slug)
	if vitrine.TypeOf(err) != vitrine.NotFoundError {
		return t, false, err
	}
	t, err = s.CreateTenant(ctx, name, slug, ownerEmail)
	return t, err == nil, err
}

// ActAs returns the user with that email as a caller without a token: the
// operator acting in their name, as the CLI's catalog commands do. Their
// memberships and permissions still apply.
func (s *Service) ActAs(ctx context.Context, email string) (*vitrine.Caller, error) {
	u, err := s.userByEmail(ctx, "as", email)
	if err != nil {
		return nil, err
	}
	return &vitrine.Caller{User: *u}, nil
}
