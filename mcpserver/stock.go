package mcpserver

import (
	"context"
	"time"

	"github.com/vitrine/vitrine/service"
)

type adjustStockIn struct {
	TenantArg
	ID     string    `json:"id"`
	Delta  int64     `json:"delta" jsonschema:"Units to add (positive) or take away (negative)."`
	Reason shortText `json:"reason" jsonschema:"Such as sale, restock, inventory count."`
}

type movementOut struct {
	ID         string    `json:"id"`
	ProductID  string    `json:"product_id"`
	Delta      int64     `json:"delta"`
	StockAfter int64     `json:"stock_after"`
	Reason     string    `json:"reason"`
	UserID     string    `json:"user_id"`
	RequestID  string    `json:"request_id"`
	Time       time.Time `json:"time"`
}

type listMovementsIn struct {
	TenantArg
	ProductID string `json:"product_id,omitempty" jsonschema:"Default: every product's."`
	pageArgs
}

type listMovementsOut struct {
	Movements  []movementOut `json:"movements"`
	NextCursor string        `json:"next_cursor"`
}

func stockTools(svc *service.Service) []*Tool {
	return []*Tool{
		tenantTool(svc, Tool{
			Name:  "adjust_stock",
			Title: "Adjust stock",
			Description: "Add units to a product's stock or take them away, atomically; it never goes below zero. " +
				"Each movement is kept.",
			Toolset: "products", Op: service.OpAdjustStock, TargetArg: "id",
		}, func(ctx context.Context, a *service.Access, in adjustStockIn) (productOut, error) {
			p, err := svc.AdjustStock(ctx, a, in.ID, in.Delta, string(in.Reason))
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
		tenantTool(svc, Tool{
			Name:        "list_stock_movements",
			Title:       "List stock movements",
			Description: "List the changes of stock of a product or of the company, newest first, with reason, author and time.",
			Toolset:     "inventory", Op: service.OpListStockMovements, ReadOnly: true, Idempotent: true, TargetArg: "product_id",
		}, func(ctx context.Context, a *service.Access, in listMovementsIn) (listMovementsOut, error) {
			page, err := svc.ListStockMovements(ctx, a, in.ProductID, int(in.Limit), string(in.Cursor))
			if err != nil {
				return listMovementsOut{}, err
			}
			out := listMovementsOut{Movements: make([]movementOut, 0, len(page.Movements)), NextCursor: page.NextCursor}
			for _, m := range page.Movements {
				out.Movements = append(out.Movements, movementOut{ID: m.ID, ProductID: m.ProductID, Delta: m.Delta, StockAfter: m.StockAfter,
					Reason: m.Reason, UserID: m.UserID, RequestID: m.RequestID, Time: m.At})
			}
			return out, nil
		}),
	}
}
