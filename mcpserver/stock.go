package mcpserver

import (
	"context"
	"time"

	"github.com/vitrine/vitrine/service"
)

type adjustStockIn struct {
	TenantArg
	VariantID string    `json:"variant_id,omitempty" jsonschema:"Or sku, or id."`
	SKU       sku       `json:"sku,omitempty"`
	ID        string    `json:"id,omitempty" jsonschema:"One-variant product's."`
	Delta     int64     `json:"delta" jsonschema:"Units to add, or take away (negative)."`
	Reason    shortText `json:"reason" jsonschema:"Such as sale, restock."`
}

type adjustStockOut struct {
	ID           string `json:"id"`
	VariantID    string `json:"variant_id"`
	SKU          string `json:"sku"`
	Delta        int64  `json:"delta"`
	Stock        int64  `json:"stock" jsonschema:"The variant's."`
	ProductStock int64  `json:"product_stock"`
	Version      int64  `json:"version"`
}

type movementOut struct {
	ID         string    `json:"id"`
	ProductID  string    `json:"product_id"`
	VariantID  string    `json:"variant_id"`
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

func stockTools() []*Tool {
	return []*Tool{
		tenantTool(Tool{
			Name:        "adjust_stock",
			Title:       "Adjust stock",
			Description: "Add or take away units of a variant's stock, atomically, never below zero; movements are kept.",
			Toolset:     "products", Op: service.OpAdjustStock,
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in adjustStockIn) (adjustStockOut, error) {
			ch, err := svc.AdjustStock(ctx, a, service.VariantRef{ProductID: in.ID, VariantID: in.VariantID, SKU: string(in.SKU)}, in.Delta, string(in.Reason))
			if err != nil {
				return adjustStockOut{}, err
			}
			return adjustStockOut{ID: ch.Product.ID, VariantID: ch.Variant.ID, SKU: ch.Variant.SKU, Delta: ch.Delta,
				Stock: ch.Variant.Stock, ProductStock: ch.Product.Stock, Version: ch.Product.Version}, nil
		}),
		tenantTool(Tool{
			Name:        "list_stock_movements",
			Title:       "List stock movements",
			Description: "List the changes of stock of a product or of the company, newest first, with reason, author and time.",
			Toolset:     "inventory", Op: service.OpListStockMovements, ReadOnly: true, Idempotent: true, TargetArg: "product_id",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in listMovementsIn) (listMovementsOut, error) {
			page, err := svc.ListStockMovements(ctx, a, in.ProductID, int(in.Limit), string(in.Cursor))
			if err != nil {
				return listMovementsOut{}, err
			}
			out := listMovementsOut{Movements: make([]movementOut, 0, len(page.Movements)), NextCursor: page.NextCursor}
			for _, m := range page.Movements {
				out.Movements = append(out.Movements, movementOut{ID: m.ID, ProductID: m.ProductID, VariantID: m.VariantID, Delta: m.Delta, StockAfter: m.StockAfter,
					Reason: m.Reason, UserID: m.UserID, RequestID: m.RequestID, Time: m.At})
			}
			return out, nil
		}),
	}
}
