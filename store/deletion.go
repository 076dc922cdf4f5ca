package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// ScheduleTenantDeletion marks a tenant for deletion (vitrine.TenantDeletionStore).
func (db *DB) ScheduleTenantDeletion(ctx context.Context, ch vitrine.Change, tenantID, userID string, at, deletesAt time.Time) (*vitrine.Tenant, error) {
	if !validIDs(tenantID) {
		return nil, vitrine.NotFound("Tenant")
	}
	var t *vitrine.Tenant
	err := db.write(ctx, tenant(tenantID), ch, is(tenantID), func(c sqldb.Conn) error {
		n, err := c.Exec(ctx, `UPDATE tenants SET deletes_at = $1, delete_requested_at = $2, delete_requested_by = $3, updated_at = $2
			WHERE id = $4 AND deletes_at IS NULL`, vitrine.Timestamp(deletesAt), vitrine.Timestamp(at), userID, tenantID)
		if err != nil {
			return err
		}
		if t, err = scanTenant(c.QueryRow(ctx, `SELECT `+tenantColumns+` FROM tenants WHERE id = $1`, tenantID)); err != nil {
			return err
		}
		if n == 0 {
			return vitrine.Conflict("tenant_id", "This company is already scheduled for deletion on %s", t.DeletesAt.Format(time.RFC3339))
		}
		return nil
	})
	return t, tenantErr("schedule tenant deletion", err)
}

// HastenTenantDeletion makes a scheduled tenant due now
// (vitrine.TenantDeletionStore).
func (db *DB) HastenTenantDeletion(ctx context.Context, ch vitrine.Change, tenantID string, now time.Time) (*vitrine.Tenant, error) {
	if !validIDs(tenantID) {
		return nil, vitrine.NotFound("Tenant")
	}
	var t *vitrine.Tenant
	err := db.write(ctx, tenant(tenantID), ch, is(tenantID), func(c sqldb.Conn) error {
		n, err := c.Exec(ctx, `UPDATE tenants SET deletes_at = $1, updated_at = $1 WHERE id = $2 AND deletes_at IS NOT NULL AND deletes_at > $1`,
			vitrine.Timestamp(now), tenantID)
		if err != nil {
			return err
		}
		if t, err = scanTenant(c.QueryRow(ctx, `SELECT `+tenantColumns+` FROM tenants WHERE id = $1`, tenantID)); err != nil {
			return err
		}
		if n == 0 && t.DeletesAt.IsZero() {
			return vitrine.Conflict("tenant_id", "This company is not scheduled for deletion")
		}
		return nil
	})
	return t, tenantErr("hasten tenant deletion", err)
}

// RestoreTenant clears a tenant's schedule (vitrine.TenantDeletionStore).
func (db *DB) RestoreTenant(ctx context.Context, ch vitrine.Change, tenantID string) (*vitrine.Tenant, error) {
	if !validIDs(tenantID) {
		return nil, vitrine.NotFound("Tenant")
	}
	var t *vitrine.Tenant
	err := db.write(ctx, tenant(tenantID), ch, is(tenantID), func(c sqldb.Conn) error {
		var begun bool
		if err := c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM deleted_tenants WHERE id = $1)`, tenantID).Scan(&begun); err != nil {
			return err
		}
		if begun {
			return vitrine.Conflict("tenant_id", "This company's purge has begun; it can no longer be restored")
		}
		n, err := c.Exec(ctx, `UPDATE tenants SET deletes_at = NULL, delete_requested_at = NULL, delete_requested_by = '', updated_at = $1
			WHERE id = $2 AND deletes_at IS NOT NULL`, vitrine.Timestamp(vitrine.Now()), tenantID)
		if err != nil {
			return err
		}
		if t, err = scanTenant(c.QueryRow(ctx, `SELECT `+tenantColumns+` FROM tenants WHERE id = $1`, tenantID)); err != nil {
			return err
		}
		if n == 0 {
			return vitrine.Conflict("tenant_id", "This company is not scheduled for deletion")
		}
		return nil
	})
	return t, tenantErr("restore tenant", err)
}

// tenantErr is err as a store method on a tenant answers it.
func tenantErr(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sqldb.ErrNoRows):
		return vitrine.NotFound("Tenant")
	case vitrine.AsError(err) != nil:
		return err
	}
	return fmt.Errorf("%s: %w", op, err)
}

// TenantsDue returns the tenants to purge (vitrine.TenantDeletionStore): a
// purge begun is a tenant whose deletion was due, and cannot be restored.
func (db *DB) TenantsDue(ctx context.Context, now time.Time, limit int) ([]string, error) {
	var ids []string
	err := db.d.Read(ctx, operator, func(c sqldb.Conn) (err error) {
		ids, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (id string, err error) { return id, r.Scan(&id) },
			`SELECT id FROM tenants WHERE deletes_at IS NOT NULL AND deletes_at <= $1 ORDER BY deletes_at, id`+limitTo(`$2`),
			vitrine.Timestamp(now), limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("tenants due for purge: %w", err)
	}
	return ids, nil
}

// PurgeTenantStep removes one batch of a due tenant's rows
// (vitrine.TenantDeletionStore). The tables are those of the schema that
// have a tenant_id column, read from the database's own catalog at each
// step (purgeTables): a table added by a later migration is purged
// without being named here. Each step is one short transaction, so that
// other companies' writes wait for one batch at most, and a purge cut
// short by a crash goes on from where it stood at the next step.
func (db *DB) PurgeTenantStep(ctx context.Context, tenantID string, now time.Time, batch int) (removed int64, done bool, err error) {
	if !validIDs(tenantID) {
		return 0, false, vitrine.NotFound("Tenant")
	}
	// The tables are read before the write, outside its lock: the write
	// transaction holds SQLite's one writer for its batch alone.
	var tables []purgeTable
	if err := db.d.Read(ctx, operator, func(c sqldb.Conn) (err error) {
		tables, err = db.purgeTables(ctx, c)
		return err
	}); err != nil {
		return 0, false, fmt.Errorf("purge tenant %s: %w", tenantID, err)
	}
	err = db.d.Write(ctx, operator, func(c sqldb.Conn) error {
		var (
			slug, name, by string
			deletes, asked sql.NullTime
		)
		err := c.QueryRow(ctx, `SELECT slug, name, deletes_at, delete_requested_at, delete_requested_by FROM tenants WHERE id = $1`, tenantID).
			Scan(&slug, &name, &deletes, &asked, &by)
		if errors.Is(err, sqldb.ErrNoRows) {
			var purged bool
			if err := c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM deleted_tenants WHERE id = $1 AND purged_at IS NOT NULL)`, tenantID).Scan(&purged); err != nil {
				return err
			}
			if !purged {
				return vitrine.NotFound("Tenant")
			}
			done = true
			return nil
		}
		if err != nil {
			return err
		}
		if !deletes.Valid || deletes.Time.After(now) {
			return vitrine.Conflict("tenant_id", "This company is not due for deletion")
		}
		if _, err := c.Exec(ctx, `INSERT INTO deleted_tenants (id, slug, name, requested_at, requested_by, purge_started_at)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
			tenantID, slug, name, vitrine.Timestamp(utcTime(asked)), by, vitrine.Timestamp(now)); err != nil {
			return err
		}
		for _, t := range tables {
			if len(t.selfRefs) > 0 {
				cleared, err := c.Exec(ctx, db.purgeUnlink(t), tenantID, batch)
				if err != nil {
					return fmt.Errorf("purge %s: %w", t.name, err)
				}
				if cleared > 0 {
					return nil // a step that removed nothing yet
				}
			}
			if removed, err = c.Exec(ctx, db.purgeBatch(t), tenantID, batch); err != nil {
				return fmt.Errorf("purge %s: %w", t.name, err)
			}
			if removed > 0 {
				_, err = c.Exec(ctx, `UPDATE deleted_tenants SET rows_removed = rows_removed + $1 WHERE id = $2`, removed, tenantID)
				return err
			}
		}
		// Nothing of the company is left but its own row.
		if _, err := c.Exec(ctx, `DELETE FROM tenants WHERE id = $1`, tenantID); err != nil {
			return err
		}
		removed, done = 1, true
		_, err = c.Exec(ctx, `UPDATE deleted_tenants SET rows_removed = rows_removed + 1, purged_at = $1 WHERE id = $2`, vitrine.Timestamp(now), tenantID)
		return err
	})
	if err != nil {
		if vitrine.AsError(err) != nil {
			return 0, false, err
		}
		return 0, false, fmt.Errorf("purge tenant %s: %w", tenantID, err)
	}
	return removed, done, nil
}

// purgeTable is a table that holds tenants' rows, and how one batch of
// them is picked: by the columns of its primary key, or, on SQLite
// without one, by rowid (PostgreSQL's batches go by ctid). A table that
// references itself (a tree) has its references cleared first (selfRefs,
// its columns of them but tenant_id): a batch may not hold a row's
// children.
type purgeTable struct {
	name     string
	key      []string
	selfRefs []string
}

// purgeTables returns the tables that have a tenant_id column but
// tenants' own, those that reference others first, so that no batch
// leaves a row pointing at one removed (nor cascades past its bound).
func (db *DB) purgeTables(ctx context.Context, c sqldb.Conn) ([]purgeTable, error) {
	var tablesQ, keysQ, refsQ string
	if db.d.Name() == "postgres" {
		tablesQ = `SELECT c.relname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
			WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
				AND a.attname = 'tenant_id' AND NOT a.attisdropped ORDER BY c.relname`
		refsQ = `SELECT c.conrelid::regclass::text, c.confrelid::regclass::text, a.attname
			FROM pg_constraint c CROSS JOIN unnest(c.conkey) k JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k
			WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace`
	} else {
		// Virtual tables (full-text search) are left out: their module
		// answers for them, and their content follows their tables'.
		tablesQ = `SELECT m.name FROM (SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%') m
			WHERE EXISTS (SELECT 1 FROM pragma_table_info(m.name) p WHERE p.name = 'tenant_id') ORDER BY m.name`
		keysQ = `SELECT name FROM pragma_table_info($1) WHERE pk > 0 ORDER BY pk`
		refsQ = `SELECT m.name, f."table", f."from" FROM (SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%') m,
			pragma_foreign_key_list(m.name) f`
	}
	names, err := sqldb.Collect(ctx, c, func(r sqldb.Row) (s string, err error) { return s, r.Scan(&s) }, tablesQ)
	if err != nil {
		return nil, fmt.Errorf("list tenant tables: %w", err)
	}
	refs, err := sqldb.Collect(ctx, c, func(r sqldb.Row) (e [3]string, err error) { return e, r.Scan(&e[0], &e[1], &e[2]) }, refsQ)
	if err != nil {
		return nil, fmt.Errorf("list foreign keys: %w", err)
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == "tenants" })
	ordered := referencingFirst(names, refs)
	out := make([]purgeTable, 0, len(ordered))
	for _, n := range ordered {
		t := purgeTable{name: n}
		if keysQ != "" {
			if t.key, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (s string, err error) { return s, r.Scan(&s) }, keysQ, n); err != nil {
				return nil, fmt.Errorf("key of %s: %w", n, err)
			}
		}
		for _, r := range refs {
			if strings.Trim(r[0], `"`) == n && strings.Trim(r[1], `"`) == n && r[2] != "tenant_id" && !slices.Contains(t.selfRefs, r[2]) {
				t.selfRefs = append(t.selfRefs, r[2])
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// referencingFirst orders tables so that a table comes before every table
// it references (refs: referencing, referenced); among equals, by name.
func referencingFirst(tables []string, refs [][3]string) []string {
	referencedBy := map[string][]string{}
	for _, r := range refs {
		from, to := strings.Trim(r[0], `"`), strings.Trim(r[1], `"`)
		if from != to {
			referencedBy[to] = append(referencedBy[to], from)
		}
	}
	var (
		out  []string
		seen = map[string]bool{}
		in   = map[string]bool{}
	)
	for _, t := range tables {
		in[t] = true
	}
	var visit func(string)
	visit = func(t string) {
		if seen[t] {
			return
		}
		seen[t] = true
		for _, from := range referencedBy[t] {
			visit(from)
		}
		if in[t] {
			out = append(out, t)
		}
	}
	for _, t := range tables {
		visit(t)
	}
	return out
}

// purgeBatch is the statement that removes up to $2 rows of the tenant $1
// from t.
func (db *DB) purgeBatch(t purgeTable) string {
	name := `"` + t.name + `"`
	if db.d.Name() == "postgres" {
		return `DELETE FROM ` + name + ` WHERE ctid = ANY(ARRAY(SELECT ctid FROM ` + name + ` WHERE tenant_id = $1` + limitTo(`$2`) + `))`
	}
	key := sqliteKey(t)
	return `DELETE FROM ` + name + ` WHERE ` + key + ` IN (SELECT ` + strings.Trim(key, "()") + ` FROM ` + name + ` WHERE tenant_id = $1` + limitTo(`$2`) + `)`
}

// purgeUnlink is the statement that clears the references to itself of
// up to $2 rows of the tenant $1 in t.
func (db *DB) purgeUnlink(t purgeTable) string {
	name := `"` + t.name + `"`
	var set, any []string
	for _, col := range t.selfRefs {
		set = append(set, `"`+col+`" = NULL`)
		any = append(any, `"`+col+`" IS NOT NULL`)
	}
	where := ` WHERE tenant_id = $1 AND (` + strings.Join(any, ` OR `) + `)`
	if db.d.Name() == "postgres" {
		return `UPDATE ` + name + ` SET ` + strings.Join(set, `, `) + ` WHERE ctid = ANY(ARRAY(SELECT ctid FROM ` + name + where + limitTo(`$2`) + `))`
	}
	key := sqliteKey(t)
	return `UPDATE ` + name + ` SET ` + strings.Join(set, `, `) + ` WHERE ` + key + ` IN (SELECT ` + strings.Trim(key, "()") + ` FROM ` + name + where + limitTo(`$2`) + `)`
}

// sqliteKey is how SQLite picks a row of t: its primary key, or rowid.
func sqliteKey(t purgeTable) string {
	key := "rowid"
	if len(t.key) > 0 {
		key = `"` + strings.Join(t.key, `", "`) + `"`
		if len(t.key) > 1 {
			key = "(" + key + ")"
		}
	}
	return key
}

// TakeLease takes or renews a lease (vitrine.TenantDeletionStore).
func (db *DB) TakeLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	var n int64
	err := db.d.Write(ctx, operator, func(c sqldb.Conn) (err error) {
		n, err = c.Exec(ctx, `INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
			WHERE leases.holder = excluded.holder OR leases.expires_at <= $4`,
			name, holder, vitrine.Timestamp(now.Add(ttl)), vitrine.Timestamp(now))
		return err
	})
	if err != nil {
		return false, fmt.Errorf("take lease %s: %w", name, err)
	}
	return n == 1, nil
}

// ReleaseLease gives a lease up (vitrine.TenantDeletionStore).
func (db *DB) ReleaseLease(ctx context.Context, name, holder string) error {
	err := db.d.Write(ctx, operator, func(c sqldb.Conn) error {
		_, err := c.Exec(ctx, `DELETE FROM leases WHERE name = $1 AND holder = $2`, name, holder)
		return err
	})
	if err != nil {
		return fmt.Errorf("release lease %s: %w", name, err)
	}
	return nil
}

// DeletedTenants returns the records of deletions (vitrine.TenantDeletionStore).
func (db *DB) DeletedTenants(ctx context.Context, limit int) ([]*vitrine.DeletedTenant, error) {
	var out []*vitrine.DeletedTenant
	err := db.d.Read(ctx, operator, func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (*vitrine.DeletedTenant, error) {
			var (
				d      vitrine.DeletedTenant
				purged sql.NullTime
			)
			err := r.Scan(&d.ID, &d.Slug, &d.Name, &d.RequestedAt, &d.RequestedBy, &d.PurgeStartedAt, &purged, &d.RowsRemoved)
			d.PurgedAt = utcTime(purged)
			return &d, err
		}, `SELECT id, slug, name, requested_at, requested_by, purge_started_at, purged_at, rows_removed FROM deleted_tenants
			ORDER BY purge_started_at DESC, id`+limitTo(`$1`), limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list deleted tenants: %w", err)
	}
	return out, nil
}
