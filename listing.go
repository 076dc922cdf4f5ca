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

// ProductQuery is a query of a company's products as a caller sends it:
// which to keep, in what order, and which facets to count beside them.
// list_products decodes an agent's arguments straight into it (and its
// schema is its fields'), the shop window and the CLI fill it in. The
// store never reads it: service/catalog checks it and puts it in its one
// form, a ProductFilter.
type ProductQuery struct {
	// Query is a text query: a product matches when what search covers
	// of it holds a word starting with each of the query's words.
	Query  QueryText     `json:"query,omitempty" jsonschema:"Word starts of name, SKU, text, tags, vendor, type, options."`
	Status ProductStatus `json:"status,omitempty" jsonschema:"Default: any."` // empty for any
	// Tags keeps the products holding every one of these tags; in the
	// filter's one form, their keys (TagKey).
	Tags []QueryText `json:"tags,omitempty" jsonschema:"All of them."`
	// Vendor and ProductType, when not empty, keep the products of that
	// vendor or type, compared by their folded form (Fold).
	Vendor      QueryText `json:"vendor,omitempty"`
	ProductType QueryText `json:"product_type,omitempty"`
	// CategoryID, when set, keeps the products in that category or in any
	// category under it.
	CategoryID string `json:"category_id,omitempty" jsonschema:"With its subcategories."`
	// CategoryIDs, when set, keeps the products in any of these
	// categories or under one of them (and in CategoryID too, when both
	// are set): the shop window's filters.categories, an OR of all it
	// names. Not an argument of list_products.
	CategoryIDs []string `json:"-"`
	// Options keeps the products with a variant holding each of these
	// values, by option name (compared by OptionKey); the price range and
	// InStock then apply to that same variant.
	Options map[string]string `json:"options,omitempty" jsonschema:"{\"Size\":\"M\"}: on one variant, with price and stock."`
	// Attributes keeps the products with each of these attribute values,
	// by key; in the filter's one form, each value is its canonical text
	// (AttributeString).
	Attributes map[string]any `json:"attributes,omitempty"`
	// OnSale, when set, keeps the products with (true) or without a
	// variant priced below its compare-at price.
	OnSale *bool `json:"on_sale,omitempty" jsonschema:"Below compare-at price."`
	// InStock, when set, keeps products with (true) or without stock.
	InStock *bool `json:"in_stock,omitempty" jsonschema:"Stock above 0."`
	// MinPrice and MaxPrice, when given, keep the products in Currency
	// whose price lies between them (inclusive).
	MinPrice Decimal      `json:"min_price,omitempty" jsonschema:"In currency."`
	MaxPrice Decimal      `json:"max_price,omitempty" jsonschema:"In currency."`
	Currency CurrencyCode `json:"currency,omitempty" jsonschema:"Of the prices. Default: the company's."`
	// UpdatedSince, when given, keeps products changed at or after it, a
	// time in RFC 3339.
	UpdatedSince string `json:"updated_since,omitempty" jsonschema:"RFC 3339."`
	// Facets names the facets to count under the filter; in the filter's
	// one form, each once, in the order of FacetNames.
	Facets []FacetName `json:"facets,omitempty" jsonschema:"Counts by value, under the filter."`
	// Sort is the order; in the filter's one form, never empty: relevance
	// with a query, else name.
	Sort ProductSort `json:"sort,omitempty" jsonschema:"- reverses. Default: relevance, else name."`
	// Locale reads the products' text in one of the company's locales,
	// each field untranslated there its own, and the text query in that
	// locale's language ("": DefaultLocale's). In the filter's one form,
	// canonical; when none is given and the filter has a text query, the
	// company's default locale, whose language reads it; empty when that
	// is DefaultLocale, or when no text query is read.
	Locale LocaleTag `json:"locale,omitempty" jsonschema:"Read in this locale."`
	// Untranslated keeps the products with a translatable field that has
	// no translation in that locale, or an outdated one.
	Untranslated LocaleTag `json:"untranslated,omitempty" jsonschema:"A field missing or outdated in this locale."`
	// Among, when set, keeps the products of a market's assortment: in
	// one of its categories or under one, or holding one of its tags (in
	// the filter's one form, their keys). Not an argument of any tool: the
	// shop window's, in a market's window.
	Among *MarketInclude `json:"-"`
	// MarketPrices, when set, keeps the products with a variant whose
	// price in a market lies within its range: its explicit price there
	// where it has one, else its catalog price converted. Not an argument
	// of any tool: the shop window's price filter, in a market's window
	// with prices of its own (MinPrice and MaxPrice are then not given).
	MarketPrices *MarketPriceRange `json:"-"`
}

// QueryText is a text a product filter compares: its query, a tag, a
// vendor, a product type. A schema bounds it as it bounds names.
type QueryText string

// FacetName names a facet: what list_products can count under its
// filter.
type FacetName string

// The facets.
const (
	FacetVendor      = "vendor"
	FacetProductType = "product_type"
	FacetTags        = "tags"
	FacetCategories  = "categories"
	FacetOptions     = "options"
	FacetStatus      = "status"
)

// FacetNames lists the facets, in the order results give them.
var FacetNames = []FacetName{FacetVendor, FacetProductType, FacetTags, FacetCategories, FacetOptions, FacetStatus}

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
	Values  map[FacetName][]FacetValue
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

// ValidCursor bounds what a cursor may place a list at: a relevance rank
// the search reads (0 to RankTiers×MatchLevels) and an id. (A cursor's length bounds the name.)
func (k ProductKey) ValidCursor() bool {
	return k.Rank >= 0 && k.Rank <= RankTiers*MatchLevels && ValidID(k.ID)
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
// with its key in the filter's order beside it (Keys[i] is Products[i]'s)
// and the variant its list row shows (Shown[i]), and the counts of the
// facets asked for, or nil.
type FoundProducts struct {
	Products []*Product
	Keys     []ProductKey
	// Shown[i] is the variant whose price and compare-at price a list row
	// of Products[i] shows: the cheapest that the filter's terms on
	// variants keep (its options, price range, stock and sale), else the
	// cheapest, so that a row never pairs one variant's price with
	// another's compare-at price (ShownVariant).
	Shown  []*Variant
	Facets *Facets
}
