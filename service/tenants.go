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
	if err := a.Allow(OpGetTenant); err != nil {
		return nil, err
	}
	t, err := s.store.TenantByID(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	return &TenantAccess{Tenant: *t, Role: a.Membership.Role, Permissions: a.Permissions()}, nil
}

// CreateTenant creates a company whose first owner is the caller.
func (s *Service) CreateTenant(ctx context.Context, caller *vitrine.Caller, name, slug, currency string) (*TenantAccess, error) {
	if caller.ReadOnly() {
		return nil, vitrine.ErrPermissionDenied
	}
	name, err := vitrine.ValidateName("name", name, 200)
	if err != nil {
		return nil, err
	}
	t, err := s.createTenant(ctx, caller.Change(), name, slug, currency, caller.User.ID)
	if err != nil {
		return nil, err
	}
	owner, _ := vitrine.BuiltinRole(vitrine.RoleOwner)
	return &TenantAccess{Tenant: *t, Role: owner.Name, Permissions: owner.Permissions}, nil
}

// UpdateTenant renames a company, or changes its slug, its currency or
// its locales (nil: unchanged).
func (s *Service) UpdateTenant(ctx context.Context, a *Access, name, slug, currency *string, locales []string) (*TenantAccess, error) {
	if err := a.Allow(OpUpdateTenant); err != nil {
		return nil, err
	}
	t, err := s.store.TenantByID(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	if err := s.changeTenant(t, name, slug, currency, locales); err != nil {
		return nil, err
	}
	if err := s.store.UpdateTenant(ctx, a.Change(), t); err != nil {
		return nil, err
	}
	return &TenantAccess{Tenant: *t, Role: a.Membership.Role, Permissions: a.Permissions()}, nil
}

// changeTenant puts in t the name, slug, currency and locales given,
// checked. A company's currency is that of its new products, imports and
// price filters: the products it has keep theirs. Its locales' first is
// the one its catalog is written in; a locale removed keeps its
// translations, unread until it is added again.
func (s *Service) changeTenant(t *vitrine.Tenant, name, slug, currency *string, locales []string) error {
	if name == nil && slug == nil && currency == nil && locales == nil {
		return vitrine.Invalid("name", "nothing to change: give name, slug, currency or locales")
	}
	var err error
	if name != nil {
		if t.Name, err = vitrine.ValidateName("name", *name, 200); err != nil {
			return err
		}
	}
	if slug != nil {
		if t.Slug, err = vitrine.ValidateSlug("slug", *slug); err != nil {
			return err
		}
	}
	if currency != nil {
		if t.Currency, _, err = vitrine.NormalizeCurrency("currency", *currency); err != nil {
			return err
		}
	}
	if locales != nil {
		if t.Locales, err = vitrine.ParseLocales("locales", locales); err != nil {
			return err
		}
	}
	t.UpdatedAt = s.now()
	return nil
}
