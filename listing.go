package vitrine

import (
	"strings"
	"time"
)

// ProductSort is an order of a product list.
type ProductSort string

// The sort orders list_products offers; "-" before a key reverses it.
const (
	SortName        ProductSort = "name"
	SortNameDesc    ProductSort = "-name"
	SortPrice       ProductSort = "price"
	SortPriceDesc   ProductSort = "-price"
	SortUpdated     ProductSort = "updated_at"
	SortUpdatedDesc ProductSort = "-updated_at"
	SortCreated     ProductSort = "created_at"
	SortCreatedDesc ProductSort = "-created_at"
	// SortRelevance orders a text search: the product whose SKU is the
	// query first, then those whose name holds every word, then those that
	// hold them elsewhere; by name within each.
	SortRelevance ProductSort = "relevance"
)

// ProductSorts lists the valid sort orders.
var ProductSorts = []ProductSort{SortRelevance, SortName, SortNameDesc, SortPrice, SortPriceDesc, SortUpdated, SortUpdatedDesc, SortCreated, SortCreatedDesc}

// Key returns the sort's column key without direction.
func (s ProductSort) Key() string { return strings.TrimPrefix(string(s), "-") }

// Desc reports whether the sort is descending.
func (s ProductSort) Desc() bool { return strings.HasPrefix(string(s), "-") }

// ProductFilter selects and orders a page of products.
type ProductFilter struct {
	// Words are the words of a text query (see Words): a product matches
	// when its name, SKU or description holds a word starting with each.
	Words []string
	// SKU is the query as a SKU key: the product with that SKU ranks first
	// in a relevance search.
	SKU    string
	Status ProductStatus // empty for any
	// InStock, when set, keeps products with (true) or without stock.
	InStock *bool
	// MinPrice and MaxPrice, when set, keep the products in PriceCurrency
	// whose price lies between them (in minor units, inclusive).
	MinPrice, MaxPrice *int64
	PriceCurrency      string
	// UpdatedSince, when set, keeps products changed at or after it.
	UpdatedSince *time.Time
	// Tags keeps the products holding every one of these tag keys (TagKey).
	Tags []string
	// Vendor and ProductType, when not empty, keep the products of that
	// vendor or type, compared by their folded form (Fold).
	Vendor, ProductType string
	// CategoryID, when set, keeps the products in that category or in any
	// category under it.
	CategoryID string
	// CategoryIDs is CategoryID and the categories under it, as the store
	// resolves them.
	CategoryIDs []string
	// Options keeps the products with a variant holding each of these
	// values, by folded option name (OptionKey); the price range and
	// InStock then apply to that same variant.
	Options map[string]string
	// Attributes keeps the products with each of these attribute values,
	// in their canonical text (AttributeString), by key.
	Attributes map[string]string
	// OnSale, when set, keeps the products with (true) or without a
	// variant priced below its compare-at price.
	OnSale *bool
	Sort   ProductSort
	Limit  int
	// After is the position the page starts after; nil for the first page.
	After *ProductKey
}

// Facet names: what list_products can count under its filter.
const (
	FacetVendor      = "vendor"
	FacetProductType = "product_type"
	FacetTags        = "tags"
	FacetCategories  = "categories"
	FacetOptions     = "options"
	FacetStatus      = "status"
)

// FacetNames lists the facets, in the order results give them.
var FacetNames = []string{FacetVendor, FacetProductType, FacetTags, FacetCategories, FacetOptions, FacetStatus}

// MaxFacetValues bounds the values a facet returns, most frequent first.
const MaxFacetValues = 50

// FacetValue is a value of a facet and the number of products with it.
type FacetValue struct {
	Value string `json:"value"`
	Name  string `json:"name,omitempty"` // a category's
	Count int64  `json:"count"`
}

// Facets are the counts of a filter's products by value, by facet name;
// Options by option name.
type Facets struct {
	Values  map[string][]FacetValue
	Options map[string][]FacetValue
}

// ProductKey is a product's position in a sort order: the sort column's
// value and the id that breaks ties.
type ProductKey struct {
	Rank    int       `json:"r,omitempty"` // for SortRelevance
	Name    string    `json:"n,omitempty"` // folded name, for SortName and SortRelevance
	Price   int64     `json:"p,omitempty"`
	Updated time.Time `json:"u,omitzero"`
	ID      string    `json:"i"`
}

// validCursor bounds what a cursor may place a list at: a relevance rank
// the search reads (0 to 2) and an id. (A cursor's length bounds the name.)
func (k ProductKey) validCursor() bool {
	return k.Rank >= 0 && k.Rank <= 2 && ValidID(k.ID)
}

// KeyOf returns p's position in the sort order s. A relevance rank is
// the search's, not the product's: the store finds it, and sets it in the
// keys it returns (FoundProducts).
func KeyOf(p *Product, s ProductSort) ProductKey {
	k := ProductKey{ID: p.ID}
	switch s.Key() {
	case "relevance", "name":
		k.Name = Fold(p.Name)
	case "price":
		k.Price = p.Price
	case "updated_at":
		k.Updated = p.UpdatedAt
	}
	return k
}

// FoundProducts is a page of products as the store finds it: each product
// with its key in the filter's order beside it (Keys[i] is Products[i]'s),
// and the counts of the facets asked for, or nil.
type FoundProducts struct {
	Products []*Product
	Keys     []ProductKey
	Facets   *Facets
}
