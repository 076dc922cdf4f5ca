package service

import (
	"context"

	"github.com/vitrine/vitrine"
)

// MemberPage is a page of a tenant's members.
type MemberPage struct {
	Members    []*vitrine.Member
	NextCursor string
}

// ListMembers returns a page of the tenant's members, by email.
func (s *Service) ListMembers(ctx context.Context, a *Access, limit int, cursor string) (*MemberPage, error) {
	if err := a.Allow(OpListMembers); err != nil {
		return nil, err
	}
	pg, err := OpenPage[vitrine.MemberKey](ctx, s, "members\x00"+a.TenantID, limit, cursor)
	if err != nil {
		return nil, err
	}
	ms, err := s.store.ListMembers(ctx, a.TenantID, pg.After, pg.Fetch())
	if err != nil {
		return nil, err
	}
	page := &MemberPage{}
	page.Members, page.NextCursor = ClosePage(pg, ms, func(i int) vitrine.MemberKey {
		return vitrine.MemberKey{Email: emailKey(ms[i].Email), UserID: ms[i].UserID}
	})
	return page, nil
}

func emailKey(email string) string {
	_, key, _ := vitrine.NormalizeEmail("email", email)
	return key
}

// The rules of team management, for callers acting through a membership
// (the operator's commands are not bound by 1 to 3, only by 4):
//  1. nobody grants a role or a permission beyond what they hold;
//  2. nobody changes a member who holds more than they do;
//  3. only an owner changes an owner, or makes one;
//  4. a tenant always keeps an active owner (checked by the store, in the
//     transaction of the change).
// A breach of 1 to 3 is a PermissionError.

// mayManage applies rules 2 and 3 to a change of target by a.
func (a *Access) mayManage(target *vitrine.Membership) error {
	switch {
	case a == nil:
		return vitrine.ErrPermissionDenied
	case a.operator:
		return nil
	}
	if target.Role == vitrine.RoleOwner && a.Membership.Role != vitrine.RoleOwner {
		return vitrine.ErrPermissionDenied
	}
	if !a.Permissions().Covers(target.Permissions()) {
		return vitrine.ErrPermissionDenied
	}
	return nil
}

// mayGive applies rules 1 and 3 to giving a role, or permissions.
func (a *Access) mayGive(role string, ps vitrine.PermissionSet) error {
	switch {
	case a == nil:
		return vitrine.ErrPermissionDenied
	case a.operator:
		return nil
	}
	if role == vitrine.RoleOwner && a.Membership.Role != vitrine.RoleOwner {
		return vitrine.ErrPermissionDenied
	}
	if !a.Permissions().Covers(ps) {
		return vitrine.ErrPermissionDenied
	}
	return nil
}

// resolveRole finds a built-in or custom role of the tenant.
func (s *Service) resolveRole(ctx context.Context, tenantID, name string) (vitrine.Role, error) {
	if r, ok := vitrine.BuiltinRole(name); ok {
		return r, nil
	}
	if name == "" {
		return vitrine.Role{}, vitrine.Invalid("role", "role is required")
	}
	r, err := s.store.Role(ctx, tenantID, name)
	if vitrine.TypeOf(err) == vitrine.NotFoundError {
		return vitrine.Role{}, &vitrine.Error{Type: vitrine.NotFoundError, Field: "role", Message: "Role not found"}
	}
	if err != nil {
		return vitrine.Role{}, err
	}
	return *r, nil
}

func (s *Service) addMember(ctx context.Context, a *Access, tenantID, email, role string, status vitrine.MembershipStatus) (*vitrine.Member, error) {
	addr, _, err := vitrine.NormalizeEmail("email", email)
	if err != nil {
		return nil, err
	}
	r, err := s.resolveRole(ctx, tenantID, role)
	if err != nil {
		return nil, err
	}
	if err := a.mayGive(r.Name, r.Permissions); err != nil {
		return nil, err
	}
	u, err := s.store.UserByEmail(ctx, addr)
	if vitrine.TypeOf(err) == vitrine.NotFoundError {
		return nil, &vitrine.Error{Type: vitrine.NotFoundError, Field: "email", Message: "User not found"}
	}
	if err != nil {
		return nil, err
	}
	now := s.now()
	m := vitrine.Membership{ID: vitrine.NewID(), TenantID: tenantID, UserID: u.ID, Role: r.Name, Status: status,
		RolePermissions: r.Permissions, CreatedAt: now, UpdatedAt: now}
	if err := s.store.CreateMembership(ctx, a.Change(), &m); err != nil {
		return nil, err
	}
	return &vitrine.Member{Membership: m, Email: u.Email, Name: u.Name}, nil
}

// member returns a member of the tenant by user id. For a caller acting
// through a membership (not the operator), an invitation not yet accepted
// is not a member: nobody changes, grants to or activates it but its
// invitee.
func (s *Service) member(ctx context.Context, a *Access, tenantID, userID string) (*vitrine.Member, error) {
	if !vitrine.ValidID(userID) {
		return nil, vitrine.NotFound("Member")
	}
	m, err := s.store.Membership(ctx, tenantID, userID)
	if err != nil {
		return nil, err
	}
	if (a == nil || !a.operator) && m.Status == vitrine.MembershipInvited {
		return nil, vitrine.NotFound("Member")
	}
	u, err := s.store.UserByID(ctx, userID)
	if err != nil {
		return nil, err
	}
	return &vitrine.Member{Membership: *m, Email: u.Email, Name: u.Name}, nil
}

// MemberChanges holds update_member's arguments; empty leaves a field alone.
type MemberChanges struct {
	Role   string
	Status string
}

// UpdateMember changes a member's role or status. Deactivating takes
// effect on the member's very next call, on every instance.
func (s *Service) UpdateMember(ctx context.Context, a *Access, userID string, ch MemberChanges) (*vitrine.Member, error) {
	if err := a.Allow(OpUpdateMember); err != nil {
		return nil, err
	}
	return s.updateMember(ctx, a, a.TenantID, userID, ch)
}

func (s *Service) updateMember(ctx context.Context, a *Access, tenantID, userID string, ch MemberChanges) (*vitrine.Member, error) {
	if ch.Role == "" && ch.Status == "" {
		return nil, vitrine.Invalid("role", "nothing to change: give role, status or both")
	}
	var status vitrine.MembershipStatus
	if ch.Status != "" {
		var err error
		if status, err = parseMembershipStatus(ch.Status); err != nil {
			return nil, err
		}
	}
	var role *vitrine.Role
	if ch.Role != "" {
		r, err := s.resolveRole(ctx, tenantID, ch.Role)
		if err != nil {
			return nil, err
		}
		if err := a.mayGive(r.Name, r.Permissions); err != nil {
			return nil, err
		}
		role = &r
	}
	m, err := s.member(ctx, a, tenantID, userID)
	if err != nil {
		return nil, err
	}
	if err := a.mayManage(&m.Membership); err != nil {
		return nil, err
	}
	if role != nil {
		m.Role, m.RolePermissions = role.Name, role.Permissions
	}
	if status != "" {
		m.Status = status
	}
	m.UpdatedAt = s.now()
	if err := s.store.UpdateMembership(ctx, a.Change(), &m.Membership); err != nil {
		return nil, err
	}
	return m, nil
}

// RemoveMember takes a user out of the tenant.
func (s *Service) RemoveMember(ctx context.Context, a *Access, userID string) error {
	if err := a.Allow(OpRemoveMember); err != nil {
		return err
	}
	return s.removeMember(ctx, a, a.TenantID, userID)
}

func (s *Service) removeMember(ctx context.Context, a *Access, tenantID, userID string) error {
	m, err := s.member(ctx, a, tenantID, userID)
	if err != nil {
		return err
	}
	if err := a.mayManage(&m.Membership); err != nil {
		return err
	}
	return s.store.DeleteMembership(ctx, a.Change(), tenantID, userID)
}

// GrantPermission gives a member a permission on top of their role.
func (s *Service) GrantPermission(ctx context.Context, a *Access, userID, permission string) (*vitrine.Member, error) {
	return s.changeGrant(ctx, a, OpGrantPermission, userID, permission, true)
}

// RevokePermission takes back a permission granted on top of a role.
func (s *Service) RevokePermission(ctx context.Context, a *Access, userID, permission string) (*vitrine.Member, error) {
	return s.changeGrant(ctx, a, OpRevokePermission, userID, permission, false)
}

func (s *Service) changeGrant(ctx context.Context, a *Access, op Operation, userID, permission string, grant bool) (*vitrine.Member, error) {
	if err := a.Allow(op); err != nil {
		return nil, err
	}
	ps, err := vitrine.ParsePermissions("permission", []string{permission})
	if err != nil {
		return nil, vitrine.Invalid("permission", "unknown permission %q; list_permissions gives the catalog", permission)
	}
	if err := a.mayGive("", ps); err != nil {
		return nil, err
	}
	m, err := s.member(ctx, a, a.TenantID, userID)
	if err != nil {
		return nil, err
	}
	if err := a.mayManage(&m.Membership); err != nil {
		return nil, err
	}
	switch {
	case grant && m.Permissions().Covers(ps):
		return m, nil // already held: nothing to write
	case grant:
		m.Grants |= ps
	case m.Grants&ps == 0 && m.RolePermissions.Covers(ps):
		return nil, vitrine.Invalid("permission", "%s comes with the role %q, not from a grant; give the member another role to take it away", permission, m.Role)
	case m.Grants&ps == 0:
		return m, nil // not held: nothing to revoke
	default:
		m.Grants &^= ps
	}
	m.UpdatedAt = s.now()
	if err := s.store.UpdateMembership(ctx, a.Change(), &m.Membership); err != nil {
		return nil, err
	}
	return m, nil
}
