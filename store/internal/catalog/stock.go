package catalog

import (
	"context"
	"fmt"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// recordStock records a change of v's stock by delta, if there is one,
// with ch's reason and request id.
func recordStock(ctx context.Context, c sqldb.Conn, ch vitrine.Change, p *vitrine.Product, v *vitrine.Variant, delta int64) error {
	if delta == 0 {
		return nil
	}
	return sqldb.ExecLater(ctx, c, `INSERT INTO stock_movements (tenant_id, id, product_id, variant_id, delta, stock_after, reason, user_id, request_id, at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		p.TenantID, vitrine.NewID(), p.ID, v.ID, delta, v.Stock, ch.Reason, p.UpdatedBy, ch.Call.RequestID, p.UpdatedAt)
}

// ListStockMovements returns a page of stock movements, newest first.
func (db *Store) ListStockMovements(ctx context.Context, tenantID, productID, before string, limit int) ([]*vitrine.StockMovement, error) {
	if !base.ValidIDs(tenantID) || (productID != "" && !base.ValidIDs(productID)) {
		return nil, nil
	}
	var q base.QueryBuilder
	q.Add(`tenant_id = `, tenantID)
	if productID != "" {
		q.Add(`product_id = `, productID)
	}
	if before != "" {
		q.Add(`id < `, before)
	}
	query := `SELECT tenant_id, id, product_id, coalesce(variant_id, product_id), delta, stock_after, reason, user_id, request_id, at FROM stock_movements WHERE ` +
		strings.Join(q.Where, ` AND `) + ` ORDER BY id DESC` + base.LimitTo(q.Arg(limit))
	var out []*vitrine.StockMovement
	err := db.d.Read(ctx, base.Tenant(tenantID), func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (*vitrine.StockMovement, error) {
			var m vitrine.StockMovement
			return &m, r.Scan(&m.TenantID, &m.ID, &m.ProductID, &m.VariantID, &m.Delta, &m.StockAfter, &m.Reason, &m.UserID, &m.RequestID, &m.At)
		}, query, q.Args...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list stock movements: %w", err)
	}
	return out, nil
}
