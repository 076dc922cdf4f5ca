package vitrine

import "time"

// MaxStock bounds a variant's stock.
const MaxStock = 1_000_000_000_000

// ValidateStock checks a stock level.
func ValidateStock(field string, n int64) error {
	if n < 0 {
		return Invalid(field, "%s must not be negative; got %d", field, n)
	}
	if n > MaxStock {
		return Invalid(field, "%s must be at most %d", field, int64(MaxStock))
	}
	return nil
}

// StockMovement is one change of a product's stock.
type StockMovement struct {
	ID         string
	TenantID   string
	ProductID  string
	VariantID  string
	Delta      int64
	StockAfter int64
	Reason     string
	UserID     string
	RequestID  string
	At         time.Time
}
