package vitrine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
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
	// Description is HTML, sanitized on the way in (by the service).
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
}

// SEO is what a search engine shows of a product.
type SEO struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
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

// Limits on product fields, those of the platforms shops come from.
const (
	MaxProductNameLength = 200
	MaxDescriptionLength = 65535
	MaxTags              = 250
	MaxTagLength         = 255
	MaxHandleLength      = 255
	MaxVendorLength      = 255
	MaxSEOTitleLength    = 255
	MaxSEODescLength     = 1000
)

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

var handleRE = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// ValidateHandle checks a product's URL slug: lower-case letters, digits
// and single hyphens inside.
func ValidateHandle(field, h string) (string, error) {
	h = strings.TrimSpace(h)
	if len(h) > MaxHandleLength {
		return "", Invalid(field, "%s is %d characters long; the limit is %d", field, len(h), MaxHandleLength)
	}
	if !handleRE.MatchString(h) {
		return "", Invalid(field, "%s may hold only lower-case letters, digits and single hyphens inside, such as \"blue-shirt\"; got %q", field, h)
	}
	return h, nil
}

// HandleOf makes a handle from a name: its words, folded to lower case
// without accents, joined by hyphens. It is empty when the name holds no
// letter or digit.
func HandleOf(name string) string {
	h := strings.Join(Words(name), "-")
	if len(h) > MaxHandleLength {
		h = strings.TrimRight(h[:MaxHandleLength], "-")
	}
	if !handleRE.MatchString(h) {
		// Words keeps letters of any script; a handle keeps a-z and 0-9.
		var b strings.Builder
		dash := false
		for _, r := range h {
			switch {
			case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				if dash && b.Len() > 0 {
					b.WriteByte('-')
				}
				b.WriteRune(r)
				dash = false
			default:
				dash = true
			}
		}
		h = b.String()
	}
	return h
}

// NormalizeTags trims the tags, drops empty ones and keeps the first of
// each set of tags equal without regard to case, in order.
func NormalizeTags(field string, tags []string) ([]string, error) {
	out := make([]string, 0, len(tags))
	seen := make(map[string]bool, len(tags))
	for i, t := range tags {
		f := fmt.Sprintf("%s[%d]", field, i)
		t, err := ValidateText(f, t, MaxTagLength)
		if err != nil {
			return nil, err
		}
		if strings.Contains(t, ",") {
			return nil, Invalid(f, "%s must not contain a comma (tags are written comma-separated in exports); got %q", f, t)
		}
		if t == "" || seen[TagKey(t)] {
			continue
		}
		seen[TagKey(t)] = true
		out = append(out, t)
	}
	if len(out) > MaxTags {
		return nil, Invalid(field, "%s holds %d tags; the limit is %d", field, len(out), MaxTags)
	}
	return out, nil
}

// TagKey is what tags are compared by: their folded form.
func TagKey(t string) string { return strings.ToLower(strings.TrimSpace(t)) }

// ValidateCatalog checks what a product holds beyond its name and prices,
// in the order a product lists its fields, and puts it in its one form:
// options derived from the variants when not given, positions numbered
// from 1, stock and summary recomputed. defs are the company's attribute
// definitions, by key; nil leaves the attribute values unchecked (they
// were checked when written, and the change does not touch them).
func (p *Product) ValidateCatalog(defs map[string]*Attribute) error {
	var err error
	if p.Vendor, err = ValidateText("vendor", p.Vendor, MaxVendorLength); err != nil {
		return err
	}
	if p.ProductType, err = ValidateText("product_type", p.ProductType, MaxVendorLength); err != nil {
		return err
	}
	if p.Tags, err = NormalizeTags("tags", p.Tags); err != nil {
		return err
	}
	if err := p.validateOptions(); err != nil {
		return err
	}
	if err := p.validateMedia(); err != nil {
		return err
	}
	if err := p.validateVariants(); err != nil {
		return err
	}
	if len(p.Categories) > MaxCategories {
		return Invalid("categories", "a product may be in at most %d categories; got %d", MaxCategories, len(p.Categories))
	}
	if defs != nil {
		if err := p.validateAttributes(defs); err != nil {
			return err
		}
	}
	if p.SEO.Title, err = ValidateText("seo.title", p.SEO.Title, MaxSEOTitleLength); err != nil {
		return err
	}
	if p.SEO.Description, err = ValidateText("seo.description", p.SEO.Description, MaxSEODescLength); err != nil {
		return err
	}
	p.Summarize()
	return nil
}

// Summarize computes what a product shows of its variants: the first
// variant's SKU, the lowest and highest price, the highest compare-at
// price, the total stock.
func (p *Product) Summarize() {
	p.SKU, p.Price, p.PriceMax, p.CompareAtPrice, p.Stock = "", 0, 0, nil, 0
	for i, v := range p.Variants {
		if i == 0 {
			p.SKU, p.Price, p.PriceMax = v.SKU, v.Price, v.Price
		}
		p.Price, p.PriceMax = min(p.Price, v.Price), max(p.PriceMax, v.Price)
		if v.CompareAtPrice != nil && (p.CompareAtPrice == nil || *v.CompareAtPrice > *p.CompareAtPrice) {
			c := *v.CompareAtPrice
			p.CompareAtPrice = &c
		}
		p.Stock += v.Stock
	}
}

// CheapestVariant returns the product's cheapest variant of those keep
// keeps (every one, for a nil keep), the first of them at that price; nil
// when it keeps none.
func (p *Product) CheapestVariant(keep func(*Variant) bool) *Variant {
	var out *Variant
	for _, v := range p.Variants {
		if (keep == nil || keep(v)) && (out == nil || v.Price < out.Price) {
			out = v
		}
	}
	return out
}

// OnSale reports whether some variant's compare-at price is above its price.
func (p *Product) OnSale() bool {
	return slices.ContainsFunc(p.Variants, func(v *Variant) bool { return v.CompareAtPrice != nil && *v.CompareAtPrice > v.Price })
}

// Clone returns a deep copy of p, for a change that may fail.
func (p *Product) Clone() *Product { return p.clone(true) }

// clone is Clone, the variants' options maps shared with p's unless
// options: for a caller that writes new ones.
func (p *Product) clone(options bool) *Product {
	c := *p
	c.Tags = slices.Clone(p.Tags)
	c.Options = make([]Option, len(p.Options))
	for i, o := range p.Options {
		c.Options[i] = Option{Name: o.Name, Values: slices.Clone(o.Values)}
	}
	c.Variants = make([]*Variant, len(p.Variants))
	for i, v := range p.Variants {
		c.Variants[i] = v.clone(options)
	}
	c.Media = slices.Clone(p.Media)
	c.Categories = slices.Clone(p.Categories)
	c.Attributes = maps.Clone(p.Attributes)
	if p.CompareAtPrice != nil {
		x := *p.CompareAtPrice
		c.CompareAtPrice = &x
	}
	return &c
}

// SameContent reports whether p and q hold the same product: every field a
// caller gives alike, whatever their version, times and authors, the
// order of their categories, and empty lists or maps told from absent ones.
// An upsert of a product as it is writes nothing.
func (p *Product) SameContent(q *Product) bool {
	a, b := p.contentKey(), q.contentKey()
	return a != nil && bytes.Equal(a, b)
}

// contentKey encodes what SameContent compares.
func (p *Product) contentKey() []byte {
	c := p.Clone()
	c.Version, c.CreatedAt, c.CreatedBy, c.UpdatedAt, c.UpdatedBy = 0, time.Time{}, "", time.Time{}, ""
	slices.SortFunc(c.Categories, func(a, b ProductCategory) int { return strings.Compare(a.ID, b.ID) })
	for i := range c.Categories {
		c.Categories[i].Name = "" // by id: a rename is not the product's
	}
	if len(c.Tags) == 0 {
		c.Tags = nil
	}
	if len(c.Options) == 0 {
		c.Options = nil
	}
	if len(c.Media) == 0 {
		c.Media = nil
	}
	if len(c.Categories) == 0 {
		c.Categories = nil
	}
	if len(c.Attributes) == 0 {
		c.Attributes = nil
	}
	for _, v := range c.Variants {
		if len(v.Options) == 0 {
			v.Options = nil
		}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil // not encodable: never the same
	}
	return b
}
