package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

func insertMembership(ctx context.Context, c sqldb.Conn, m *vitrine.Membership) error {
	_, err := c.Exec(ctx, `INSERT INTO memberships (tenant_id, id, user_id, role, status, permissions, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		m.TenantID, m.ID, m.UserID, m.Role, string(m.Status), m.Grants.String(), m.CreatedAt, m.UpdatedAt)
	return err
}

// CreateMembership adds a user to a tenant. An existing membership is a
// ConflictError.
func (db *DB) CreateMembership(ctx context.Context, ch vitrine.Change, m *vitrine.Membership) error {
	err := db.write(ctx, tenant(m.TenantID), ch, noTarget, func(c sqldb.Conn) error { return insertMembership(ctx, c, m) })
	if name, ok := db.d.Constraint(err); ok && name == "memberships_pkey" {
		return vitrine.Conflict("email", "This user is already a member of the company")
	}
	if err != nil {
		return fmt.Errorf("create membership: %w", err)
	}
	return nil
}

// InviteMember invites a user by email into m's tenant (vitrine.Store):
// the user looked up, their membership in the tenant, a membership
// inserted, an invitation's role changed, the call's event. When the
// email has no user, the statements run all the same, on an id that is
// no user's, and match nothing: only the rows they write differ.
func (db *DB) InviteMember(ctx context.Context, ch vitrine.Change, m *vitrine.Membership, email string,
	decide func(existing *vitrine.Membership) (bool, error)) error {
	if !validIDs(m.TenantID, m.ID) {
		return vitrine.NotFound("Tenant")
	}
	err := db.write(ctx, tenant(m.TenantID), ch, noTarget, func(c sqldb.Conn) error {
		userID := vitrine.NewID() // nobody's, unless the email is a user's
		err := c.QueryRow(ctx, `SELECT id FROM users WHERE email_key = $1 AND NOT disabled`, emailKey(email)).Scan(&userID)
		if err != nil && !errors.Is(err, sqldb.ErrNoRows) {
			return err
		}
		existing, err := scanMembership(c.QueryRow(ctx, `SELECT `+membershipColumns+membershipFrom+` WHERE m.tenant_id = $1 AND m.user_id = $2`,
			m.TenantID, userID))
		if err != nil && !errors.Is(err, sqldb.ErrNoRows) {
			return err
		}
		changeRole := false
		if existing != nil {
			if changeRole, err = decide(existing); err != nil {
				return err
			}
		}
		if _, err := c.Exec(ctx, `INSERT INTO memberships (tenant_id, id, user_id, role, status, permissions, created_at, updated_at)
			SELECT $1, $2, $3, $4, $5, $6, $7, $8 FROM users WHERE id = $3 AND $9
			ON CONFLICT (tenant_id, user_id) DO NOTHING`, // invited by another at the same moment
			m.TenantID, m.ID, userID, m.Role, string(vitrine.MembershipInvited), m.Grants.String(), m.CreatedAt, m.UpdatedAt, existing == nil); err != nil {
			return err
		}
		_, err = c.Exec(ctx, `UPDATE memberships SET role = $1, updated_at = $2 WHERE tenant_id = $3 AND user_id = $4 AND status = $5 AND $6`,
			m.Role, m.UpdatedAt, m.TenantID, userID, string(vitrine.MembershipInvited), changeRole)
		return err
	})
	if vitrine.AsError(err) != nil {
		return err
	}
	if err != nil {
		return fmt.Errorf("invite member: %w", err)
	}
	return nil
}

// The membership query resolves a custom role's permissions by joining roles;
// a built-in role's come from the code.
const (
	membershipColumns = `m.tenant_id, m.id, m.user_id, m.role, m.status, m.permissions, COALESCE(r.permissions, ''), m.created_at, m.updated_at`
	membershipFrom    = ` FROM memberships m LEFT JOIN roles r ON r.tenant_id = m.tenant_id AND r.name = m.role`
)

func scanMembership(r sqldb.Row, extra ...any) (*vitrine.Membership, error) {
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
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) (err error) {
		// The tenant's schedule comes with it: Access refuses the calls on a
		// company scheduled for deletion, from the membership it caches.
		var deletes sql.NullTime
		m, err = scanMembership(c.QueryRow(ctx, `SELECT `+membershipColumns+`, (SELECT deletes_at FROM tenants t WHERE t.id = m.tenant_id)`+
			membershipFrom+` WHERE m.tenant_id = $1 AND m.user_id = $2`, tenantID, userID), &deletes)
		if m != nil {
			m.TenantDeletesAt = utcTime(deletes)
		}
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, vitrine.NotFound("Member")
	}
	if err != nil {
		return nil, fmt.Errorf("get membership: %w", err)
	}
	return m, nil
}

// MembershipsOfUser returns a user's active memberships with their tenants.
func (db *DB) MembershipsOfUser(ctx context.Context, userID string) ([]vitrine.TenantMembership, error) {
	return db.membershipsOfUser(ctx, userID, vitrine.MembershipActive)
}

// InvitationsOfUser returns the memberships a user was invited to and has
// not accepted, with their tenants.
func (db *DB) InvitationsOfUser(ctx context.Context, userID string) ([]vitrine.TenantMembership, error) {
	return db.membershipsOfUser(ctx, userID, vitrine.MembershipInvited)
}

func (db *DB) membershipsOfUser(ctx context.Context, userID string, status vitrine.MembershipStatus) ([]vitrine.TenantMembership, error) {
	var out []vitrine.TenantMembership
	err := db.d.Read(ctx, sqldb.Scope{UserID: userID}, func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (vitrine.TenantMembership, error) {
			var t vitrine.Tenant
			m, err := scanMembership(r, tenantDest(&t)...)
			if err != nil {
				return vitrine.TenantMembership{}, err
			}
			m.TenantDeletesAt = t.DeletesAt
			return vitrine.TenantMembership{Tenant: t, Membership: *m}, nil
		}, `SELECT `+membershipColumns+`, t.id, t.name, t.slug, t.currency, t.locales, t.created_at, t.updated_at, t.deletes_at`+membershipFrom+`
			JOIN tenants t ON t.id = m.tenant_id
			WHERE m.user_id = $1 AND m.status = $2
			ORDER BY t.name, t.id`, userID, string(status))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list memberships: %w", err)
	}
	return out, nil
}

// ListMembers returns a page of a tenant's members, ordered by email;
// invitations not yet accepted are not among them.
func (db *DB) ListMembers(ctx context.Context, tenantID string, after *vitrine.MemberKey, limit int) ([]*vitrine.Member, error) {
	if !validIDs(tenantID) {
		return nil, nil
	}
	var q base.QueryBuilder
	q.Add(`m.tenant_id = `, tenantID)
	q.Where = append(q.Where, `m.status <> 'invited'`) // an invitation is not a member yet
	if after != nil {
		q.Where = append(q.Where, fmt.Sprintf(`(u.email_key, u.id) > (%s, %s)`, q.Arg(after.Email), q.Arg(after.UserID)))
	}
	query := `SELECT ` + membershipColumns + `, u.email, u.name` + membershipFrom + ` JOIN users u ON u.id = m.user_id WHERE ` +
		strings.Join(q.Where, ` AND `) + ` ORDER BY u.email_key, u.id` + limitTo(q.Arg(limit))
	var out []*vitrine.Member
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (*vitrine.Member, error) {
			var mb vitrine.Member
			m, err := scanMembership(r, &mb.Email, &mb.Name)
			if err != nil {
				return nil, err
			}
			mb.Membership = *m
			return &mb, nil
		}, query, q.Args...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list members: %w", err)
	}
	return out, nil
}

// lockTenant serialises the changes to a tenant's team: concurrent
// demotions of two owners must not both pass the last-owner check.
func lockTenant(ctx context.Context, c sqldb.Conn, tenantID string) error {
	_, err := c.Exec(ctx, `UPDATE tenants SET updated_at = updated_at WHERE id = $1`, tenantID)
	return err
}

// keepsAnOwner fails the transaction if the change left the tenant without
// an active owner.
func keepsAnOwner(ctx context.Context, c sqldb.Conn, tenantID string) error {
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM memberships WHERE tenant_id = $1 AND role = 'owner' AND status = 'active'`, tenantID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return vitrine.Conflict("user_id", "A company always keeps at least one active owner: make another member owner first")
	}
	return nil
}

// UpdateMembership writes a membership's role, status and grants.
func (db *DB) UpdateMembership(ctx context.Context, ch vitrine.Change, m *vitrine.Membership) error {
	if !validIDs(m.TenantID, m.UserID) {
		return vitrine.NotFound("Member")
	}
	err := db.write(ctx, tenant(m.TenantID), ch, noTarget, func(c sqldb.Conn) error {
		if err := lockTenant(ctx, c, m.TenantID); err != nil {
			return err
		}
		n, err := c.Exec(ctx, `UPDATE memberships SET role = $1, status = $2, permissions = $3, updated_at = $4 WHERE tenant_id = $5 AND user_id = $6`,
			m.Role, string(m.Status), m.Grants.String(), m.UpdatedAt, m.TenantID, m.UserID)
		if err != nil {
			return err
		}
		if n == 0 {
			return vitrine.NotFound("Member")
		}
		return keepsAnOwner(ctx, c, m.TenantID)
	})
	if err != nil && vitrine.AsError(err) == nil {
		return fmt.Errorf("update membership: %w", err)
	}
	return err
}

// DeleteMembership removes a user from a tenant.
func (db *DB) DeleteMembership(ctx context.Context, ch vitrine.Change, tenantID, userID string) error {
	if !validIDs(tenantID, userID) {
		return vitrine.NotFound("Member")
	}
	err := db.write(ctx, tenant(tenantID), ch, noTarget, func(c sqldb.Conn) error {
		if err := lockTenant(ctx, c, tenantID); err != nil {
			return err
		}
		n, err := c.Exec(ctx, `DELETE FROM memberships WHERE tenant_id = $1 AND user_id = $2`, tenantID, userID)
		if err != nil {
			return err
		}
		if n == 0 {
			return vitrine.NotFound("Member")
		}
		return keepsAnOwner(ctx, c, tenantID)
	})
	if err != nil && vitrine.AsError(err) == nil {
		return fmt.Errorf("delete membership: %w", err)
	}
	return err
}

// RoleHolders returns the tenant's memberships, of any status, that hold
// the role.
func (db *DB) RoleHolders(ctx context.Context, tenantID, role string) ([]*vitrine.Membership, error) {
	if !validIDs(tenantID) {
		return nil, nil
	}
	var out []*vitrine.Membership
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (*vitrine.Membership, error) { return scanMembership(r) },
			`SELECT `+membershipColumns+membershipFrom+` WHERE m.tenant_id = $1 AND m.role = $2 ORDER BY m.user_id`, tenantID, role)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list role holders: %w", err)
	}
	return out, nil
}
