package mcpserver

import (
	"context"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// Named types carry their constraints into the schemas (see typeSchemas).
type (
	productStatus string
	productSort   string
	productDetail string
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
	ID          string    `json:"id"`
	TenantID    string    `json:"tenant_id"`
	SKU         string    `json:"sku"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Price       string    `json:"price"`
	Currency    string    `json:"currency"`
	Stock       int64     `json:"stock"`
	Status      string    `json:"status"`
	Version     int64     `json:"version"`
	CreatedAt   time.Time `json:"created_at"`
	CreatedBy   string    `json:"created_by"`
	UpdatedAt   time.Time `json:"updated_at"`
	UpdatedBy   string    `json:"updated_by"`
}

func productView(p *vitrine.Product) productOut {
	return productOut{
		ID: p.ID, TenantID: p.TenantID, SKU: p.SKU, Name: p.Name, Description: p.Description,
		Price: p.PriceString(), Currency: p.Currency, Stock: p.Stock, Status: string(p.Status), Version: p.Version,
		CreatedAt: p.CreatedAt, CreatedBy: p.CreatedBy, UpdatedAt: p.UpdatedAt, UpdatedBy: p.UpdatedBy,
	}
}

// productRow is a product in a page of list_products: what an agent uses
// to decide and act on it, and the rest of the record only on request
// (detail "full"), since a page goes whole into the model's context.
// get_product returns everything.
type productRow struct {
	ID          string     `json:"id"`
	SKU         string     `json:"sku"`
	Name        string     `json:"name"`
	Price       string     `json:"price"`
	Currency    string     `json:"currency"`
	Stock       int64      `json:"stock"`
	Status      string     `json:"status"`
	Version     int64      `json:"version"`
	UpdatedAt   time.Time  `json:"updated_at"`
	TenantID    string     `json:"tenant_id,omitempty"`
	Description *string    `json:"description,omitempty"`
	CreatedAt   *time.Time `json:"created_at,omitempty"`
	CreatedBy   string     `json:"created_by,omitempty"`
	UpdatedBy   string     `json:"updated_by,omitempty"`
}

func productRowView(p *vitrine.Product, full bool) productRow {
	r := productRow{ID: p.ID, SKU: p.SKU, Name: p.Name, Price: p.PriceString(), Currency: p.Currency,
		Stock: p.Stock, Status: string(p.Status), Version: p.Version, UpdatedAt: p.UpdatedAt}
	if full {
		r.TenantID, r.Description, r.CreatedAt, r.CreatedBy, r.UpdatedBy = p.TenantID, &p.Description, &p.CreatedAt, p.CreatedBy, p.UpdatedBy
	}
	return r
}

type listProductsIn struct {
	TenantArg
	Query        shortText     `json:"query,omitempty" jsonschema:"Words of name, SKU or description; case and accents ignored; matches word starts. Ranked: exact SKU, then name."`
	Status       productStatus `json:"status,omitempty" jsonschema:"Default: any."`
	InStock      *bool         `json:"in_stock,omitempty" jsonschema:"true: stock above 0; false: out of stock."`
	MinPrice     decimal       `json:"min_price,omitempty" jsonschema:"In currency."`
	MaxPrice     decimal       `json:"max_price,omitempty" jsonschema:"In currency."`
	Currency     currencyCode  `json:"currency,omitempty" jsonschema:"ISO 4217, of min_price and max_price. Default: BRL."`
	UpdatedSince string        `json:"updated_since,omitempty" jsonschema:"RFC 3339 time."`
	Sort         productSort   `json:"sort,omitempty" jsonschema:"A leading - reverses. Default: relevance with a query, else name."`
	Detail       productDetail `json:"detail,omitempty" jsonschema:"full: every field, as get_product. Default: summary."`
	pageArgs
}

type listProductsOut struct {
	Products   []productRow `json:"products"`
	NextCursor string       `json:"next_cursor"`
}

type getProductIn struct {
	TenantArg
	ID  string `json:"id,omitempty" jsonschema:"Give id or sku."`
	SKU sku    `json:"sku,omitempty" jsonschema:"Any case."`
}

type createProductIn struct {
	TenantArg
	SKU         sku           `json:"sku" jsonschema:"Letters, digits and . _ / - (not at the ends); unique in the company, ignoring case."`
	Name        shortText     `json:"name"`
	Price       decimal       `json:"price" jsonschema:"Decimal string in the currency's units, such as \"4599.90\"."`
	Description longText      `json:"description,omitempty"`
	Currency    currencyCode  `json:"currency,omitempty" jsonschema:"ISO 4217. Default: BRL."`
	Stock       stockLevel    `json:"stock,omitempty" jsonschema:"Default: 0."`
	Status      productStatus `json:"status,omitempty" jsonschema:"Default: active."`
	// IdempotencyKey makes a retry safe.
	IdempotencyKey shortText `json:"idempotency_key,omitempty" jsonschema:"A unique string: a retry with the same key and arguments within 24 h returns the first call's product; other arguments are a ConflictError."`
}

type updateProductIn struct {
	TenantArg
	ID              string         `json:"id"`
	SKU             *sku           `json:"sku,omitempty"`
	Name            *shortText     `json:"name,omitempty"`
	Price           *decimal       `json:"price,omitempty"`
	Description     *longText      `json:"description,omitempty" jsonschema:"Empty clears it."`
	Currency        *currencyCode  `json:"currency,omitempty" jsonschema:"ISO 4217. Without price, the amount is kept if the currency can express it."`
	Stock           *stockLevel    `json:"stock,omitempty"`
	Status          *productStatus `json:"status,omitempty" jsonschema:"archived takes it off sale; active restores it."`
	ExpectedVersion *int64         `json:"expected_version,omitempty" jsonschema:"The product's version you read; if it changed since, a ConflictError and nothing written."`
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

func productTools(svc *service.Service, opts Options) []*Tool {
	return []*Tool{
		tenantTool(svc, Tool{
			Name:  "list_products",
			Title: "List products",
			Description: "List a company's products, a page at a time. Each has id, sku, name, price, currency, stock, " +
				"status, version, updated_at; detail full adds the rest.",
			Toolset: "products", Op: service.OpListProducts, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, a *service.Access, in listProductsIn) (listProductsOut, error) {
			page, err := svc.ListProducts(ctx, a, service.ProductQuery{
				Query: string(in.Query), Status: string(in.Status), InStock: in.InStock, MinPrice: string(in.MinPrice), MaxPrice: string(in.MaxPrice),
				Currency: string(in.Currency), UpdatedSince: in.UpdatedSince, Sort: string(in.Sort), Limit: int(in.Limit), Cursor: string(in.Cursor),
			})
			if err != nil {
				return listProductsOut{}, err
			}
			out := listProductsOut{Products: make([]productRow, 0, len(page.Products)), NextCursor: page.NextCursor}
			for _, p := range page.Products {
				out.Products = append(out.Products, productRowView(p, in.Detail == "full"))
			}
			return out, nil
		}),
		tenantTool(svc, Tool{
			Name:        "get_product",
			Title:       "Get a product",
			Description: "Get a product, every field of it, by id or by SKU. One that is not in the company is a NotFoundError.",
			Toolset:     "products", Op: service.OpGetProduct, ReadOnly: true, Idempotent: true, TargetArg: "id",
		}, func(ctx context.Context, a *service.Access, in getProductIn) (productOut, error) {
			p, err := svc.GetProduct(ctx, a, in.ID, string(in.SKU))
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
		tenantTool(svc, Tool{
			Name:        "create_product",
			Title:       "Create a product",
			Description: "Add a product to a company's catalog; a SKU already taken is a ConflictError. Returns the product.",
			Toolset:     "products", Op: service.OpCreateProduct,
		}, func(ctx context.Context, a *service.Access, in createProductIn) (productOut, error) {
			p, err := svc.CreateProduct(ctx, a, service.NewProduct{
				SKU: string(in.SKU), Name: string(in.Name), Description: string(in.Description), Price: string(in.Price),
				Currency: string(in.Currency), Stock: int64(in.Stock), Status: string(in.Status),
			}, string(in.IdempotencyKey))
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
		tenantTool(svc, Tool{
			Name:        "update_product",
			Title:       "Update a product",
			Description: "Change the fields given of a product; the others stay. Returns the product as it now is.",
			Toolset:     "products", Op: service.OpUpdateProduct, TargetArg: "id",
		}, func(ctx context.Context, a *service.Access, in updateProductIn) (productOut, error) {
			p, err := svc.UpdateProduct(ctx, a, in.ID, service.ProductChanges{
				SKU: (*string)(in.SKU), Name: (*string)(in.Name), Description: (*string)(in.Description), Price: (*string)(in.Price),
				Currency: (*string)(in.Currency), Stock: (*int64)(in.Stock), Status: (*string)(in.Status), ExpectedVersion: in.ExpectedVersion,
			})
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
		tenantTool(svc, Tool{
			Name:  "delete_product",
			Title: "Delete a product",
			Description: "Delete a product for good. To keep it off sale instead, archive it (update_product). The " +
				"user may be asked to confirm.",
			Toolset: "products", Op: service.OpDeleteProduct, Destructive: true, Idempotent: true, TargetArg: "id",
		}, func(ctx context.Context, a *service.Access, in deleteProductIn) (deleteProductOut, error) {
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
