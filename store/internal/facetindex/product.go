package facetindex

import (
	"strings"
	"time"

	"github.com/vitrine/vitrine"
)

// Product is what the index holds of a product: what the filters of
// list_products compare and what its facets count. ProductOf makes it of
// a vitrine.Product; the store may as well fill it from its rows.
type Product struct {
	// ID is the product's id: a UUID, held as its 16 bytes (and given
	// back in its canonical lower-case form, as both databases write it).
	ID string
	// NameKey is the key of the product's name that the store sorts by
	// (its name_key column, vitrine.Fold of the name), compared byte by
	// byte as both databases compare it.
	NameKey     string
	Status      vitrine.ProductStatus
	Vendor      string // as written; filters and facets compare vitrine.Fold of it
	ProductType string // likewise
	// Tags as written; vitrine.TagKey of each is what filters and the
	// facet compare. A product holds a key once (its first tag of it).
	Tags []string
	// Categories are the ids of the categories the product is in.
	Categories []string
	// Attributes holds the attribute values by key, in their canonical
	// text (vitrine.AttributeString).
	Attributes map[string]string
	// Options are the names of the product's options, in order; only the
	// first three count, as the variants' table holds three.
	Options  []string
	Variants []Variant
	Currency string
	// UpdatedAt is compared to the microsecond, as the databases hold it.
	UpdatedAt time.Time
	// Words are the words a text query matches the product by (its
	// name, description text, SKUs, barcodes, tags, vendor, type and
	// option values: vitrine.Words of each), in any order, repeated or not.
	Words []string
	// NameWords are the words of the product's name (vitrine.Words of it:
	// the store's name_words), by which a relevance page ranks a product
	// whose name holds every word of the query first. Only those among
	// Words count (the name's words are among the product's).
	NameWords []string
	// LabelWords are the words of the product's vendor, type and tags
	// (vitrine.Words of each: the store's label_words), by which, with its
	// name's, a relevance page ranks a product whose name does not hold
	// every word of the query before those matching elsewhere. Only those
	// among Words count.
	LabelWords []string
	// Translated are the locales the product is translated in whole, none
	// outdated (the store's translated_products): a filter of the products
	// untranslated in a locale keeps those without it.
	Translated []string
}

// Variant is what the index holds of a variant: its option values, by the
// position of the product's Options ("" where it has none), price, stock,
// and whether it is on sale. The product's price, highest price, stock
// and sale are those of its variants (vitrine.Product.Summarize, OnSale).
type Variant struct {
	Values         []string
	Price          int64
	Stock          int64
	CompareAtPrice *int64
}

// Category is a category of the company's tree.
type Category struct {
	ID       string
	ParentID string // empty at the root
	Name     string
}

// ProductOf returns what the index holds of p, with the words of its
// search text as the store computes them.
func ProductOf(p *vitrine.Product, words []string) Product {
	out := Product{ID: p.ID, NameKey: vitrine.Fold(p.Name), Status: p.Status, Vendor: p.Vendor, ProductType: p.ProductType, Tags: p.Tags,
		Currency: p.Currency, UpdatedAt: p.UpdatedAt, Words: words, NameWords: vitrine.Words(p.Name),
		LabelWords: vitrine.Words(strings.Join(append([]string{p.Vendor, p.ProductType}, p.Tags...), " "))}
	for _, c := range p.Categories {
		out.Categories = append(out.Categories, c.ID)
	}
	if len(p.Attributes) > 0 {
		out.Attributes = make(map[string]string, len(p.Attributes))
		for k, v := range p.Attributes {
			out.Attributes[k] = vitrine.AttributeString(v)
		}
	}
	for _, o := range p.Options {
		out.Options = append(out.Options, o.Name)
	}
	out.Variants = make([]Variant, len(p.Variants))
	for i, v := range p.Variants {
		vals := make([]string, len(out.Options))
		for j, name := range out.Options {
			vals[j] = v.Options[name]
		}
		out.Variants[i] = Variant{Values: vals, Price: v.Price, Stock: v.Stock, CompareAtPrice: v.CompareAtPrice}
	}
	return out
}
