package service

import (
	"context"

	"github.com/vitrine/vitrine"
)

// TenantAccess is a tenant as one caller sees it: with the caller's role and
// effective permissions there.
type TenantAccess struct {
	Tenant      vitrine.Tenant
	Role        string
	Permissions vitrine.PermissionSet
}

// Tenants returns the tenants the caller reaches: those of their active
// memberships, with role and effective permissions.
func (s *Service) Tenants(ctx context.Context, caller *vitrine.Caller) ([]TenantAccess, error) {
	ms, err := s.store.MembershipsOfUser(ctx, caller.User.ID)
	if err != nil {
		return nil, err
	}
	out := make([]TenantAccess, 0, len(ms))
	for _, tm := range ms {
		out = append(out, TenantAccess{Tenant: tm.Tenant, Role: tm.Membership.Role, Permissions: effective(caller, &tm.Membership)})
	}
	return out, nil
}

// Tenant returns the tenant of an access, with the caller's role in it.
func (s *Service) Tenant(ctx context.Context, a *Access) (*TenantAccess, error) {
	if err := a.Require(vitrine.TenantsRead); err != nil {
		return nil, err
	}
	t, err := s.store.TenantByID(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	return &TenantAccess{Tenant: *t, Role: a.Membership.Role, Permissions: a.Permissions()}, nil
}
