package shapes

import "time"

type AdjustStockIn struct {
	TenantArg
	VariantID string    `json:"variant_id,omitempty" jsonschema:"Or sku, or id."`
	SKU       sku       `json:"sku,omitempty"`
	ID        string    `json:"id,omitempty" jsonschema:"One-variant product's."`
	Delta     int64     `json:"delta" jsonschema:"Units to add, or take away (negative)."`
	Reason    shortText `json:"reason" jsonschema:"Such as sale, restock."`
}

type AdjustStockOut struct {
	ID           string `json:"id"`
	VariantID    string `json:"variant_id"`
	SKU          string `json:"sku"`
	Delta        int64  `json:"delta"`
	Stock        int64  `json:"stock" jsonschema:"The variant's."`
	ProductStock int64  `json:"product_stock"`
	Version      int64  `json:"version"`
}

type MovementOut struct {
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

type ListMovementsIn struct {
	TenantArg
	ProductID string `json:"product_id,omitempty" jsonschema:"Default: every product's."`
	pageArgs
}

type ListMovementsOut struct {
	Movements  []MovementOut `json:"movements"`
	NextCursor string        `json:"next_cursor"`
}
