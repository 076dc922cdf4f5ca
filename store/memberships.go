package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/vitrine/vitrine"
)

func insertMembership(ctx context.Context, c conn, m *vitrine.Membership) error {
	_, err := c.Exec(ctx, `INSERT INTO memberships (tenant_id, id, user_id, role, status, permissions, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		m.TenantID, m.ID, m.UserID, m.Role, string(m.Status), m.Grants.String(), m.CreatedAt, m.UpdatedAt)
	return err
}

// CreateMembership adds a user to a tenant. An existing membership is a
// ConflictError.
func (db *DB) CreateMembership(ctx context.Context, m *vitrine.Membership) error {
	err := db.d.write(ctx, tenant(m.TenantID), func(c conn) error { return insertMembership(ctx, c, m) })
	if name, ok := db.d.constraint(err); ok && name == "memberships_pkey" {
		return vitrine.Conflict("email", "This user is already a member of the company")
	}
	if err != nil {
		return fmt.Errorf("create membership: %w", err)
	}
	return nil
}

// The membership query resolves a custom role's permissions by joining roles;
// a built-in role's come from the code.
const (
	membershipColumns = `m.tenant_id, m.id, m.user_id, m.role, m.status, m.permissions, COALESCE(r.permissions, ''), m.created_at, m.updated_at`
	membershipFrom    = ` FROM memberships m LEFT JOIN roles r ON r.tenant_id = m.tenant_id AND r.name = m.role`
)

func scanMembership(r row, extra ...any) (*vitrine.Membership, error) {
	var (
		m                   vitrine.Membership
		status, grants, rps string
	)
	dest := append([]any{&m.TenantID, &m.ID, &m.UserID, &m.Role, &status, &grants, &rps, &m.CreatedAt, &m.UpdatedAt}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	m.Status = vitrine.MembershipStatus(status)
	m.Grants = vitrine.ParsePermissionSet(grants)
	if role, ok := vitrine.BuiltinRole(m.Role); ok {
		m.RolePermissions = role.Permissions
	} else {
		m.RolePermissions = vitrine.ParsePermissionSet(rps)
	}
	return &m, nil
}

// Membership returns a user's membership in a tenant, whatever its status,
// or NotFoundError.
func (db *DB) Membership(ctx context.Context, tenantID, userID string) (*vitrine.Membership, error) {
	if !validIDs(tenantID, userID) {
		return nil, vitrine.NotFound("Member")
	}
	var m *vitrine.Membership
	err := db.d.read(ctx, tenant(tenantID), func(c conn) (err error) {
		m, err = scanMembership(c.QueryRow(ctx, `SELECT `+membershipColumns+membershipFrom+` WHERE m.tenant_id = $1 AND m.user_id = $2`, tenantID, userID))
		return err
	})
	if errors.Is(err, errNoRows) {
		return nil, vitrine.NotFound("Member")
	}
	if err != nil {
		return nil, fmt.Errorf("get membership: %w", err)
	}
	return m, nil
}

// MembershipsOfUser returns a user's active memberships with their tenants.
func (db *DB) MembershipsOfUser(ctx context.Context, userID string) ([]vitrine.TenantMembership, error) {
	var out []vitrine.TenantMembership
	err := db.d.read(ctx, scope{userID: userID}, func(c conn) (err error) {
		out, err = collect(ctx, c, func(r row) (vitrine.TenantMembership, error) {
			var t vitrine.Tenant
			m, err := scanMembership(r, &t.ID, &t.Name, &t.Slug, &t.CreatedAt, &t.UpdatedAt)
			if err != nil {
				return vitrine.TenantMembership{}, err
			}
			return vitrine.TenantMembership{Tenant: t, Membership: *m}, nil
		}, `SELECT `+membershipColumns+`, t.id, t.name, t.slug, t.created_at, t.updated_at`+membershipFrom+`
			JOIN tenants t ON t.id = m.tenant_id
			WHERE m.user_id = $1 AND m.status = 'active'
			ORDER BY t.name, t.id`, userID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list memberships: %w", err)
	}
	return out, nil
}
