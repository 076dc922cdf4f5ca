package mcpserver

import (
	"context"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

type adjustStockIn struct {
	TenantArg
	ID     string `json:"id" jsonschema:"The product's id."`
	Delta  int64  `json:"delta" jsonschema:"Units to add (positive) or take away (negative); the stock never goes below zero."`
	Reason string `json:"reason" jsonschema:"Why the stock changes, kept with the movement: \"sale\", \"restock\", \"inventory count\"."`
}

type movementOut struct {
	ID         string    `json:"id"`
	ProductID  string    `json:"product_id"`
	Delta      int64     `json:"delta" jsonschema:"Units added (positive) or taken away (negative)."`
	StockAfter int64     `json:"stock_after"`
	Reason     string    `json:"reason"`
	UserID     string    `json:"user_id"`
	RequestID  string    `json:"request_id"`
	Time       time.Time `json:"time"`
}

type listMovementsIn struct {
	TenantArg
	ProductID string    `json:"product_id,omitempty" jsonschema:"Only the movements of this product. Default: all the company's."`
	Limit     pageLimit `json:"limit,omitempty" jsonschema:"Movements per page, 1 to 100. Default: 20."`
	Cursor    string    `json:"cursor,omitempty" jsonschema:"The next_cursor of the previous page. Omit for the first page."`
}

type listMovementsOut struct {
	Movements  []movementOut `json:"movements"`
	NextCursor string        `json:"next_cursor" jsonschema:"Pass as cursor for the next page; empty on the last page."`
}

func stockTools(svc *service.Service) []*Tool {
	return []*Tool{
		tenantTool(svc, Tool{
			Name:  "adjust_stock",
			Title: "Adjust stock",
			Description: "Add units to a product's stock, or take them away, with a reason. Atomic: adjustments made at " +
				"the same time all count. A change that would take the stock below zero is a ValidationError and " +
				"changes nothing. Every movement is kept (list_stock_movements).",
			Toolset: "products", Permission: vitrine.ProductsUpdate, TargetArg: "id",
		}, func(ctx context.Context, a *service.Access, in adjustStockIn) (productOut, error) {
			p, err := svc.AdjustStock(ctx, a, in.ID, in.Delta, in.Reason)
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
		tenantTool(svc, Tool{
			Name:  "list_stock_movements",
			Title: "List stock movements",
			Description: "List the changes of stock, newest first, of one product or of the whole company: each with " +
				"its delta, the stock after it, its reason, who made it and when.",
			Toolset: "products", Permission: vitrine.ProductsRead, ReadOnly: true, Idempotent: true, TargetArg: "product_id",
		}, func(ctx context.Context, a *service.Access, in listMovementsIn) (listMovementsOut, error) {
			page, err := svc.ListStockMovements(ctx, a, in.ProductID, int(in.Limit), in.Cursor)
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
