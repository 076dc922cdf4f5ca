package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// Categories returns the tenant's categories, parents before children,
// each level by position then name.
func (db *Store) Categories(ctx context.Context, tenantID string) ([]*vitrine.Category, error) {
	if !base.ValidIDs(tenantID) {
		return nil, nil
	}
	var all []*vitrine.Category
	err := db.d.Read(ctx, base.Tenant(tenantID), func(c sqldb.Conn) (err error) {
		all, err = sqldb.Collect(ctx, c, scanCategory, `SELECT tenant_id, id, coalesce(CAST(parent_id AS TEXT), ''), name, handle, position, created_at, updated_at
			FROM categories WHERE tenant_id = $1 ORDER BY position, name, id`, tenantID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list categories: %w", err)
	}
	// Depth first, so that a parent comes before its children.
	children := map[string][]*vitrine.Category{}
	for _, c := range all {
		children[c.ParentID] = append(children[c.ParentID], c)
	}
	out := make([]*vitrine.Category, 0, len(all))
	var walk func(parent string)
	walk = func(parent string) {
		for _, c := range children[parent] {
			out = append(out, c)
			walk(c.ID)
		}
	}
	walk("")
	return out, nil
}

func scanCategory(r sqldb.Row) (*vitrine.Category, error) {
	var c vitrine.Category
	err := r.Scan(&c.TenantID, &c.ID, &c.ParentID, &c.Name, &c.Handle, &c.Position, &c.CreatedAt, &c.UpdatedAt)
	return &c, err
}

// categoryTreeLock is the first key of the PostgreSQL advisory locks that
// serialize each tenant's category tree writes (the second is the tenant's
// hash). Two-key advisory locks are a space apart from the one-key locks
// of the migrations and the audit log's pruning.
const categoryTreeLock int32 = 0x63617467 // "catg"

// lockTree makes the transaction the only writer of the tenant's category
// tree until it ends. Without it, on PostgreSQL, two concurrent moves (A
// under B, B under A) each checked the tree before the other's move and
// made a cycle, whose categories no list reached. SQLite has one writer
// at a time already. pg_advisory_xact_lock needs no privilege: a
// least-privilege login takes it as well.
func (db *Store) lockTree(ctx context.Context, c sqldb.Conn, tenantID string) error {
	if db.d.Name() != "postgres" {
		return nil
	}
	h := fnv.New32a()
	h.Write([]byte(tenantID))
	_, err := c.Exec(ctx, `SELECT pg_advisory_xact_lock(CAST($1 AS integer), CAST($2 AS integer))`, categoryTreeLock, int32(h.Sum32()))
	return err
}

// SaveCategory creates or updates a category. A parent must be the
// tenant's, and not the category itself or one under it.
func (db *Store) SaveCategory(ctx context.Context, ch vitrine.Change, cat *vitrine.Category, update bool) error {
	if !base.ValidIDs(cat.TenantID, cat.ID) || (cat.ParentID != "" && !base.ValidIDs(cat.ParentID)) {
		return vitrine.NotFound("Category")
	}
	var parent any
	if cat.ParentID != "" {
		parent = cat.ParentID
	}
	err := db.write(ctx, base.Tenant(cat.TenantID), ch, base.Is(cat.ID), treeChanged, func(c sqldb.Conn) error {
		if err := db.lockTree(ctx, c, cat.TenantID); err != nil {
			return err
		}
		if cat.ParentID != "" {
			// Up from the parent to the root: neither missing nor this one.
			ancestors, err := sqldb.Collect(ctx, c, func(r sqldb.Row) (string, error) {
				var s string
				return s, r.Scan(&s)
			}, `WITH RECURSIVE up (id, parent_id) AS (
					SELECT id, parent_id FROM categories WHERE tenant_id = $1 AND id = $2
					UNION SELECT c.id, c.parent_id FROM categories c JOIN up u ON c.id = u.parent_id WHERE c.tenant_id = $1
				) SELECT id FROM up`, cat.TenantID, cat.ParentID)
			if err != nil {
				return err
			}
			if len(ancestors) == 0 {
				return vitrine.Invalid("parent_id", "no category %s in this company to put it under", cat.ParentID)
			}
			for _, a := range ancestors {
				if a == cat.ID {
					return vitrine.Invalid("parent_id", "a category cannot go under itself or one of its own subcategories")
				}
			}
		}
		if !update {
			_, err := c.Exec(ctx, `INSERT INTO categories (tenant_id, id, parent_id, name, handle, position, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, cat.TenantID, cat.ID, parent, cat.Name, cat.Handle, cat.Position, cat.CreatedAt, cat.UpdatedAt)
			return err
		}
		n, err := c.Exec(ctx, `UPDATE categories SET parent_id = $1, name = $2, handle = $3, position = $4, updated_at = $5
			WHERE tenant_id = $6 AND id = $7`, parent, cat.Name, cat.Handle, cat.Position, cat.UpdatedAt, cat.TenantID, cat.ID)
		if err == nil && n == 0 {
			return vitrine.NotFound("Category")
		}
		return err
	})
	if name, ok := db.d.Constraint(err); ok && name == "categories_handle" {
		return vitrine.Conflict("handle", "A category with handle %q already exists in this company", cat.Handle)
	}
	if err != nil && vitrine.AsError(err) == nil {
		return fmt.Errorf("save category: %w", err)
	}
	return err
}

// DeleteCategory removes a category without children: its products leave
// it (their records drop its id at their next write; reads skip it).
func (db *Store) DeleteCategory(ctx context.Context, ch vitrine.Change, tenantID, id string) error {
	if !base.ValidIDs(tenantID, id) {
		return vitrine.NotFound("Category")
	}
	err := db.write(ctx, base.Tenant(tenantID), ch, base.Is(id), treeChanged, func(c sqldb.Conn) error {
		if err := db.lockTree(ctx, c, tenantID); err != nil {
			return err
		}
		var children int
		if err := c.QueryRow(ctx, `SELECT count(*) FROM categories WHERE tenant_id = $1 AND parent_id = $2`, tenantID, id).Scan(&children); err != nil {
			return err
		}
		if children > 0 {
			return vitrine.Conflict("id", "The category has %d subcategories; move or delete them first", children)
		}
		n, err := c.Exec(ctx, `DELETE FROM categories WHERE tenant_id = $1 AND id = $2`, tenantID, id)
		if err == nil && n == 0 {
			return vitrine.NotFound("Category")
		}
		if err != nil {
			return err
		}
		return deleteTranslations(ctx, c, tenantID, vitrine.TranslateCategory, id)
	})
	if err != nil && vitrine.AsError(err) == nil {
		return fmt.Errorf("delete category: %w", err)
	}
	return err
}

// Attributes returns the tenant's attribute definitions, by key.
func (db *Store) Attributes(ctx context.Context, tenantID string) ([]*vitrine.Attribute, error) {
	if !base.ValidIDs(tenantID) {
		return nil, nil
	}
	var out []*vitrine.Attribute
	err := db.d.Read(ctx, base.Tenant(tenantID), func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (*vitrine.Attribute, error) {
			var (
				a      vitrine.Attribute
				typ    string
				values string
			)
			if err := r.Scan(&a.TenantID, &a.Key, &a.Name, &typ, &values, &a.Public, &a.CreatedAt, &a.UpdatedAt); err != nil {
				return nil, err
			}
			a.Type = vitrine.AttributeType(typ)
			return &a, json.Unmarshal([]byte(values), &a.Values)
		}, `SELECT tenant_id, key, name, type, enum_values, public, created_at, updated_at FROM attributes WHERE tenant_id = $1 ORDER BY key`, tenantID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list attributes: %w", err)
	}
	return out, nil
}

// SaveAttribute creates or updates an attribute definition.
func (db *Store) SaveAttribute(ctx context.Context, ch vitrine.Change, a *vitrine.Attribute, update bool) error {
	if !base.ValidIDs(a.TenantID) {
		return vitrine.NotFound("Tenant")
	}
	values, err := json.Marshal(a.Values)
	if err != nil {
		return err
	}
	if a.Values == nil {
		values = []byte("[]")
	}
	err = db.write(ctx, base.Tenant(a.TenantID), ch, base.Is(a.Key), noChanges, func(c sqldb.Conn) error {
		if !update {
			_, err := c.Exec(ctx, `INSERT INTO attributes (tenant_id, key, name, type, enum_values, public, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, a.TenantID, a.Key, a.Name, string(a.Type), string(values), a.Public, a.CreatedAt, a.UpdatedAt)
			return err
		}
		n, err := c.Exec(ctx, `UPDATE attributes SET name = $1, enum_values = $2, public = $3, updated_at = $4 WHERE tenant_id = $5 AND key = $6`,
			a.Name, string(values), a.Public, a.UpdatedAt, a.TenantID, a.Key)
		if err == nil && n == 0 {
			return vitrine.NotFound("Attribute")
		}
		return err
	})
	if name, ok := db.d.Constraint(err); ok && name == "attributes_pkey" {
		return vitrine.Conflict("key", "An attribute %q already exists in this company", a.Key)
	}
	if err != nil && vitrine.AsError(err) == nil {
		return fmt.Errorf("save attribute: %w", err)
	}
	return err
}

// DeleteAttribute removes a definition no product has a value of.
func (db *Store) DeleteAttribute(ctx context.Context, ch vitrine.Change, tenantID, key string) error {
	if !base.ValidIDs(tenantID) {
		return vitrine.NotFound("Attribute")
	}
	err := db.write(ctx, base.Tenant(tenantID), ch, base.Is(key), noChanges, func(c sqldb.Conn) error {
		var used int
		if err := c.QueryRow(ctx, `SELECT count(*) FROM product_attributes WHERE tenant_id = $1 AND key = $2`, tenantID, key).Scan(&used); err != nil {
			return err
		}
		if used > 0 {
			return vitrine.Conflict("key", "%d products have a value of attribute %q; remove it from them first (update_product with attributes)", used, key)
		}
		n, err := c.Exec(ctx, `DELETE FROM attributes WHERE tenant_id = $1 AND key = $2`, tenantID, key)
		if err == nil && n == 0 {
			return vitrine.NotFound("Attribute")
		}
		if err != nil {
			return err
		}
		return deleteTranslations(ctx, c, tenantID, vitrine.TranslateAttribute, key)
	})
	if err != nil && !errors.As(err, new(*vitrine.Error)) {
		return fmt.Errorf("delete attribute: %w", err)
	}
	return err
}
