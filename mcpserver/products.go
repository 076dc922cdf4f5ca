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
	pageLimit     int
	stockLevel    int64
)

// productOut is a product as tools return it.
type productOut struct {
	ID          string    `json:"id"`
	TenantID    string    `json:"tenant_id"`
	SKU         string    `json:"sku"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Price       string    `json:"price" jsonschema:"Exact decimal price in the currency's units, such as \"4599.90\"."`
	Currency    string    `json:"currency"`
	Stock       int64     `json:"stock"`
	Status      string    `json:"status"`
	Version     int64     `json:"version" jsonschema:"Grows with every change; pass it as expected_version to update_product to avoid overwriting someone else's change."`
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

type listProductsIn struct {
	TenantArg
	Query        string        `json:"query,omitempty" jsonschema:"Words to find in product names, SKUs and descriptions; case and accents are ignored and a word matches the start of a word (\"note\" finds \"Notebook\"). Results are ranked: the exact SKU first, then matches in the name, then the rest."`
	Status       productStatus `json:"status,omitempty" jsonschema:"Only products with this status. Default: any."`
	InStock      *bool         `json:"in_stock,omitempty" jsonschema:"true: only products with stock; false: only those out of stock."`
	MinPrice     string        `json:"min_price,omitempty" jsonschema:"Only products priced at least this, in currency (decimal string)."`
	MaxPrice     string        `json:"max_price,omitempty" jsonschema:"Only products priced at most this, in currency (decimal string)."`
	Currency     string        `json:"currency,omitempty" jsonschema:"The currency of min_price and max_price; only products in it match them. Default: BRL."`
	UpdatedSince string        `json:"updated_since,omitempty" jsonschema:"Only products changed at or after this time (RFC 3339)."`
	Sort         productSort   `json:"sort,omitempty" jsonschema:"Order of the list; a leading - reverses it. Default: relevance with a query, name without."`
	Limit        pageLimit     `json:"limit,omitempty" jsonschema:"Products per page, 1 to 100. Default: 20."`
	Cursor       string        `json:"cursor,omitempty" jsonschema:"The next_cursor of the previous page, with the same filters. Omit for the first page."`
}

type listProductsOut struct {
	Products   []productOut `json:"products"`
	NextCursor string       `json:"next_cursor" jsonschema:"Pass as cursor for the next page; empty on the last page."`
}

type getProductIn struct {
	TenantArg
	ID  string `json:"id,omitempty" jsonschema:"The product's id. Give id or sku."`
	SKU string `json:"sku,omitempty" jsonschema:"The product's SKU, in any case. Give id or sku."`
}

type createProductIn struct {
	TenantArg
	SKU         string        `json:"sku" jsonschema:"Stock-keeping unit: letters, digits and . _ / - (not at the ends), up to 64 characters; unique in the company without regard to case."`
	Name        string        `json:"name" jsonschema:"Product name, up to 200 characters."`
	Price       string        `json:"price" jsonschema:"Price as a decimal string in the currency's units, such as \"4599.90\"; no more decimals than the currency has (2 for BRL)."`
	Description string        `json:"description,omitempty" jsonschema:"Free text, up to 5000 characters."`
	Currency    string        `json:"currency,omitempty" jsonschema:"ISO 4217 currency code. Default: BRL."`
	Stock       stockLevel    `json:"stock,omitempty" jsonschema:"Units in stock. Default: 0."`
	Status      productStatus `json:"status,omitempty" jsonschema:"Default: active."`
	// IdempotencyKey makes a retry safe.
	IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"Any unique string, such as a UUID, to make retries safe: a call repeated with the same key and arguments within 24 hours returns the product the first call created instead of a duplicate; the same key with other arguments is a ConflictError."`
}

type updateProductIn struct {
	TenantArg
	ID              string         `json:"id" jsonschema:"The id of the product to change."`
	SKU             *string        `json:"sku,omitempty" jsonschema:"New SKU, unique in the company."`
	Name            *string        `json:"name,omitempty" jsonschema:"New name."`
	Price           *string        `json:"price,omitempty" jsonschema:"New price as a decimal string, such as \"4599.90\"."`
	Description     *string        `json:"description,omitempty" jsonschema:"New description; an empty string clears it."`
	Currency        *string        `json:"currency,omitempty" jsonschema:"New ISO 4217 currency code. Without price, the amount is kept if the new currency can express it exactly."`
	Stock           *stockLevel    `json:"stock,omitempty" jsonschema:"New stock level."`
	Status          *productStatus `json:"status,omitempty" jsonschema:"\"archived\" takes the product off sale; \"active\" restores it."`
	ExpectedVersion *int64         `json:"expected_version,omitempty" jsonschema:"The version you read. If the product has changed since, nothing is written and a ConflictError says so. Omit to apply the change to the latest version."`
}

type deleteProductIn struct {
	TenantArg
	ID string `json:"id" jsonschema:"The id of the product to delete."`
}

type deleteProductOut struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted" jsonschema:"Whether the product is gone: false when the user declined to confirm."`
	Message string `json:"message,omitempty" jsonschema:"Why nothing was deleted, when nothing was."`
}

func productTools(svc *service.Service, opts Options) []*Tool {
	return []*Tool{
		tenantTool(svc, Tool{
			Name:  "list_products",
			Title: "List products",
			Description: "List a company's products, a page at a time, optionally filtered by a text query on name and SKU " +
				"and by status, in the order given by sort. To fetch the next page, call again with cursor set to next_cursor; " +
				"an empty next_cursor means there are no more products.",
			Toolset: "products", Permission: vitrine.ProductsRead, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, a *service.Access, in listProductsIn) (listProductsOut, error) {
			page, err := svc.ListProducts(ctx, a, service.ProductQuery{
				Query: in.Query, Status: string(in.Status), InStock: in.InStock, MinPrice: in.MinPrice, MaxPrice: in.MaxPrice,
				Currency: in.Currency, UpdatedSince: in.UpdatedSince, Sort: string(in.Sort), Limit: int(in.Limit), Cursor: in.Cursor,
			})
			if err != nil {
				return listProductsOut{}, err
			}
			out := listProductsOut{Products: make([]productOut, 0, len(page.Products)), NextCursor: page.NextCursor}
			for _, p := range page.Products {
				out.Products = append(out.Products, productView(p))
			}
			return out, nil
		}),
		tenantTool(svc, Tool{
			Name:  "get_product",
			Title: "Get a product",
			Description: "Get one product of a company by its id or by its SKU (give exactly one). " +
				"A product that does not exist in that company is a NotFoundError.",
			Toolset: "products", Permission: vitrine.ProductsRead, ReadOnly: true, Idempotent: true, TargetArg: "id",
		}, func(ctx context.Context, a *service.Access, in getProductIn) (productOut, error) {
			p, err := svc.GetProduct(ctx, a, in.ID, in.SKU)
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
		tenantTool(svc, Tool{
			Name:  "create_product",
			Title: "Create a product",
			Description: "Add a product to a company's catalog. The SKU must be new in the company (a ConflictError says " +
				"when it is taken); the price is a decimal string such as \"4599.90\". Returns the product with its id.",
			Toolset: "products", Permission: vitrine.ProductsCreate,
		}, func(ctx context.Context, a *service.Access, in createProductIn) (productOut, error) {
			p, err := svc.CreateProduct(ctx, a, service.NewProduct{
				SKU: in.SKU, Name: in.Name, Description: in.Description, Price: in.Price,
				Currency: in.Currency, Stock: int64(in.Stock), Status: string(in.Status),
			}, in.IdempotencyKey)
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
		tenantTool(svc, Tool{
			Name:  "update_product",
			Title: "Update a product",
			Description: "Change some fields of a product; fields you leave out stay as they are. Pass expected_version " +
				"(the version you read) to make sure you do not overwrite someone else's change. Archive a product with " +
				"status \"archived\". Returns the product as it now is.",
			Toolset: "products", Permission: vitrine.ProductsUpdate, TargetArg: "id",
		}, func(ctx context.Context, a *service.Access, in updateProductIn) (productOut, error) {
			p, err := svc.UpdateProduct(ctx, a, in.ID, service.ProductChanges{
				SKU: in.SKU, Name: in.Name, Description: in.Description, Price: in.Price, Currency: in.Currency,
				Stock: (*int64)(in.Stock), Status: (*string)(in.Status), ExpectedVersion: in.ExpectedVersion,
			})
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
		tenantTool(svc, Tool{
			Name:  "delete_product",
			Title: "Delete a product",
			Description: "Delete a product for good; this cannot be undone. To take a product off sale but keep it, " +
				"use update_product with status \"archived\" instead. Needs the products:delete permission. The " +
				"server may ask the user to confirm first; if they decline, nothing is deleted and deleted is false.",
			Toolset: "products", Permission: vitrine.ProductsDelete, Destructive: true, Idempotent: true, TargetArg: "id",
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
