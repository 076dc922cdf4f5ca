package service

import (
	"context"
	"time"

	"github.com/vitrine/vitrine"
)

// Invitation is what add_member answers: the same whether or not the
// email belongs to a user, so that the answer tells nobody who has an
// account.
type Invitation struct {
	Email  string
	Role   string
	Status vitrine.MembershipStatus
}

// Invite invites the user with that email into the tenant with a role: a
// membership with status invited, which opens nothing until the user
// accepts it (AcceptInvitation). The answer is the same whether the email
// belongs to a user, to nobody, or to someone already invited; only an
// existing member is a ConflictError, as list_members shows them anyway.
// So is the work (the store's InviteMember): the time of the answer tells
// nobody which emails have accounts either.
func (s *Service) Invite(ctx context.Context, a *Access, email, role string) (*Invitation, error) {
	if err := a.Allow(OpAddMember); err != nil {
		return nil, err
	}
	addr, _, err := vitrine.NormalizeEmail("email", email)
	if err != nil {
		return nil, err
	}
	r, err := s.resolveRole(ctx, a.TenantID, role)
	if err != nil {
		return nil, err
	}
	if err := a.mayGive(r.Name, r.Permissions); err != nil {
		return nil, err
	}
	now := s.now()
	m := vitrine.Membership{ID: vitrine.NewID(), TenantID: a.TenantID, Role: r.Name, Status: vitrine.MembershipInvited,
		RolePermissions: r.Permissions, CreatedAt: now, UpdatedAt: now}
	err = s.store.InviteMember(ctx, a.Change(), &m, addr, func(existing *vitrine.Membership) (bool, error) {
		if existing.Status != vitrine.MembershipInvited {
			return false, vitrine.Conflict("email", "This user is already a member of the company")
		}
		// Invited again: the invitation takes the role asked now, if the
		// caller may change it (else it keeps its role; the answer is the
		// same either way, as for any email).
		return existing.Role != r.Name && a.mayManage(existing) == nil, nil
	})
	if err != nil {
		return nil, err
	}
	return &Invitation{Email: addr, Role: r.Name, Status: vitrine.MembershipInvited}, nil
}

// PendingInvitation is an invitation as its invitee sees it.
type PendingInvitation struct {
	Tenant    vitrine.Tenant
	Role      string
	InvitedAt time.Time
}

// Invitations returns the caller's invitations not yet accepted.
func (s *Service) Invitations(ctx context.Context, caller *vitrine.Caller) ([]PendingInvitation, error) {
	ms, err := s.store.InvitationsOfUser(ctx, caller.User.ID)
	if err != nil {
		return nil, err
	}
	out := make([]PendingInvitation, 0, len(ms))
	for _, tm := range ms {
		out = append(out, PendingInvitation{Tenant: tm.Tenant, Role: tm.Membership.Role, InvitedAt: tm.Membership.CreatedAt})
	}
	return out, nil
}

// invitation returns the caller's invitation into a tenant, or "Invitation
// not found": the same for a tenant that does not exist, one the caller is
// already a member of, and one that never invited them.
func (s *Service) invitation(ctx context.Context, caller *vitrine.Caller, tenantID string) (*vitrine.Membership, error) {
	if caller.ReadOnly() {
		return nil, vitrine.ErrPermissionDenied
	}
	if !vitrine.ValidID(tenantID) {
		return nil, vitrine.NotFound("Invitation")
	}
	m, err := s.store.Membership(ctx, tenantID, caller.User.ID)
	if vitrine.TypeOf(err) == vitrine.NotFoundError || (err == nil && m.Status != vitrine.MembershipInvited) {
		return nil, vitrine.NotFound("Invitation")
	}
	return m, err
}

// AcceptInvitation makes the caller's invitation into a tenant an active
// membership, and returns the tenant as the caller now reaches it.
func (s *Service) AcceptInvitation(ctx context.Context, caller *vitrine.Caller, tenantID string) (*TenantAccess, error) {
	m, err := s.invitation(ctx, caller, tenantID)
	if err != nil {
		return nil, err
	}
	m.Status, m.UpdatedAt = vitrine.MembershipActive, s.now()
	if err := s.store.UpdateMembership(ctx, caller.Change(), m); err != nil {
		return nil, err
	}
	t, err := s.store.TenantByID(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	return &TenantAccess{Tenant: *t, Role: m.Role, Permissions: effective(caller, m)}, nil
}

// DeclineInvitation deletes the caller's invitation into a tenant.
func (s *Service) DeclineInvitation(ctx context.Context, caller *vitrine.Caller, tenantID string) error {
	if _, err := s.invitation(ctx, caller, tenantID); err != nil {
		return err
	}
	return s.store.DeleteMembership(ctx, caller.Change(), tenantID, caller.User.ID)
}
