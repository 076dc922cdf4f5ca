package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

func stockTools() []*Tool {
	return []*Tool{
		catalogTool(Tool{
			Name:        "adjust_stock",
			Title:       "Adjust stock",
			Description: "Add or take away units of a variant's stock, atomically, never below zero; movements kept.",
			Toolset:     "products", Op: service.OpAdjustStock,
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.AdjustStockIn) (shapes.AdjustStockOut, error) {
			ch, err := cat.AdjustStock(ctx, a, catalog.VariantRef{ProductID: in.ID, VariantID: in.VariantID, SKU: string(in.SKU)}, in.Delta, string(in.Reason))
			if err != nil {
				return shapes.AdjustStockOut{}, err
			}
			return shapes.AdjustStockOut{ID: ch.Product.ID, VariantID: ch.Variant.ID, SKU: ch.Variant.SKU, Delta: ch.Delta,
				Stock: ch.Variant.Stock, ProductStock: ch.Product.Stock, Version: ch.Product.Version}, nil
		}),
		catalogTool(Tool{
			Name:        "list_stock_movements",
			Title:       "List stock movements",
			Description: "List the changes of stock of a product or of the company, newest first, with reason, author and time.",
			Toolset:     "inventory", Op: service.OpListStockMovements, ReadOnly: true, Idempotent: true, TargetArg: "product_id",
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.ListMovementsIn) (shapes.ListMovementsOut, error) {
			page, err := cat.ListStockMovements(ctx, a, in.ProductID, int(in.PageSize), string(in.Cursor))
			if err != nil {
				return shapes.ListMovementsOut{}, err
			}
			out := shapes.ListMovementsOut{Movements: make([]shapes.MovementOut, 0, len(page.Movements)), NextCursor: page.NextCursor}
			for _, m := range page.Movements {
				out.Movements = append(out.Movements, shapes.MovementOut{ID: m.ID, ProductID: m.ProductID, VariantID: m.VariantID, Delta: m.Delta, StockAfter: m.StockAfter,
					Reason: m.Reason, UserID: m.UserID, RequestID: m.RequestID, Time: m.At})
			}
			return out, nil
		}),
	}
}
