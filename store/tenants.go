package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

const tenantColumns = `id, name, slug, currency, locales, created_at, updated_at, deletes_at`

func scanTenant(r sqldb.Row) (*vitrine.Tenant, error) {
	var t vitrine.Tenant
	if err := r.Scan(tenantDest(&t)...); err != nil {
		return nil, err
	}
	return &t, nil
}

// utcTime is a nullable time as a time, zero when NULL.
func utcTime(t sql.NullTime) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time.UTC()
}

// tenantDest are where the columns of tenantColumns scan to.
func tenantDest(t *vitrine.Tenant) []any {
	return []any{&t.ID, &t.Name, &t.Slug, &t.Currency, localesOf{t}, &t.CreatedAt, &t.UpdatedAt, nullUTC{&t.DeletesAt}}
}

// nullUTC scans a nullable time into a time, zero when NULL.
type nullUTC struct{ t *time.Time }

func (n nullUTC) Scan(src any) error {
	var v sql.NullTime
	if err := v.Scan(src); err != nil {
		return err
	}
	*n.t = utcTime(v)
	return nil
}

// localesOf scans a tenant's stored locales into it.
type localesOf struct{ t *vitrine.Tenant }

func (l localesOf) Scan(src any) error {
	switch v := src.(type) {
	case string:
		l.t.Locales = vitrine.DecodeLocales(v)
	case []byte:
		l.t.Locales = vitrine.DecodeLocales(string(v))
	default:
		return fmt.Errorf("tenant locales: cannot scan %T", src)
	}
	return nil
}

// CreateTenant stores a tenant and its first owner's membership in one
// transaction. A taken slug is a ConflictError.
func (db *DB) CreateTenant(ctx context.Context, ch vitrine.Change, t *vitrine.Tenant, owner *vitrine.Membership) error {
	err := db.write(ctx, tenant(t.ID), ch, is(t.ID), func(c sqldb.Conn) error {
		if _, err := c.Exec(ctx, `INSERT INTO tenants (id, name, slug, currency, locales, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			t.ID, t.Name, t.Slug, or(t.Currency, vitrine.DefaultCurrency), vitrine.EncodeLocales(t.Locales), t.CreatedAt, t.UpdatedAt); err != nil {
			return err
		}
		return insertMembership(ctx, c, owner)
	})
	if name, ok := db.d.Constraint(err); ok && name == "tenants_slug_key" {
		return vitrine.Conflict("slug", "A company with slug %q already exists; choose another slug", t.Slug)
	}
	if err != nil {
		return fmt.Errorf("create tenant: %w", err)
	}
	return nil
}

// TenantByID returns a tenant, or NotFoundError.
func (db *DB) TenantByID(ctx context.Context, id string) (*vitrine.Tenant, error) {
	if !validIDs(id) {
		return nil, vitrine.NotFound("Tenant")
	}
	return db.tenant(ctx, tenant(id), `SELECT `+tenantColumns+` FROM tenants WHERE id = $1`, id)
}

// TenantBySlug returns the tenant with that slug, or NotFoundError.
func (db *DB) TenantBySlug(ctx context.Context, slug string) (*vitrine.Tenant, error) {
	return db.tenant(ctx, operator, `SELECT `+tenantColumns+` FROM tenants WHERE slug = $1`, slug)
}

func (db *DB) tenant(ctx context.Context, s sqldb.Scope, query, arg string) (*vitrine.Tenant, error) {
	var t *vitrine.Tenant
	err := db.d.Read(ctx, s, func(c sqldb.Conn) (err error) {
		t, err = scanTenant(c.QueryRow(ctx, query, arg))
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, vitrine.NotFound("Tenant")
	}
	if err != nil {
		return nil, fmt.Errorf("get tenant: %w", err)
	}
	return t, nil
}

// UpdateTenant writes a tenant's name, slug, currency and locales.
func (db *DB) UpdateTenant(ctx context.Context, ch vitrine.Change, t *vitrine.Tenant) error {
	if !validIDs(t.ID) {
		return vitrine.NotFound("Tenant")
	}
	var n int64
	// The company's name and slug are its window's too: the catalog's
	// sequence moves, and feeds tagged by it are read anew.
	err := db.writeCatalog(ctx, tenant(t.ID), ch, is(t.ID), func(c sqldb.Conn) (err error) {
		n, err = c.Exec(ctx, `UPDATE tenants SET name = $1, slug = $2, currency = $3, locales = $4, updated_at = $5 WHERE id = $6`,
			t.Name, t.Slug, or(t.Currency, vitrine.DefaultCurrency), vitrine.EncodeLocales(t.Locales), t.UpdatedAt, t.ID)
		return err
	})
	if name, ok := db.d.Constraint(err); ok && name == "tenants_slug_key" {
		return vitrine.Conflict("slug", "A company with slug %q already exists; choose another slug", t.Slug)
	}
	if err != nil {
		return fmt.Errorf("update tenant: %w", err)
	}
	if n == 0 {
		return vitrine.NotFound("Tenant")
	}
	return nil
}

// ListTenants returns up to limit tenants ordered by slug, after the slug
// after: the operator's view across tenants.
func (db *DB) ListTenants(ctx context.Context, after string, limit int) ([]*vitrine.Tenant, error) {
	var out []*vitrine.Tenant
	err := db.d.Read(ctx, operator, func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, scanTenant, `SELECT `+tenantColumns+` FROM tenants WHERE slug > $1 ORDER BY slug`+limitTo(`$2`), after, limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list tenants: %w", err)
	}
	return out, nil
}

// or is s, or fallback when s is empty.
func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
