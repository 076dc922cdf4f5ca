package store

import (
	"context"
	"fmt"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// CreateTenantExport stores a running export, and removes the company's
// expired ones (their chunks go with them).
func (db *DB) CreateTenantExport(ctx context.Context, ch vitrine.Change, e *vitrine.TenantExport) error {
	if !validIDs(e.TenantID, e.ID, e.UserID) {
		return vitrine.NotFound("Tenant")
	}
	return base.Write(ctx, db.d, tenant(e.TenantID), ch, base.Accounts, base.Is(e.TenantID), func(c sqldb.Conn) error {
		if _, err := c.Exec(ctx, `DELETE FROM tenant_exports WHERE tenant_id = $1 AND expires_at < $2`, e.TenantID, e.CreatedAt); err != nil {
			return err
		}
		_, err := c.Exec(ctx, `INSERT INTO tenant_exports (tenant_id, id, user_id, status, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			e.TenantID, e.ID, e.UserID, e.Status, e.CreatedAt, e.ExpiresAt)
		return err
	})
}

// AppendTenantExport stores one chunk of an export.
func (db *DB) AppendTenantExport(ctx context.Context, tenantID, id string, seq int, data []byte) error {
	return db.d.Write(ctx, tenant(tenantID), func(c sqldb.Conn) error {
		_, err := c.Exec(ctx, `INSERT INTO tenant_export_chunks (tenant_id, export_id, seq, data) VALUES ($1, $2, $3, $4)`, tenantID, id, seq, data)
		return err
	})
}

// FinishTenantExport writes how an export ended; a failed one loses its
// chunks.
func (db *DB) FinishTenantExport(ctx context.Context, e *vitrine.TenantExport) error {
	return db.d.Write(ctx, tenant(e.TenantID), func(c sqldb.Conn) error {
		if e.Status == vitrine.ExportFailed {
			if _, err := c.Exec(ctx, `DELETE FROM tenant_export_chunks WHERE tenant_id = $1 AND export_id = $2`, e.TenantID, e.ID); err != nil {
				return err
			}
		}
		_, err := c.Exec(ctx, `UPDATE tenant_exports SET status = $3, bytes = $4, sha256 = $5, error = $6 WHERE tenant_id = $1 AND id = $2`,
			e.TenantID, e.ID, e.Status, e.Bytes, e.SHA256, e.Error)
		return err
	})
}

// TenantExport returns an export of the tenant.
func (db *DB) TenantExport(ctx context.Context, tenantID, id string) (*vitrine.TenantExport, error) {
	if !validIDs(tenantID, id) {
		return nil, vitrine.NotFound("Export")
	}
	e := &vitrine.TenantExport{TenantID: tenantID, ID: id}
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) error {
		return c.QueryRow(ctx, `SELECT user_id, status, bytes, sha256, error, created_at, expires_at FROM tenant_exports WHERE tenant_id = $1 AND id = $2`, tenantID, id).
			Scan(&e.UserID, &e.Status, &e.Bytes, &e.SHA256, &e.Error, &e.CreatedAt, &e.ExpiresAt)
	})
	if err == sqldb.ErrNoRows {
		return nil, vitrine.NotFound("Export")
	}
	if err != nil {
		return nil, fmt.Errorf("read export %s: %w", id, err)
	}
	return e, nil
}

// ReadTenantExport reads an export's chunks one statement each.
func (db *DB) ReadTenantExport(ctx context.Context, tenantID, id string, fn func([]byte) error) error {
	if !validIDs(tenantID, id) {
		return vitrine.NotFound("Export")
	}
	for seq := 0; ; seq++ {
		var data []byte
		err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) error {
			return c.QueryRow(ctx, `SELECT data FROM tenant_export_chunks WHERE tenant_id = $1 AND export_id = $2 AND seq = $3`, tenantID, id, seq).Scan(&data)
		})
		if err == sqldb.ErrNoRows {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read export %s: %w", id, err)
		}
		if err := fn(data); err != nil {
			return err
		}
	}
}
