package shapes

import (
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service/catalog"
)

// Named types carry their constraints into the schemas (see typeSchemas).
type (
	productDetail string
	policyName    string
	weightUnit    string
	imageURL      string
	pageLimit     int
	stockLevel    int64
	sku           string
	shortText     string // names, reasons, queries, keys
	longText      string
	slug          string
	email         string
	roleName      string
	roleText      string
)

// productOut is a product as tools return it: the whole record.
type ProductOut struct {
	ID             string           `json:"id"`
	TenantID       string           `json:"tenant_id"`
	Handle         string           `json:"handle"`
	Name           string           `json:"name"`
	Description    string           `json:"description"`
	Vendor         string           `json:"vendor,omitempty"`
	ProductType    string           `json:"product_type,omitempty"`
	Tags           []string         `json:"tags"`
	Status         string           `json:"status"`
	SKU            string           `json:"sku"`
	Price          string           `json:"price" jsonschema:"Lowest."`
	PriceMax       string           `json:"price_max,omitempty" jsonschema:"Highest, when they differ."`
	CompareAtPrice string           `json:"compare_at_price,omitempty"`
	Currency       string           `json:"currency"`
	Stock          int64            `json:"stock" jsonschema:"Total."`
	Options        []vitrine.Option `json:"options"`
	Variants       []variantOut     `json:"variants"`
	Media          []vitrine.Media  `json:"media"`
	Categories     []categoryRef    `json:"categories"`
	Attributes     map[string]any   `json:"attributes"`
	SEO            vitrine.SEO      `json:"seo"`
	Version        int64            `json:"version"`
	CreatedAt      time.Time        `json:"created_at"`
	CreatedBy      string           `json:"created_by"`
	UpdatedAt      time.Time        `json:"updated_at"`
	UpdatedBy      string           `json:"updated_by"`
}

type categoryRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type variantOut struct {
	ID               string            `json:"id"`
	SKU              string            `json:"sku"`
	Options          map[string]string `json:"options"`
	Price            string            `json:"price"`
	CompareAtPrice   string            `json:"compare_at_price,omitempty"`
	Barcode          string            `json:"barcode,omitempty"`
	Weight           *vitrine.Weight   `json:"weight,omitempty"`
	Stock            int64             `json:"stock"`
	InventoryPolicy  string            `json:"inventory_policy"`
	TrackInventory   bool              `json:"track_inventory"`
	RequiresShipping bool              `json:"requires_shipping"`
	Taxable          bool              `json:"taxable"`
	Image            string            `json:"image,omitempty"`
	Position         int               `json:"position"`
}

func price(minor int64, currency string) string {
	return vitrine.FormatPrice(minor, vitrine.CurrencyScale(currency))
}

func variantView(p *vitrine.Product, v *vitrine.Variant) variantOut {
	out := variantOut{ID: v.ID, SKU: v.SKU, Options: v.Options, Price: price(v.Price, p.Currency), Barcode: v.Barcode, Weight: v.Weight,
		Stock: v.Stock, InventoryPolicy: string(v.Policy), TrackInventory: !v.Untracked, RequiresShipping: v.RequiresShipping, Taxable: v.Taxable, Image: v.Image, Position: v.Position}
	if v.CompareAtPrice != nil {
		out.CompareAtPrice = price(*v.CompareAtPrice, p.Currency)
	}
	return out
}

func ProductView(p *vitrine.Product) ProductOut {
	out := ProductOut{
		ID: p.ID, TenantID: p.TenantID, Handle: p.Handle, Name: p.Name, Description: p.Description, Vendor: p.Vendor, ProductType: p.ProductType,
		Tags: orEmpty(p.Tags), Status: string(p.Status), SKU: p.SKU, Price: p.PriceString(), Currency: p.Currency, Stock: p.Stock,
		Options: orEmpty(p.Options), Media: orEmpty(p.Media), Attributes: p.Attributes, SEO: p.SEO, Version: p.Version,
		CreatedAt: p.CreatedAt, CreatedBy: p.CreatedBy, UpdatedAt: p.UpdatedAt, UpdatedBy: p.UpdatedBy,
		Variants: make([]variantOut, len(p.Variants)), Categories: make([]categoryRef, len(p.Categories)),
	}
	if out.Attributes == nil {
		out.Attributes = map[string]any{}
	}
	if p.PriceMax != p.Price {
		out.PriceMax = price(p.PriceMax, p.Currency)
	}
	if p.CompareAtPrice != nil {
		out.CompareAtPrice = price(*p.CompareAtPrice, p.Currency)
	}
	for i, v := range p.Variants {
		out.Variants[i] = variantView(p, v)
	}
	for i, c := range p.Categories {
		out.Categories[i] = categoryRef(c)
	}
	return out
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

type GetProductIn struct {
	TenantArg
	ID     string `json:"id,omitempty" jsonschema:"Give id, sku or handle."`
	SKU    sku    `json:"sku,omitempty" jsonschema:"Any variant's, any case."`
	Handle string `json:"handle,omitempty"`
}

type mediaIn struct {
	URL imageURL  `json:"url" jsonschema:"http(s); never fetched."`
	Alt shortText `json:"alt,omitempty"`
}

type seoIn struct {
	Title       shortText `json:"title,omitempty"`
	Description longText  `json:"description,omitempty"`
}

func mediaOf(in []mediaIn) []vitrine.Media {
	out := make([]vitrine.Media, len(in))
	for i, m := range in {
		out[i] = vitrine.Media{URL: string(m.URL), Alt: string(m.Alt), Position: i + 1}
	}
	return out
}

func TextsOf(in []shortText) []string {
	out := make([]string, len(in))
	for i, t := range in {
		out[i] = string(t)
	}
	return out
}

type CreateProductIn struct {
	TenantArg
	productFields
	// IdempotencyKey makes a retry safe.
	IdempotencyKey shortText `json:"idempotency_key,omitempty" jsonschema:"Retries within 24 h get the first product."`
}

// productFields are a new product's fields: create_product's, and a row's
// of import_products.
type productFields struct {
	Name        shortText             `json:"name"`
	SKU         sku                   `json:"sku,omitempty" jsonschema:"One-variant product's; else give variants."`
	Price       vitrine.Decimal       `json:"price,omitempty" jsonschema:"One-variant product's, decimal: \"4599.90\"."`
	Stock       stockLevel            `json:"stock,omitempty" jsonschema:"One-variant product's."`
	Description longText              `json:"description,omitempty" jsonschema:"HTML, sanitized."`
	Currency    vitrine.CurrencyCode  `json:"currency,omitempty" jsonschema:"ISO 4217. Default: BRL."`
	Status      vitrine.ProductStatus `json:"status,omitempty" jsonschema:"Default: active."`
	Handle      slug                  `json:"handle,omitempty"`
	Vendor      shortText             `json:"vendor,omitempty"`
	ProductType shortText             `json:"product_type,omitempty"`
	Tags        []shortText           `json:"tags,omitempty"`
	Options     []optionIn            `json:"options,omitempty" jsonschema:"Up to 3."`
	Variants    []variantIn           `json:"variants,omitempty"`
	Media       []mediaIn             `json:"media,omitempty"`
	CategoryIDs []string              `json:"category_ids,omitempty"`
	Attributes  map[string]any        `json:"attributes,omitempty" jsonschema:"By attribute key."`
	SEO         *seoIn                `json:"seo,omitempty"`
}

func (in productFields) NewProduct() catalog.NewProduct {
	p := catalog.NewProduct{SKU: string(in.SKU), Name: string(in.Name), Description: string(in.Description), Price: string(in.Price),
		Currency: string(in.Currency), Stock: int64(in.Stock), Status: string(in.Status), Handle: string(in.Handle),
		Vendor: string(in.Vendor), ProductType: string(in.ProductType), Tags: TextsOf(in.Tags), Options: optionsOf(in.Options),
		Media: mediaOf(in.Media), CategoryIDs: in.CategoryIDs, Attributes: in.Attributes}
	for _, v := range in.Variants {
		p.Variants = append(p.Variants, v.NewVariant())
	}
	if in.SEO != nil {
		p.SEO = vitrine.SEO{Title: string(in.SEO.Title), Description: string(in.SEO.Description)}
	}
	return p
}

type UpdateProductIn struct {
	TenantArg
	ID              string                 `json:"id"`
	Name            *shortText             `json:"name,omitempty"`
	Description     *longText              `json:"description,omitempty" jsonschema:"HTML."`
	Status          *vitrine.ProductStatus `json:"status,omitempty" jsonschema:"active publishes."`
	SKU             *sku                   `json:"sku,omitempty" jsonschema:"One-variant product's."`
	Price           *vitrine.Decimal       `json:"price,omitempty" jsonschema:"One-variant product's."`
	Stock           *stockLevel            `json:"stock,omitempty" jsonschema:"One-variant product's."`
	Currency        *vitrine.CurrencyCode  `json:"currency,omitempty" jsonschema:"ISO 4217; amounts kept."`
	Handle          *slug                  `json:"handle,omitempty"`
	Vendor          *shortText             `json:"vendor,omitempty"`
	ProductType     *shortText             `json:"product_type,omitempty"`
	Tags            *[]shortText           `json:"tags,omitempty"`
	Options         *[]optionIn            `json:"options,omitempty"`
	Media           *[]mediaIn             `json:"media,omitempty"`
	CategoryIDs     *[]string              `json:"category_ids,omitempty"`
	Attributes      map[string]any         `json:"attributes,omitempty" jsonschema:"Sets these; null removes."`
	SEO             *seoIn                 `json:"seo,omitempty"`
	ExpectedVersion *int64                 `json:"expected_version,omitempty" jsonschema:"If it changed since: ConflictError."`
}

func (in UpdateProductIn) Changes() catalog.ProductChanges {
	ch := catalog.ProductChanges{
		SKU: (*string)(in.SKU), Name: (*string)(in.Name), Description: (*string)(in.Description), Price: (*string)(in.Price),
		Currency: (*string)(in.Currency), Stock: (*int64)(in.Stock), Status: (*string)(in.Status), Handle: (*string)(in.Handle),
		Vendor: (*string)(in.Vendor), ProductType: (*string)(in.ProductType), CategoryIDs: in.CategoryIDs, Attributes: in.Attributes,
		ExpectedVersion: in.ExpectedVersion,
	}
	if in.Tags != nil {
		t := TextsOf(*in.Tags)
		ch.Tags = &t
	}
	if in.Options != nil {
		o := optionsOf(*in.Options)
		if o == nil {
			o = []vitrine.Option{}
		}
		ch.Options = &o
	}
	if in.Media != nil {
		m := mediaOf(*in.Media)
		ch.Media = &m
	}
	if in.SEO != nil {
		ch.SEO = &vitrine.SEO{Title: string(in.SEO.Title), Description: string(in.SEO.Description)}
	}
	return ch
}

type DeleteProductIn struct {
	TenantArg
	ID string `json:"id"`
}

type DeleteProductOut struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted" jsonschema:"false when the user declined to confirm."`
	Message string `json:"message,omitempty"`
}
