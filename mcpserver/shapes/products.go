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
	handle        string // a product's, as its URL shows it
	email         string
	roleName      string
	roleText      string
)

// ProductOut is a product as tools return it: the whole record, lean. A
// record leaves out what says nothing, so that every agent's context holds
// fewer bytes: a field that is empty (its schema's default: "", [], {}),
// and a variant's field that holds its documented default (variantOut).
// The output schema states each default ("default"), so that a client
// gets every value back by applying them.
type ProductOut struct {
	ID             string           `json:"id"`
	TenantID       string           `json:"tenant_id"`
	Handle         string           `json:"handle"`
	Name           string           `json:"name"`
	Description    string           `json:"description,omitempty" default:"\"\""`
	Vendor         string           `json:"vendor,omitempty"`
	ProductType    string           `json:"product_type,omitempty"`
	Tags           []string         `json:"tags,omitempty" default:"[]"`
	Status         string           `json:"status"`
	SKU            string           `json:"sku,omitempty" default:"\"\""`
	Price          string           `json:"price" jsonschema:"Lowest."`
	PriceMax       string           `json:"price_max,omitempty" jsonschema:"Highest, when they differ."`
	CompareAtPrice string           `json:"compare_at_price,omitempty"`
	Currency       string           `json:"currency"`
	Stock          int64            `json:"stock" jsonschema:"Total."`
	Options        []vitrine.Option `json:"options,omitempty" default:"[]"`
	Variants       []variantOut     `json:"variants"`
	Media          []mediaOut       `json:"media,omitempty" default:"[]"`
	Categories     []categoryRef    `json:"categories,omitempty" default:"[]"`
	Attributes     map[string]any   `json:"attributes,omitempty" default:"{}"`
	SEO            vitrine.SEO      `json:"seo,omitzero" default:"{}"`
	Version        int64            `json:"version"`
	CreatedAt      time.Time        `json:"created_at"`
	CreatedBy      string           `json:"created_by"`
	// UpdatedAt and UpdatedBy are left out when they are CreatedAt and
	// CreatedBy: a product never changed since it was made.
	UpdatedAt time.Time `json:"updated_at,omitzero" jsonschema:"Left out when it is created_at."`
	UpdatedBy string    `json:"updated_by,omitempty" jsonschema:"Left out when it is created_by."`
}

// LeftOutWhen starts the description of a result's field that the result
// leaves out at times, saying when: tools/list names it with "?".
const LeftOutWhen = "Left out when "

type categoryRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// variantOut is a variant in a record. A field whose default is not its
// empty value is of a type that knows its default (defaultTrue,
// policyOut): encoding/json leaves it out when it holds it (omitzero
// asks the type), and the schema states it (typeSchemas). A field of one
// more default is one more line: `TrackInventory defaultTrue
// json:"track_inventory,omitzero"`.
type variantOut struct {
	ID               string            `json:"id"`
	SKU              string            `json:"sku,omitempty" default:"\"\""`
	Options          map[string]string `json:"options,omitempty" default:"{}"`
	Price            string            `json:"price"`
	CompareAtPrice   string            `json:"compare_at_price,omitempty"`
	Barcode          string            `json:"barcode,omitempty"`
	Weight           *vitrine.Weight   `json:"weight,omitempty"`
	Stock            int64             `json:"stock"`
	InventoryPolicy  policyOut         `json:"inventory_policy,omitzero"`
	TrackInventory   defaultTrue       `json:"track_inventory,omitzero"`
	RequiresShipping defaultTrue       `json:"requires_shipping,omitzero"`
	Taxable          defaultTrue       `json:"taxable,omitzero"`
	Image            string            `json:"image,omitempty"`
	Position         atIndex           `json:"position,omitzero"`
}

// mediaOut is an image in a record; its position, always its place in
// media, left out as a variant's is.
type mediaOut struct {
	URL      string  `json:"url"`
	Alt      string  `json:"alt,omitempty"`
	Position atIndex `json:"position,omitzero"`
}

// The types of fields left out when they hold their default: each says
// what its default is (IsZero, which omitzero asks) and its schema states
// it (typeSchemas).
type (
	// defaultTrue is a flag that is true unless said: left out when true.
	defaultTrue bool
	// policyOut is a variant's inventory policy: left out when deny.
	policyOut string
	// atIndex is a position (from 1) in its list: left out when it is
	// the item's place in the list, as the view writes it (position, 0
	// when it is the place).
	atIndex int
)

func (f defaultTrue) IsZero() bool { return bool(f) }
func (p policyOut) IsZero() bool   { return p == policyOut(vitrine.PolicyDeny) }

// position is what a record says of an item's position: nothing (0) when
// it is the item's place in its list, i from 0.
func position(pos, i int) atIndex {
	if pos == i+1 {
		return 0
	}
	return atIndex(pos)
}

func price(minor int64, currency string) string {
	return vitrine.FormatPrice(minor, vitrine.CurrencyScale(currency))
}

func variantView(p *vitrine.Product, v *vitrine.Variant, i int) variantOut {
	out := variantOut{ID: v.ID, SKU: v.SKU, Options: v.Options, Price: price(v.Price, p.Currency), Barcode: v.Barcode, Weight: v.Weight,
		Stock: v.Stock, InventoryPolicy: policyOut(v.Policy), TrackInventory: defaultTrue(!v.Untracked), RequiresShipping: defaultTrue(v.RequiresShipping),
		Taxable: defaultTrue(v.Taxable), Image: v.Image, Position: position(v.Position, i)}
	if v.CompareAtPrice != nil {
		out.CompareAtPrice = price(*v.CompareAtPrice, p.Currency)
	}
	return out
}

func ProductView(p *vitrine.Product) ProductOut {
	out := ProductOut{
		ID: p.ID, TenantID: p.TenantID, Handle: p.Handle, Name: p.Name, Description: p.Description, Vendor: p.Vendor, ProductType: p.ProductType,
		Tags: p.Tags, Status: string(p.Status), SKU: p.SKU, Price: p.PriceString(), Currency: p.Currency, Stock: p.Stock,
		Options: p.Options, Attributes: p.Attributes, SEO: p.SEO, Version: p.Version,
		CreatedAt: p.CreatedAt, CreatedBy: p.CreatedBy,
		Variants: make([]variantOut, len(p.Variants)),
	}
	if !p.UpdatedAt.Equal(p.CreatedAt) {
		out.UpdatedAt = p.UpdatedAt
	}
	if p.UpdatedBy != p.CreatedBy {
		out.UpdatedBy = p.UpdatedBy
	}
	if p.PriceMax != p.Price {
		out.PriceMax = price(p.PriceMax, p.Currency)
	}
	if p.CompareAtPrice != nil {
		out.CompareAtPrice = price(*p.CompareAtPrice, p.Currency)
	}
	for i, v := range p.Variants {
		out.Variants[i] = variantView(p, v, i)
	}
	if len(p.Media) > 0 {
		out.Media = make([]mediaOut, len(p.Media))
		for i, m := range p.Media {
			out.Media[i] = mediaOut{URL: m.URL, Alt: m.Alt, Position: position(m.Position, i)}
		}
	}
	if len(p.Categories) > 0 {
		out.Categories = make([]categoryRef, len(p.Categories))
		for i, c := range p.Categories {
			out.Categories[i] = categoryRef(c)
		}
	}
	return out
}

type GetProductIn struct {
	TenantArg
	ID     string            `json:"id,omitempty" jsonschema:"Give id, sku or handle."`
	SKU    sku               `json:"sku,omitempty" jsonschema:"Any variant's, any case."`
	Handle handle            `json:"handle,omitempty"`
	Locale vitrine.LocaleTag `json:"locale,omitempty" jsonschema:"Read in this locale."`
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
