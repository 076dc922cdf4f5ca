package shapes

import (
	"encoding/json"
	"time"

	"github.com/vitrine/vitrine"
)

// ProductRow is a product in a page of list_products: what an agent uses
// to decide and act on it (its price range and total stock, not its
// variants), and the rest of the record only on request (detail "full"),
// since a page goes whole into the model's context. get_product returns
// everything.
type ProductRow struct {
	ID             string    `json:"id"`
	SKU            string    `json:"sku"`
	Handle         string    `json:"handle"`
	Name           string    `json:"name"`
	Price          string    `json:"price"`
	PriceMax       string    `json:"price_max,omitempty"`
	CompareAtPrice string    `json:"compare_at_price,omitempty"`
	Currency       string    `json:"currency"`
	Stock          int64     `json:"stock"`
	Status         string    `json:"status"`
	Variants       int       `json:"variant_count"`
	Vendor         string    `json:"vendor,omitempty"`
	Image          *rowImage `json:"image,omitempty"`
	Version        int64     `json:"version"`
	UpdatedAt      time.Time `json:"updated_at"`
	// full, with detail "full", is what the row is written as: the whole
	// record, as get_product returns it.
	full *ProductOut
}

type rowImage struct {
	URL string `json:"url"`
	Alt string `json:"alt,omitempty"`
}

// ProductRowView is p's row, its price and compare-at price those of
// shown, the variant the list found for it (nil: the product's own).
func ProductRowView(p *vitrine.Product, shown *vitrine.Variant, full bool) ProductRow {
	r := ProductRow{ID: p.ID, SKU: p.SKU, Handle: p.Handle, Name: p.Name, Price: p.PriceString(), Currency: p.Currency,
		Stock: p.Stock, Status: string(p.Status), Variants: len(p.Variants), Vendor: p.Vendor, Version: p.Version, UpdatedAt: p.UpdatedAt}
	if p.PriceMax != p.Price {
		r.PriceMax = price(p.PriceMax, p.Currency)
	}
	compareAt := p.CompareAtPrice
	if shown != nil {
		r.Price, compareAt = price(shown.Price, p.Currency), shown.CompareAtPrice
	}
	if compareAt != nil {
		r.CompareAtPrice = price(*compareAt, p.Currency)
	}
	if len(p.Media) > 0 {
		r.Image = &rowImage{URL: p.Media[0].URL, Alt: p.Media[0].Alt}
	}
	if full {
		v := ProductView(p)
		r.full = &v
	}
	return r
}

// MarshalJSON writes the row, or with detail "full" the whole record.
func (r ProductRow) MarshalJSON() ([]byte, error) {
	if r.full != nil {
		return json.Marshal(r.full)
	}
	type row ProductRow
	return json.Marshal(row(r))
}

// ListProductsIn is list_products' arguments: the domain's filter, decoded
// as it is (its fields, their names and descriptions, are the schema's),
// how to show the rows, and the page.
type ListProductsIn struct {
	TenantArg
	vitrine.ProductQuery
	Detail productDetail `json:"detail,omitempty" jsonschema:"full: rows as get_product."`
	pageArgs
}

type ListProductsOut struct {
	Products   []ProductRow `json:"products"`
	NextCursor string       `json:"next_cursor"`
	Facets     any          `json:"facets,omitempty" jsonschema:"[{value, count}]; options by option name; categories by id."`
}

// facetsOut holds the facets asked for: values with their product counts,
// most frequent first; options by option name.
type facetsOut struct {
	Vendor      []vitrine.FacetValue            `json:"vendor,omitempty"`
	ProductType []vitrine.FacetValue            `json:"product_type,omitempty"`
	Tags        []vitrine.FacetValue            `json:"tags,omitempty"`
	Categories  []vitrine.FacetValue            `json:"categories,omitempty" jsonschema:"value: the category's id."`
	Options     map[string][]vitrine.FacetValue `json:"options,omitempty"`
	Status      []vitrine.FacetValue            `json:"status,omitempty"`
}

func FacetsView(f *vitrine.Facets, asked []vitrine.FacetName) *facetsOut {
	if f == nil {
		return nil
	}
	out := &facetsOut{}
	for _, name := range asked {
		vs := f.Values[name]
		if vs == nil {
			vs = []vitrine.FacetValue{}
		}
		switch name {
		case vitrine.FacetVendor:
			out.Vendor = vs
		case vitrine.FacetProductType:
			out.ProductType = vs
		case vitrine.FacetTags:
			out.Tags = vs
		case vitrine.FacetCategories:
			out.Categories = vs
		case vitrine.FacetStatus:
			out.Status = vs
		case vitrine.FacetOptions:
			out.Options = f.Options
			if out.Options == nil {
				out.Options = map[string][]vitrine.FacetValue{}
			}
		}
	}
	return out
}
