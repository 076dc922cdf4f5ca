package service

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service/accounts"
)

// Operator does what the vitrine CLI does with direct access to the
// database: outside any tenant's permissions, but within the rules that
// keep the data whole (a tenant keeps an owner, emails and slugs stay
// unique). Its commands on users, tokens and passwords are the accounts'
// (accounts.Operator, embedded); those on tenants and memberships are
// here.
type Operator struct {
	*accounts.Operator
	s *Service
	// command is the operator's command, as the audit events of its
	// writes name it (Command); without one, the operator's writes leave
	// no event (the demo's data, the benchmark's fill).
	command string
}

// Command returns the operator running command ("vitrine member add"):
// each write it makes is audited as a call of the command, the operator
// its actor, in the company written (users and tokens, which are no
// company's, outside any: vitrine audit list --outside).
func (o *Operator) Command(command string) *Operator {
	c := *o
	c.command = command
	return &c
}

// change is the change of one write of the operator's command, about
// target (empty: what the write wrote).
func (o *Operator) change(target string) vitrine.Change {
	if o.command == "" {
		return vitrine.Change{Reason: "operator"}
	}
	call := vitrine.OperatorCall(o.command, target)
	return vitrine.Change{Call: call, Reason: call.Reason}
}

// access is the operator acting in a tenant, its writes the command's
// about target.
func (o *Operator) access(tenantID, target string) *Access {
	return &Access{TenantID: tenantID, operator: true, change: o.change(target)}
}

// recordOutside records the event of a write of the command outside any
// company (a user's, a token's), about target. It follows the write, in a
// transaction of its own: the accounts' writes take no Change.
func (o *Operator) recordOutside(ctx context.Context, target string) error {
	e := o.change(target).Event(vitrine.NoTenant, target)
	if e == nil {
		return nil
	}
	if err := o.s.store.AppendAudit(ctx, []*vitrine.AuditEvent{e}); err != nil {
		return fmt.Errorf("record the audit event of %s: %w", o.command, err)
	}
	return nil
}

// Operator returns the operator's side of the service.
func (s *Service) Operator() *Operator {
	return &Operator{Operator: s.accounts.Operator(), s: s}
}

// CreateTenant creates a tenant whose first owner is the user with the
// given email. Without a slug, one is derived from the name.
func (o *Operator) CreateTenant(ctx context.Context, name, slug, ownerEmail string) (*vitrine.Tenant, error) {
	return o.NewTenant(ctx, name, slug, "", ownerEmail)
}

// NewTenant is CreateTenant with the company's currency (default BRL).
func (o *Operator) NewTenant(ctx context.Context, name, slug, currency, ownerEmail string) (*vitrine.Tenant, error) {
	name, err := vitrine.ValidateName("name", name, 200)
	if err != nil {
		return nil, err
	}
	owner, err := o.User(ctx, "owner", ownerEmail)
	if err != nil {
		return nil, err
	}
	return o.s.createTenant(ctx, o.change(""), name, slug, currency, owner.ID)
}

// UpdateTenant changes a company's name, slug or currency, those given.
func (o *Operator) UpdateTenant(ctx context.Context, ref string, name, slug, currency *string) (*vitrine.Tenant, error) {
	t, err := o.Tenant(ctx, ref)
	if err != nil {
		return nil, err
	}
	if err := o.s.changeTenant(t, name, slug, currency); err != nil {
		return nil, err
	}
	if err := o.s.store.UpdateTenant(ctx, o.change(t.ID), t); err != nil {
		return nil, err
	}
	return t, nil
}

// EnsureTenant returns the tenant with that slug, creating it with its
// owner when there is none; created says which.
func (o *Operator) EnsureTenant(ctx context.Context, name, slug, ownerEmail string) (t *vitrine.Tenant, created bool, err error) {
	t, err = o.s.store.TenantBySlug(ctx, slug)
	if vitrine.TypeOf(err) != vitrine.NotFoundError {
		return t, false, err
	}
	t, err = o.CreateTenant(ctx, name, slug, ownerEmail)
	return t, err == nil, err
}

// Tenant finds a tenant by id or by slug.
func (o *Operator) Tenant(ctx context.Context, ref string) (*vitrine.Tenant, error) {
	if vitrine.ValidID(ref) {
		if t, err := o.s.store.TenantByID(ctx, ref); vitrine.TypeOf(err) != vitrine.NotFoundError {
			return t, err
		}
	}
	t, err := o.s.store.TenantBySlug(ctx, ref)
	if vitrine.TypeOf(err) == vitrine.NotFoundError {
		return nil, &vitrine.Error{Type: vitrine.NotFoundError, Field: "tenant", Message: fmt.Sprintf("Tenant not found: no company has the id or slug %q", ref)}
	}
	return t, err
}

// AddMember gives the user with that email a membership in the tenant
// (named by id or slug), with a role and a status.
func (o *Operator) AddMember(ctx context.Context, tenantRef, email, role, status string) (*vitrine.Member, error) {
	t, err := o.Tenant(ctx, tenantRef)
	if err != nil {
		return nil, err
	}
	u, err := o.User(ctx, "email", email)
	if err != nil {
		return nil, err
	}
	st, err := parseMembershipStatus(status)
	if err != nil {
		return nil, err
	}
	return o.s.addMember(ctx, o.access(t.ID, u.ID), t.ID, email, role, st)
}

// RoleNames lists the names of a company's roles: the built-in ones,
// then its own.
func (o *Operator) RoleNames(ctx context.Context, tenantRef string) ([]string, error) {
	t, err := o.Tenant(ctx, tenantRef)
	if err != nil {
		return nil, err
	}
	roles, err := o.s.Roles(ctx, o.access(t.ID, ""))
	if err != nil {
		return nil, err
	}
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = r.Name
	}
	return names, nil
}

// UpdateMember changes the role or status of a member, named by email.
func (o *Operator) UpdateMember(ctx context.Context, tenantRef, email string, ch MemberChanges) (*vitrine.Member, error) {
	t, u, err := o.tenantAndUser(ctx, tenantRef, email)
	if err != nil {
		return nil, err
	}
	return o.s.updateMember(ctx, o.access(t.ID, u.ID), t.ID, u.ID, ch)
}

// RemoveMember takes the user with that email out of the tenant.
func (o *Operator) RemoveMember(ctx context.Context, tenantRef, email string) error {
	t, u, err := o.tenantAndUser(ctx, tenantRef, email)
	if err != nil {
		return err
	}
	return o.s.removeMember(ctx, o.access(t.ID, u.ID), t.ID, u.ID)
}

func (o *Operator) tenantAndUser(ctx context.Context, tenantRef, email string) (*vitrine.Tenant, *vitrine.User, error) {
	t, err := o.Tenant(ctx, tenantRef)
	if err != nil {
		return nil, nil, err
	}
	u, err := o.User(ctx, "email", email)
	if err != nil {
		return nil, nil, err
	}
	return t, u, nil
}

// ListTenants returns up to limit tenants after the slug after.
func (o *Operator) ListTenants(ctx context.Context, after string, limit int) ([]*vitrine.Tenant, error) {
	return o.s.store.ListTenants(ctx, after, limit)
}

// ListAudit returns a page of a tenant's audit log; a nil tenant lists the
// events outside any tenant.
func (o *Operator) ListAudit(ctx context.Context, t *vitrine.Tenant, q AuditQuery) (*AuditPage, error) {
	id := vitrine.NoTenant
	if t != nil {
		id = t.ID
	}
	return o.s.listAudit(ctx, id, q)
}

// ActAs returns the user with that email as a caller without a token: the
// operator acting in their name, as the CLI's catalog commands do. Their
// memberships and permissions still apply. reason says why they write, on
// the stock movements their writes cause ("vitrine product import").
func (o *Operator) ActAs(ctx context.Context, email, reason string) (*vitrine.Caller, error) {
	u, err := o.User(ctx, "as", email)
	if err != nil {
		return nil, err
	}
	return &vitrine.Caller{User: *u, Call: vitrine.Call{Reason: reason}}, nil
}

// createTenant stores a tenant with its owner. A derived slug that is taken
// gets a numbered suffix; a slug the user chose is theirs or a conflict.
func (s *Service) createTenant(ctx context.Context, ch vitrine.Change, name, slug, currency, ownerID string) (*vitrine.Tenant, error) {
	currency, _, err := vitrine.NormalizeCurrency("currency", cmp.Or(currency, vitrine.DefaultCurrency))
	if err != nil {
		return nil, err
	}
	derived := slug == ""
	if derived {
		slug = vitrine.Slugify(name)
	} else {
		if slug, err = vitrine.ValidateSlug("slug", slug); err != nil {
			return nil, err
		}
	}
	base := slug
	for n := 2; ; n++ {
		now := s.now()
		t := &vitrine.Tenant{ID: vitrine.NewID(), Name: name, Slug: slug, Currency: currency, CreatedAt: now, UpdatedAt: now}
		m := &vitrine.Membership{ID: vitrine.NewID(), TenantID: t.ID, UserID: ownerID, Role: vitrine.RoleOwner,
			Status: vitrine.MembershipActive, CreatedAt: now, UpdatedAt: now}
		err := s.store.CreateTenant(ctx, ch, t, m)
		if derived && vitrine.TypeOf(err) == vitrine.ConflictError && n < 100 {
			// A random suffix, not a count: "-2" would tell the caller how
			// many companies of that name exist.
			suffix := "-" + randomSlugSuffix()
			slug = base[:min(len(base), 63-len(suffix))] + suffix
			continue
		}
		if err != nil {
			return nil, err
		}
		return t, nil
	}
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

// Actor returns who the operator's catalog commands act as in a tenant:
// the user with that email, or else the tenant's first active owner. The
// actor's memberships and permissions apply as in a tool call; reason is
// ActAs's.
func (o *Operator) Actor(ctx context.Context, tenantRef, email, reason string) (*Access, error) {
	t, err := o.Tenant(ctx, tenantRef)
	if err != nil {
		return nil, err
	}
	if email == "" {
		for after := (*vitrine.MemberKey)(nil); ; {
			ms, err := o.s.store.ListMembers(ctx, t.ID, after, 100)
			if err != nil {
				return nil, err
			}
			for _, m := range ms {
				if m.Role == vitrine.RoleOwner && m.Status == vitrine.MembershipActive {
					email = m.Email
					break
				}
			}
			if email != "" || len(ms) < 100 {
				break
			}
			last := ms[len(ms)-1]
			after = &vitrine.MemberKey{Email: emailKey(last.Email), UserID: last.UserID}
		}
	}
	caller, err := o.ActAs(ctx, email, reason)
	if err != nil {
		return nil, err
	}
	a, err := o.s.Access(ctx, caller, t.ID)
	if err != nil {
		return nil, fmt.Errorf("%s has no active membership in %s", email, tenantRef)
	}
	return a, nil
}

// randomSlugSuffix returns six random lowercase letters and digits.
func randomSlugSuffix() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 6)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// The operator's writes of users, tokens and passwords: the accounts'
// (accounts.Operator), each recorded outside any company once done.

// CreateUser creates a user (accounts.Operator.CreateUser).
func (o *Operator) CreateUser(ctx context.Context, email, name string) (*vitrine.User, error) {
	u, err := o.Operator.CreateUser(ctx, email, name)
	if err != nil {
		return nil, err
	}
	return u, o.recordOutside(ctx, u.ID)
}

// DeleteUser erases a person (accounts.Operator.DeleteUser); the event
// keeps their id alone.
func (o *Operator) DeleteUser(ctx context.Context, email string) (*vitrine.User, error) {
	u, err := o.Operator.DeleteUser(ctx, email)
	if err != nil {
		return nil, err
	}
	return u, o.recordOutside(ctx, u.ID)
}

// UpdateUser changes a user (accounts.Operator.UpdateUser).
func (o *Operator) UpdateUser(ctx context.Context, email string, ch accounts.UserChanges) (*vitrine.User, error) {
	u, err := o.Operator.UpdateUser(ctx, email, ch)
	if err != nil {
		return nil, err
	}
	return u, o.recordOutside(ctx, u.ID)
}

// CreateToken creates a personal access token (accounts.Operator.CreateToken).
func (o *Operator) CreateToken(ctx context.Context, in accounts.NewToken) (*vitrine.Token, string, error) {
	t, secret, err := o.Operator.CreateToken(ctx, in)
	if err != nil {
		return nil, "", err
	}
	return t, secret, o.recordOutside(ctx, t.ID)
}

// RevokeToken revokes a token (accounts.Operator.RevokeToken).
func (o *Operator) RevokeToken(ctx context.Context, id string) (*vitrine.Token, error) {
	t, err := o.Operator.RevokeToken(ctx, id)
	if err != nil {
		return nil, err
	}
	return t, o.recordOutside(ctx, t.ID)
}

// SetPassword sets a user's password (accounts.Operator.SetPassword).
func (o *Operator) SetPassword(ctx context.Context, email, password string) error {
	if err := o.Operator.SetPassword(ctx, email, password); err != nil {
		return err
	}
	u, err := o.User(ctx, "email", email)
	if err != nil {
		return err
	}
	return o.recordOutside(ctx, u.ID)
}

// CreatePasswordLink makes a user's one-time password link
// (accounts.Operator.CreatePasswordLink).
func (o *Operator) CreatePasswordLink(ctx context.Context, email string, ttl time.Duration) (string, time.Time, error) {
	secret, expires, err := o.Operator.CreatePasswordLink(ctx, email, ttl)
	if err != nil {
		return "", time.Time{}, err
	}
	u, err := o.User(ctx, "email", email)
	if err != nil {
		return "", time.Time{}, err
	}
	return secret, expires, o.recordOutside(ctx, u.ID)
}

// PruneAudit removes the audit events of every company older than before
// (auditlog.Log.Prune), and records that it did, outside any company.
func (o *Operator) PruneAudit(ctx context.Context, before time.Time) (int64, error) {
	n, err := o.s.audit.Prune(ctx, before)
	if err != nil {
		return 0, err
	}
	return n, o.recordOutside(ctx, "")
}
