package vitrine

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Product is an item of a tenant's catalog.
type Product struct {
	ID       string
	TenantID string
	// Handle is the product's URL slug, unique in its company.
	Handle string
	Name   string
	// Description is HTML, sanitized on the way in (SanitizeDescription).
	Description string
	Vendor      string
	ProductType string
	Tags        []string
	Status      ProductStatus
	Options     []Option
	// Variants are what is sold: at least one, in Position order.
	Variants   []*Variant
	Media      []Media
	Categories []ProductCategory
	// Attributes holds values of the company's attributes, by key: a
	// string, a float64 or a bool.
	Attributes map[string]any
	SEO        SEO
	// Currency is the currency of every price of the product.
	Currency string

	// The summary of the variants (Summarize): the first one's SKU, the
	// lowest and highest price (in minor units of Currency: never a
	// float), the highest compare-at price, the total stock.
	SKU            string
	Price          int64
	PriceMax       int64
	CompareAtPrice *int64
	Stock          int64
	// Version grows by one with every change, for optimistic concurrency.
	Version   int64
	CreatedAt time.Time
	CreatedBy string
	UpdatedAt time.Time
	UpdatedBy string

	// Rank is the product's relevance class in a text search, lowest
	// first (see ProductKey); it is not stored.
	Rank int
}

// PriceString returns the price as a decimal string in its currency: "4599.90".
func (p *Product) PriceString() string { return FormatPrice(p.Price, CurrencyScale(p.Currency)) }

// ProductStatus says whether a product is on sale.
type ProductStatus string

const (
	ProductDraft    ProductStatus = "draft"
	ProductActive   ProductStatus = "active"
	ProductArchived ProductStatus = "archived"
)

// ProductStatuses lists the valid statuses.
var ProductStatuses = []ProductStatus{ProductDraft, ProductActive, ProductArchived}

// ParseProductStatus validates a status.
func ParseProductStatus(field, s string) (ProductStatus, error) {
	for _, st := range ProductStatuses {
		if string(st) == s {
			return st, nil
		}
	}
	return "", Invalid(field, "%s must be \"draft\", \"active\" or \"archived\", not %q", field, s)
}

// Limits on product fields.
const (
	MaxSKULength         = 64
	MaxProductNameLength = 200
	MaxDescriptionLength = 65535
	MaxStock             = 1_000_000_000_000
)

var skuRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._/-]*[A-Za-z0-9])?$`)

// ValidateSKU checks a stock-keeping unit: letters, digits and ". _ / -"
// inside, at most 64 characters. SKUs are unique per tenant without regard
// to case; the returned key is what that uniqueness compares.
func ValidateSKU(field, sku string) (string, string, error) {
	sku = strings.TrimSpace(sku)
	if sku == "" {
		return "", "", Invalid(field, "%s must not be empty", field)
	}
	if len(sku) > MaxSKULength {
		return "", "", Invalid(field, "%s is %d characters long; the limit is %d", field, len(sku), MaxSKULength)
	}
	if !skuRE.MatchString(sku) {
		return "", "", Invalid(field, "%s may hold only letters, digits and . _ / - (not at the ends), such as \"NB-DELL-5440\"; got %q", field, sku)
	}
	return sku, strings.ToLower(sku), nil
}

// SKUKey returns the key a valid SKU is unique by.
func SKUKey(sku string) string { return strings.ToLower(sku) }

// ValidateDescription checks a product description.
func ValidateDescription(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) {
		return "", Invalid(field, "%s must be valid UTF-8", field)
	}
	if n := utf8.RuneCountInString(s); n > MaxDescriptionLength {
		return "", Invalid(field, "%s is %d characters long; the limit is %d", field, n, MaxDescriptionLength)
	}
	if strings.ContainsRune(s, 0) {
		return "", Invalid(field, "%s must not contain NUL characters", field)
	}
	return s, nil
}

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
	SortRelevance    ProductSort = "relevance"
	DefaultSort                  = SortName
	DefaultPageLimit             = 20
	MaxPageLimit                 = 100
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

// KeyOf returns p's position in the sort order s.
func KeyOf(p *Product, s ProductSort) ProductKey {
	k := ProductKey{ID: p.ID}
	switch s.Key() {
	case "relevance":
		k.Rank, k.Name = p.Rank, Fold(p.Name)
	case "name":
		k.Name = Fold(p.Name)
	case "price":
		k.Price = p.Price
	case "updated_at":
		k.Updated = p.UpdatedAt
	}
	return k
}

// ProductPatch holds the fields of a partial update; nil leaves a field as
// it is. The store applies it only when the product's version still equals
// Version, so concurrent writers never lose an update.
type ProductPatch struct {
	SKU         *string
	Name        *string
	Description *string
	Price       *int64
	Currency    *string
	Stock       *int64
	Status      *ProductStatus
}

// Apply writes the patch over p.
func (patch *ProductPatch) Apply(p *Product) {
	if patch.SKU != nil {
		p.SKU = *patch.SKU
	}
	if patch.Name != nil {
		p.Name = *patch.Name
	}
	if patch.Description != nil {
		p.Description = *patch.Description
	}
	if patch.Price != nil {
		p.Price = *patch.Price
	}
	if patch.Currency != nil {
		p.Currency = *patch.Currency
	}
	if patch.Stock != nil {
		p.Stock = *patch.Stock
	}
	if patch.Status != nil {
		p.Status = *patch.Status
	}
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
