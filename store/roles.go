package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

const roleColumns = `tenant_id, name, description, permissions, created_at, updated_at`

func scanRole(r sqldb.Row) (*vitrine.Role, error) {
	var (
		role  vitrine.Role
		perms string
	)
	if err := r.Scan(&role.TenantID, &role.Name, &role.Description, &perms, &role.CreatedAt, &role.UpdatedAt); err != nil {
		return nil, err
	}
	role.Permissions = vitrine.ParsePermissionSet(perms)
	return &role, nil
}

// CreateRole stores a custom role; a name taken in the tenant is a
// ConflictError.
func (db *DB) CreateRole(ctx context.Context, ch vitrine.Change, r *vitrine.Role) error {
	err := db.write(ctx, tenant(r.TenantID), ch, is(r.Name), func(c sqldb.Conn) error {
		_, err := c.Exec(ctx, `INSERT INTO roles (`+roleColumns+`) VALUES ($1, $2, $3, $4, $5, $6)`,
			r.TenantID, r.Name, r.Description, r.Permissions.String(), r.CreatedAt, r.UpdatedAt)
		return err
	})
	if name, ok := db.d.Constraint(err); ok && name == "roles_pkey" {
		return vitrine.Conflict("name", "A role named %q already exists in this company", r.Name)
	}
	if err != nil {
		return fmt.Errorf("create role: %w", err)
	}
	return nil
}

// Role returns a custom role of the tenant, or NotFoundError.
func (db *DB) Role(ctx context.Context, tenantID, name string) (*vitrine.Role, error) {
	if !validIDs(tenantID) {
		return nil, vitrine.NotFound("Role")
	}
	var r *vitrine.Role
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) (err error) {
		r, err = scanRole(c.QueryRow(ctx, `SELECT `+roleColumns+` FROM roles WHERE tenant_id = $1 AND name = $2`, tenantID, name))
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, vitrine.NotFound("Role")
	}
	if err != nil {
		return nil, fmt.Errorf("get role: %w", err)
	}
	return r, nil
}

// Roles returns the tenant's custom roles by name.
func (db *DB) Roles(ctx context.Context, tenantID string) ([]*vitrine.Role, error) {
	if !validIDs(tenantID) {
		return nil, nil
	}
	var out []*vitrine.Role
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, scanRole, `SELECT `+roleColumns+` FROM roles WHERE tenant_id = $1 ORDER BY name`, tenantID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list roles: %w", err)
	}
	return out, nil
}

// UpdateRole writes a custom role's description and permissions.
func (db *DB) UpdateRole(ctx context.Context, ch vitrine.Change, r *vitrine.Role) error {
	if !validIDs(r.TenantID) {
		return vitrine.NotFound("Role")
	}
	var n int64
	err := db.write(ctx, tenant(r.TenantID), ch, is(r.Name), func(c sqldb.Conn) (err error) {
		n, err = c.Exec(ctx, `UPDATE roles SET description = $1, permissions = $2, updated_at = $3 WHERE tenant_id = $4 AND name = $5`,
			r.Description, r.Permissions.String(), r.UpdatedAt, r.TenantID, r.Name)
		if err == nil && n == 0 {
			return vitrine.NotFound("Role")
		}
		return err
	})
	if err != nil && vitrine.AsError(err) == nil {
		return fmt.Errorf("update role: %w", err)
	}
	return err
}

// DeleteRole removes a custom role that no member holds.
func (db *DB) DeleteRole(ctx context.Context, ch vitrine.Change, tenantID, name string) error {
	if !validIDs(tenantID) {
		return vitrine.NotFound("Role")
	}
	err := db.write(ctx, tenant(tenantID), ch, is(name), func(c sqldb.Conn) error {
		if err := lockTenant(ctx, c, tenantID); err != nil {
			return err
		}
		var holders int
		if err := c.QueryRow(ctx, `SELECT count(*) FROM memberships WHERE tenant_id = $1 AND role = $2`, tenantID, name).Scan(&holders); err != nil {
			return err
		}
		n, err := c.Exec(ctx, `DELETE FROM roles WHERE tenant_id = $1 AND name = $2`, tenantID, name)
		switch {
		case err != nil:
			return err
		case n == 0:
			return vitrine.NotFound("Role")
		case holders > 0:
			return vitrine.Conflict("name", "%d member(s) hold the role %q; give them another role first", holders, name)
		}
		return nil
	})
	if err != nil && vitrine.AsError(err) == nil {
		return fmt.Errorf("delete role: %w", err)
	}
	return err
}
