package mcpserver

import (
	"context"
	"encoding/json"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// Named types carry their constraints into the schemas (see typeSchemas).
type (
	productStatus string
	productSort   string
	productDetail string
	facetName     string
	policyName    string
	weightUnit    string
	imageURL      string
	pageLimit     int
	stockLevel    int64
	sku           string
	shortText     string // names, reasons, queries, keys
	longText      string
	decimal       string
	currencyCode  string
	slug          string
	email         string
	roleName      string
	roleText      string
)

// productOut is a product as tools return it: the whole record.
type productOut struct {
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
		Stock: v.Stock, InventoryPolicy: string(v.Policy), RequiresShipping: v.RequiresShipping, Taxable: v.Taxable, Image: v.Image, Position: v.Position}
	if v.CompareAtPrice != nil {
		out.CompareAtPrice = price(*v.CompareAtPrice, p.Currency)
	}
	return out
}

func productView(p *vitrine.Product) productOut {
	out := productOut{
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

// productRow is a product in a page of list_products: what an agent uses
// to decide and act on it (its price range and total stock, not its
// variants), and the rest of the record only on request (detail "full"),
// since a page goes whole into the model's context. get_product returns
// everything.
type productRow struct {
	ID             string    `json:"id"`
	SKU            string    `json:"sku"`
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
	full *productOut
}

type rowImage struct {
	URL string `json:"url"`
	Alt string `json:"alt,omitempty"`
}

func productRowView(p *vitrine.Product, full bool) productRow {
	r := productRow{ID: p.ID, SKU: p.SKU, Name: p.Name, Price: p.PriceString(), Currency: p.Currency,
		Stock: p.Stock, Status: string(p.Status), Variants: len(p.Variants), Vendor: p.Vendor, Version: p.Version, UpdatedAt: p.UpdatedAt}
	if p.PriceMax != p.Price {
		r.PriceMax = price(p.PriceMax, p.Currency)
	}
	if p.CompareAtPrice != nil {
		r.CompareAtPrice = price(*p.CompareAtPrice, p.Currency)
	}
	if len(p.Media) > 0 {
		r.Image = &rowImage{URL: p.Media[0].URL, Alt: p.Media[0].Alt}
	}
	if full {
		v := productView(p)
		r.full = &v
	}
	return r
}

// MarshalJSON writes the row, or with detail "full" the whole record.
func (r productRow) MarshalJSON() ([]byte, error) {
	if r.full != nil {
		return json.Marshal(r.full)
	}
	type row productRow
	return json.Marshal(row(r))
}

type listProductsIn struct {
	TenantArg
	Query        shortText         `json:"query,omitempty" jsonschema:"Word starts of name, SKU, text, tags, vendor, type, options."`
	Status       productStatus     `json:"status,omitempty" jsonschema:"Default: any."`
	Tags         []shortText       `json:"tags,omitempty" jsonschema:"All of them."`
	Vendor       shortText         `json:"vendor,omitempty"`
	ProductType  shortText         `json:"product_type,omitempty"`
	CategoryID   string            `json:"category_id,omitempty" jsonschema:"With its subcategories."`
	Options      map[string]string `json:"options,omitempty" jsonschema:"{\"Size\":\"M\"}: on one variant, with price and stock."`
	Attributes   map[string]any    `json:"attributes,omitempty"`
	OnSale       *bool             `json:"on_sale,omitempty" jsonschema:"Below compare-at price."`
	InStock      *bool             `json:"in_stock,omitempty" jsonschema:"Stock above 0."`
	MinPrice     decimal           `json:"min_price,omitempty" jsonschema:"In currency."`
	MaxPrice     decimal           `json:"max_price,omitempty" jsonschema:"In currency."`
	Currency     currencyCode      `json:"currency,omitempty" jsonschema:"Of the prices. Default: BRL."`
	UpdatedSince string            `json:"updated_since,omitempty" jsonschema:"RFC 3339."`
	Facets       []facetName       `json:"facets,omitempty" jsonschema:"Counts by value, under the filter."`
	Sort         productSort       `json:"sort,omitempty" jsonschema:"- reverses. Default: relevance, else name."`
	Detail       productDetail     `json:"detail,omitempty" jsonschema:"full: rows as get_product."`
	pageArgs
}

type listProductsOut struct {
	Products   []productRow `json:"products"`
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

func facetsView(f *vitrine.Facets, asked []facetName) *facetsOut {
	if f == nil {
		return nil
	}
	out := &facetsOut{}
	for _, name := range asked {
		vs := f.Values[string(name)]
		if vs == nil {
			vs = []vitrine.FacetValue{}
		}
		switch string(name) {
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

type getProductIn struct {
	TenantArg
	ID  string `json:"id,omitempty" jsonschema:"Give id or sku."`
	SKU sku    `json:"sku,omitempty" jsonschema:"Any variant's, any case."`
}

type optionIn struct {
	Name   shortText   `json:"name"`
	Values []shortText `json:"values"`
}

type mediaIn struct {
	URL imageURL  `json:"url" jsonschema:"http(s); never fetched."`
	Alt shortText `json:"alt,omitempty"`
}

type weightIn struct {
	Value decimal    `json:"value"`
	Unit  weightUnit `json:"unit"`
}

type seoIn struct {
	Title       shortText `json:"title,omitempty"`
	Description longText  `json:"description,omitempty"`
}

type variantIn struct {
	SKU              sku               `json:"sku,omitempty"`
	Options          map[string]string `json:"options,omitempty" jsonschema:"{\"Size\":\"M\"}."`
	Price            decimal           `json:"price"`
	CompareAtPrice   decimal           `json:"compare_at_price,omitempty"`
	Barcode          shortText         `json:"barcode,omitempty"`
	Weight           *weightIn         `json:"weight,omitempty"`
	Stock            stockLevel        `json:"stock,omitempty"`
	InventoryPolicy  policyName        `json:"inventory_policy,omitempty" jsonschema:"Default: deny."`
	RequiresShipping *bool             `json:"requires_shipping,omitempty"`
	Taxable          *bool             `json:"taxable,omitempty"`
	Image            imageURL          `json:"image,omitempty" jsonschema:"A media URL."`
}

func (v variantIn) service() service.NewVariant {
	out := service.NewVariant{SKU: string(v.SKU), Options: v.Options, Price: string(v.Price), CompareAtPrice: string(v.CompareAtPrice),
		Barcode: string(v.Barcode), Stock: int64(v.Stock), InventoryPolicy: string(v.InventoryPolicy), RequiresShipping: v.RequiresShipping,
		Taxable: v.Taxable, Image: string(v.Image)}
	if v.Weight != nil {
		out.Weight = &vitrine.Weight{Value: string(v.Weight.Value), Unit: vitrine.WeightUnit(v.Weight.Unit)}
	}
	return out
}

func optionsOf(in []optionIn) []vitrine.Option {
	var out []vitrine.Option
	for _, o := range in {
		opt := vitrine.Option{Name: string(o.Name)}
		for _, v := range o.Values {
			opt.Values = append(opt.Values, string(v))
		}
		out = append(out, opt)
	}
	return out
}

func mediaOf(in []mediaIn) []vitrine.Media {
	out := make([]vitrine.Media, len(in))
	for i, m := range in {
		out[i] = vitrine.Media{URL: string(m.URL), Alt: string(m.Alt), Position: i + 1}
	}
	return out
}

func textsOf(in []shortText) []string {
	out := make([]string, len(in))
	for i, t := range in {
		out[i] = string(t)
	}
	return out
}

type createProductIn struct {
	TenantArg
	productFields
	// IdempotencyKey makes a retry safe.
	IdempotencyKey shortText `json:"idempotency_key,omitempty" jsonschema:"Retries within 24 h get the first product."`
}

// productFields are a new product's fields: create_product's, and a row's
// of import_products.
type productFields struct {
	Name        shortText      `json:"name"`
	SKU         sku            `json:"sku,omitempty" jsonschema:"One-variant product's; else give variants."`
	Price       decimal        `json:"price,omitempty" jsonschema:"One-variant product's, decimal: \"4599.90\"."`
	Stock       stockLevel     `json:"stock,omitempty" jsonschema:"One-variant product's."`
	Description longText       `json:"description,omitempty" jsonschema:"HTML, sanitized."`
	Currency    currencyCode   `json:"currency,omitempty" jsonschema:"ISO 4217. Default: BRL."`
	Status      productStatus  `json:"status,omitempty" jsonschema:"Default: active."`
	Handle      slug           `json:"handle,omitempty"`
	Vendor      shortText      `json:"vendor,omitempty"`
	ProductType shortText      `json:"product_type,omitempty"`
	Tags        []shortText    `json:"tags,omitempty"`
	Options     []optionIn     `json:"options,omitempty" jsonschema:"Up to 3."`
	Variants    []variantIn    `json:"variants,omitempty"`
	Media       []mediaIn      `json:"media,omitempty"`
	CategoryIDs []string       `json:"category_ids,omitempty"`
	Attributes  map[string]any `json:"attributes,omitempty" jsonschema:"By attribute key."`
	SEO         *seoIn         `json:"seo,omitempty"`
}

func (in productFields) service() service.NewProduct {
	p := service.NewProduct{SKU: string(in.SKU), Name: string(in.Name), Description: string(in.Description), Price: string(in.Price),
		Currency: string(in.Currency), Stock: int64(in.Stock), Status: string(in.Status), Handle: string(in.Handle),
		Vendor: string(in.Vendor), ProductType: string(in.ProductType), Tags: textsOf(in.Tags), Options: optionsOf(in.Options),
		Media: mediaOf(in.Media), CategoryIDs: in.CategoryIDs, Attributes: in.Attributes}
	for _, v := range in.Variants {
		p.Variants = append(p.Variants, v.service())
	}
	if in.SEO != nil {
		p.SEO = vitrine.SEO{Title: string(in.SEO.Title), Description: string(in.SEO.Description)}
	}
	return p
}

type updateProductIn struct {
	TenantArg
	ID              string         `json:"id"`
	Name            *shortText     `json:"name,omitempty"`
	Description     *longText      `json:"description,omitempty" jsonschema:"HTML."`
	Status          *productStatus `json:"status,omitempty" jsonschema:"active publishes."`
	SKU             *sku           `json:"sku,omitempty" jsonschema:"One-variant product's."`
	Price           *decimal       `json:"price,omitempty" jsonschema:"One-variant product's."`
	Stock           *stockLevel    `json:"stock,omitempty" jsonschema:"One-variant product's."`
	Currency        *currencyCode  `json:"currency,omitempty" jsonschema:"ISO 4217; amounts kept."`
	Handle          *slug          `json:"handle,omitempty"`
	Vendor          *shortText     `json:"vendor,omitempty"`
	ProductType     *shortText     `json:"product_type,omitempty"`
	Tags            *[]shortText   `json:"tags,omitempty"`
	Options         *[]optionIn    `json:"options,omitempty"`
	Media           *[]mediaIn     `json:"media,omitempty"`
	CategoryIDs     *[]string      `json:"category_ids,omitempty"`
	Attributes      map[string]any `json:"attributes,omitempty" jsonschema:"Sets these; null removes."`
	SEO             *seoIn         `json:"seo,omitempty"`
	ExpectedVersion *int64         `json:"expected_version,omitempty" jsonschema:"If it changed since: ConflictError."`
}

func (in updateProductIn) service() service.ProductChanges {
	ch := service.ProductChanges{
		SKU: (*string)(in.SKU), Name: (*string)(in.Name), Description: (*string)(in.Description), Price: (*string)(in.Price),
		Currency: (*string)(in.Currency), Stock: (*int64)(in.Stock), Status: (*string)(in.Status), Handle: (*string)(in.Handle),
		Vendor: (*string)(in.Vendor), ProductType: (*string)(in.ProductType), CategoryIDs: in.CategoryIDs, Attributes: in.Attributes,
		ExpectedVersion: in.ExpectedVersion,
	}
	if in.Tags != nil {
		t := textsOf(*in.Tags)
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

type deleteProductIn struct {
	TenantArg
	ID string `json:"id"`
}

type deleteProductOut struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted" jsonschema:"false when the user declined to confirm."`
	Message string `json:"message,omitempty"`
}

func productTools(opts Options) []*Tool {
	return []*Tool{
		tenantTool(Tool{
			Name:        "list_products",
			Title:       "List products",
			Description: "A company's products, a page at a time, filtered, with facet counts if asked.",
			Toolset:     "products", Op: service.OpListProducts, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in listProductsIn) (listProductsOut, error) {
			facets := make([]string, len(in.Facets))
			for i, f := range in.Facets {
				facets[i] = string(f)
			}
			page, err := svc.ListProducts(ctx, a, service.ProductQuery{
				Query: string(in.Query), Status: string(in.Status), InStock: in.InStock, MinPrice: string(in.MinPrice), MaxPrice: string(in.MaxPrice),
				Currency: string(in.Currency), UpdatedSince: in.UpdatedSince, Tags: textsOf(in.Tags), Vendor: string(in.Vendor),
				ProductType: string(in.ProductType), CategoryID: in.CategoryID, Options: in.Options, Attributes: in.Attributes, OnSale: in.OnSale,
				Facets: facets, Sort: string(in.Sort), Limit: int(in.Limit), Cursor: string(in.Cursor),
			})
			if err != nil {
				return listProductsOut{}, err
			}
			out := listProductsOut{Products: make([]productRow, 0, len(page.Products)), NextCursor: page.NextCursor}
			if f := facetsView(page.Facets, in.Facets); f != nil {
				out.Facets = f
			}
			for _, p := range page.Products {
				out.Products = append(out.Products, productRowView(p, in.Detail == "full"))
			}
			return out, nil
		}),
		tenantTool(Tool{
			Name:        "get_product",
			Title:       "Get a product",
			Description: "Get a product whole, variants and media too, by id or by a variant's SKU.",
			Toolset:     "products", Op: service.OpGetProduct, ReadOnly: true, Idempotent: true, TargetArg: "id",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in getProductIn) (productOut, error) {
			p, err := svc.GetProduct(ctx, a, in.ID, string(in.SKU))
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
		tenantTool(Tool{
			Name:        "create_product",
			Title:       "Create a product",
			Description: "Add a product: of one variant (sku, price, stock) or with variants; draft keeps it unpublished.",
			Toolset:     "products", Op: service.OpCreateProduct, ResultAs: "get_product",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in createProductIn) (productOut, error) {
			p, err := svc.CreateProduct(ctx, a, in.service(), string(in.IdempotencyKey))
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
		tenantTool(Tool{
			Name:        "update_product",
			Title:       "Update a product",
			Description: "Change the fields given of a product; the others stay.",
			Toolset:     "products", Op: service.OpUpdateProduct, TargetArg: "id", ResultAs: "get_product",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in updateProductIn) (productOut, error) {
			p, err := svc.UpdateProduct(ctx, a, in.ID, in.service())
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
		tenantTool(Tool{
			Name:        "delete_product",
			Title:       "Delete a product",
			Description: "Delete a product for good; archiving (update_product) keeps it. The user may be asked to confirm.",
			Toolset:     "products", Op: service.OpDeleteProduct, Destructive: true, Idempotent: true, TargetArg: "id",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in deleteProductIn) (deleteProductOut, error) {
			if opts.ConfirmDestructive {
				if declined, err := confirmDeletion(ctx, svc, a, in.ID); err != nil || declined != "" {
					return deleteProductOut{ID: in.ID, Message: declined}, err
				}
			}
			if err := svc.DeleteProduct(ctx, a, in.ID); err != nil {
				return deleteProductOut{}, err
			}
			return deleteProductOut{ID: in.ID, Deleted: true}, nil
		}),
	}
}
