package service

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/vitrine/vitrine"
)

// Roles returns the roles of the tenant: the built-in ones, then the
// custom ones by name.
func (s *Service) Roles(ctx context.Context, a *Access) ([]vitrine.Role, error) {
	if err := a.Allow(OpListRoles); err != nil {
		return nil, err
	}
	custom, err := s.store.Roles(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	out := append([]vitrine.Role(nil), vitrine.BuiltinRoles...)
	for _, r := range custom {
		out = append(out, *r)
	}
	return out, nil
}

// Permissions returns the permission catalog.
func (s *Service) Permissions(ctx context.Context, a *Access) ([]vitrine.PermissionInfo, error) {
	if err := a.Allow(OpListPermissions); err != nil {
		return nil, err
	}
	return vitrine.Permissions, nil
}

// RoleInput holds create_role's and update_role's arguments.
type RoleInput struct {
	Name        string
	Permissions []string
	Description *string
}

func (in RoleInput) validate() (name string, ps vitrine.PermissionSet, description string, err error) {
	if name, err = vitrine.ValidateRoleName("name", in.Name); err != nil {
		return "", 0, "", err
	}
	if len(in.Permissions) == 0 {
		return "", 0, "", vitrine.Invalid("permissions", "permissions must name at least one permission")
	}
	if ps, err = vitrine.ParsePermissions("permissions", in.Permissions); err != nil {
		return "", 0, "", err
	}
	if in.Description != nil {
		description = strings.TrimSpace(*in.Description)
		if n := utf8.RuneCountInString(description); n > 500 {
			return "", 0, "", vitrine.Invalid("description", "description is %d characters long; the limit is 500", n)
		}
	}
	return name, ps, description, nil
}

// CreateRole creates a custom role. Nobody creates a role that holds more
// than they hold.
func (s *Service) CreateRole(ctx context.Context, a *Access, in RoleInput) (*vitrine.Role, error) {
	if err := a.Allow(OpCreateRole); err != nil {
		return nil, err
	}
	name, ps, description, err := in.validate()
	if err != nil {
		return nil, err
	}
	if err := a.mayGive("", ps); err != nil {
		return nil, err
	}
	now := s.now()
	r := &vitrine.Role{TenantID: a.TenantID, Name: name, Description: description, Permissions: ps, CreatedAt: now, UpdatedAt: now}
	if err := s.store.CreateRole(ctx, a.Change(), r); err != nil {
		return nil, err
	}
	return r, nil
}

// UpdateRole replaces a custom role's permissions (and description, when
// given). Its members hold the new permissions from their next call.
func (s *Service) UpdateRole(ctx context.Context, a *Access, in RoleInput) (*vitrine.Role, error) {
	if err := a.Allow(OpUpdateRole); err != nil {
		return nil, err
	}
	if _, builtin := vitrine.BuiltinRole(in.Name); builtin {
		return nil, vitrine.Invalid("name", "%q is a built-in role and cannot be changed; create a custom role instead", in.Name)
	}
	name, ps, description, err := in.validate()
	if err != nil {
		return nil, err
	}
	r, err := s.store.Role(ctx, a.TenantID, name)
	if err != nil {
		return nil, err
	}
	// Both what the role held and what it will hold must be within reach.
	if err := a.mayGive("", ps|r.Permissions); err != nil {
		return nil, err
	}
	if err := s.mayManageHolders(ctx, a, r.Name); err != nil {
		return nil, err
	}
	r.Permissions = ps
	if in.Description != nil {
		r.Description = description
	}
	r.UpdatedAt = s.now()
	if err := s.store.UpdateRole(ctx, a.Change(), r); err != nil {
		return nil, err
	}
	return r, nil
}

// DeleteRole deletes a custom role that no member holds.
func (s *Service) DeleteRole(ctx context.Context, a *Access, name string) error {
	if err := a.Allow(OpDeleteRole); err != nil {
		return err
	}
	if _, builtin := vitrine.BuiltinRole(name); builtin {
		return vitrine.Invalid("name", "%q is a built-in role and cannot be deleted", name)
	}
	r, err := s.store.Role(ctx, a.TenantID, name)
	if err != nil {
		return err
	}
	if err := a.mayGive("", r.Permissions); err != nil {
		return err
	}
	if err := s.mayManageHolders(ctx, a, r.Name); err != nil {
		return err
	}
	return s.store.DeleteRole(ctx, a.Change(), a.TenantID, name)
}

// mayManageHolders applies rules 2 and 3 of team management to the members
// who hold a role: changing the role changes them, so whoever could not
// change one of them may not change it.
func (s *Service) mayManageHolders(ctx context.Context, a *Access, role string) error {
	holders, err := s.store.RoleHolders(ctx, a.TenantID, role)
	if err != nil {
		return err
	}
	for _, m := range holders {
		if err := a.mayManage(m); err != nil {
			return err
		}
	}
	return nil
}
