package catalog

import (
	"context"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// maxStockDelta bounds one stock adjustment.
const maxStockDelta = vitrine.MaxStock

// StockChange is what adjust_stock did.
type StockChange struct {
	Product *vitrine.Product
	Variant *vitrine.Variant
	Delta   int64
}

// AdjustStock adds delta (negative to take away) to a variant's stock,
// atomically: concurrent adjustments all count, and the stock never goes
// below zero. The movement is kept with its reason.
func (s *Catalog) AdjustStock(ctx context.Context, a *service.Access, ref VariantRef, delta int64, reason string) (*StockChange, error) {
	if err := a.Allow(service.OpAdjustStock); err != nil {
		return nil, err
	}
	if delta == 0 {
		return nil, vitrine.Invalid("delta", "delta must not be zero: a positive number adds stock, a negative one takes it away")
	}
	if delta > maxStockDelta || delta < -maxStockDelta {
		return nil, vitrine.Invalid("delta", "delta must be between %d and %d", -maxStockDelta, maxStockDelta)
	}
	reason, err := vitrine.ValidateName("reason", reason, 200)
	if err != nil {
		return nil, err
	}
	id, err := s.productOf(ctx, a, ref)
	if err != nil {
		return nil, err
	}
	ch := a.Change()
	ch.Reason = reason // the agent's own
	out := &StockChange{Delta: delta}
	p, err := s.store.UpdateProduct(ctx, ch, a.TenantID, id, func(p *vitrine.Product) error {
		v, err := variantIn(p, ref)
		if err != nil {
			return err
		}
		if v.Stock+delta < 0 {
			return vitrine.Invalid("delta", "the stock would go below zero: it is %d, and delta is %d", v.Stock, delta)
		}
		if v.Stock+delta > vitrine.MaxStock {
			return vitrine.Invalid("delta", "the stock would exceed %d", int64(vitrine.MaxStock))
		}
		v.Stock += delta
		p.Summarize()
		p.UpdatedAt, p.UpdatedBy = s.now(), a.Caller.User.ID
		out.Variant = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.Product = p
	return out, nil
}

// MovementPage is a page of stock movements, newest first.
type MovementPage struct {
	Movements  []*vitrine.StockMovement
	NextCursor string
}

// ListStockMovements returns a page of stock movements: of one product, or
// of the whole tenant.
func (s *Catalog) ListStockMovements(ctx context.Context, a *service.Access, productID string, limit int, cursor string) (*MovementPage, error) {
	if err := a.Allow(service.OpListStockMovements); err != nil {
		return nil, err
	}
	if _, err := service.PageSize(limit); err != nil {
		return nil, err
	}
	if productID != "" {
		if _, err := s.store.ProductByID(ctx, a.TenantID, productID); err != nil {
			return nil, err
		}
	}
	pg, err := service.OpenPage[string](ctx, s.svc, "movements\x00"+a.TenantID+"\x00"+productID, limit, cursor)
	if err != nil {
		return nil, err
	}
	var before string
	if pg.After != nil {
		before = *pg.After
	}
	ms, err := s.store.ListStockMovements(ctx, a.TenantID, productID, before, pg.Fetch())
	if err != nil {
		return nil, err
	}
	page := &MovementPage{}
	page.Movements, page.NextCursor = service.ClosePage(pg, ms, func(i int) string { return ms[i].ID })
	return page, nil
}
