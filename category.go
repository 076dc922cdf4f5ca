package vitrine

import "time"

// Category is a node of a company's tree of categories.
type Category struct {
	ID        string
	TenantID  string
	ParentID  string // empty at the root
	Name      string
	Handle    string
	Position  int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ProductCategory is a category a product is in, with its name for those
// who read the product.
type ProductCategory struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// MaxCategories bounds the categories a product is in.
const MaxCategories = 50
