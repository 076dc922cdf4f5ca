// Package productfile reads and writes Vitrine's own product files, the
// ones `vitrine product export` writes and `vitrine product import` reads
// back:
//
//   - JSON Lines (Format JSONLines): a product a line with every field, its
//     categories by path ("Clothing > Jackets") so that a file moves between
//     companies, beside its summary (sku, price, stock). A line of only the
//     seed's fields (sku, name, price, stock) is a product of one variant.
//   - the plain CSV (Format CSV): the seed's columns, a product a row (id,
//     sku, name, description, price, currency, stock, status, version,
//     created_at, updated_at). An import reads sku, name and price, and
//     description, currency, stock and status when given; the other
//     columns are the export's, which an import ignores so that an export
//     imports back. A text cell that a spreadsheet would run as a formula
//     is written behind a ', which the reader takes off.
//
// A file is read as it holds its products, not validated: prices stay
// decimals and statuses words, and Row.Given says which fields a row
// gives, so that an upsert keeps those it leaves out. The service
// validates them as it does any other input. Shopify's product CSV is
// internal/shopify's.
package productfile

import (
	"time"

	"github.com/vitrine/vitrine"
)

// Format is a kind of product file.
type Format string

// The formats of this package.
const (
	JSONLines Format = "jsonl"
	CSV       Format = "csv"
)

// Product is a product as a file holds it: a JSON Lines line whole, or the
// columns of a CSV row (ID, SKU, Name, Description, Price, Currency, Stock,
// Status, Version and the times).
type Product struct {
	ID          string   `json:"id,omitempty"`
	Handle      string   `json:"handle,omitempty"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Vendor      string   `json:"vendor,omitempty"`
	ProductType string   `json:"product_type,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Status      string   `json:"status,omitempty"`
	Currency    string   `json:"currency,omitempty"`
	// SKU, Price and Stock are a product of one variant's; an export
	// writes them of every product (its first SKU, lowest price, total
	// stock), which an import reads only of a line without variants.
	SKU        string           `json:"sku,omitempty"`
	Price      string           `json:"price,omitempty"`
	Stock      *int64           `json:"stock,omitempty"`
	Options    []vitrine.Option `json:"options,omitempty"`
	Variants   []Variant        `json:"variants,omitempty"`
	Media      []vitrine.Media  `json:"media,omitempty"`
	Categories []string         `json:"categories,omitempty"` // by path
	Attributes map[string]any   `json:"attributes,omitempty"`
	SEO        *vitrine.SEO     `json:"seo,omitempty"`
	// Translations are the product's text in the company's other
	// locales, by locale: written only for a product that has any.
	Translations map[string]*Translation `json:"translations,omitempty"`
	Version      int64                   `json:"version,omitempty"`
	CreatedAt    *time.Time              `json:"created_at,omitempty"`
	UpdatedAt    *time.Time              `json:"updated_at,omitempty"`
}

// Variant is a variant as a JSON Lines line holds it, its prices decimals
// in the product's currency.
type Variant struct {
	ID               string            `json:"id,omitempty"`
	SKU              string            `json:"sku,omitempty"`
	Options          map[string]string `json:"options,omitempty"`
	Price            string            `json:"price"`
	CompareAtPrice   string            `json:"compare_at_price,omitempty"`
	Barcode          string            `json:"barcode,omitempty"`
	Weight           *vitrine.Weight   `json:"weight,omitempty"`
	Stock            int64             `json:"stock"`
	InventoryPolicy  string            `json:"inventory_policy,omitempty"`
	TrackInventory   *bool             `json:"track_inventory,omitempty"` // written only when false
	RequiresShipping *bool             `json:"requires_shipping,omitempty"`
	Taxable          *bool             `json:"taxable,omitempty"`
	Image            string            `json:"image,omitempty"`
}

// Row is one product read from a file.
type Row struct {
	Product *Product
	// Line is the line of the file the row starts on (in a CSV, counted
	// as one a record).
	Line int
	// Given holds the fields the row gives: a JSON line's keys, or the
	// CSV columns whose cell is not blank (description's even when it is,
	// as a blank description clears one). The map is the caller's.
	Given map[string]bool
}

// Of is p as a file holds it: prices as decimals in its currency, its
// categories by the path categoryPath gives a category's id. The times are
// left out when zero (a product never stored). It shares p's slices and
// maps.
func Of(p *vitrine.Product, categoryPath func(categoryID string) string) *Product {
	scale := vitrine.CurrencyScale(p.Currency)
	stock := p.Stock
	fp := &Product{ID: p.ID, Handle: p.Handle, Name: p.Name, Description: p.Description, Vendor: p.Vendor, ProductType: p.ProductType,
		Tags: p.Tags, Status: string(p.Status), Currency: p.Currency, Options: p.Options, Media: p.Media, Attributes: p.Attributes,
		SKU: p.SKU, Price: p.PriceString(), Stock: &stock, Version: p.Version, CreatedAt: timeOf(p.CreatedAt), UpdatedAt: timeOf(p.UpdatedAt)}
	if p.SEO != (vitrine.SEO{}) {
		seo := p.SEO
		fp.SEO = &seo
	}
	for _, c := range p.Categories {
		fp.Categories = append(fp.Categories, categoryPath(c.ID))
	}
	for _, v := range p.Variants {
		requiresShipping, taxable := v.RequiresShipping, v.Taxable
		fv := Variant{ID: v.ID, SKU: v.SKU, Options: v.Options, Price: vitrine.FormatPrice(v.Price, scale), Barcode: v.Barcode,
			Weight: v.Weight, Stock: v.Stock, InventoryPolicy: string(v.Policy), RequiresShipping: &requiresShipping, Taxable: &taxable, Image: v.Image}
		if v.Untracked {
			fv.TrackInventory = new(bool)
		}
		if v.CompareAtPrice != nil {
			fv.CompareAtPrice = vitrine.FormatPrice(*v.CompareAtPrice, scale)
		}
		fp.Variants = append(fp.Variants, fv)
	}
	return fp
}

func timeOf(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
