package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

func productTools(opts Options) []*Tool {
	return []*Tool{
		catalogTool(Tool{
			Name:        "get_product",
			Title:       "Get a product",
			Description: "Get a product whole (variants, media) by id, a variant's SKU or handle.",
			Toolset:     "products", Op: service.OpGetProduct, ReadOnly: true, Idempotent: true, TargetArg: "id",
			Localized: fieldNames{args: []string{"locale"}},
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.GetProductIn) (shapes.ProductOut, error) {
			p, err := cat.FindProductIn(ctx, a, in.ID, string(in.SKU), string(in.Handle), string(in.Locale))
			if err != nil {
				return shapes.ProductOut{}, err
			}
			return shapes.ProductView(p), nil
		}),
		catalogTool(Tool{
			Name:        "create_product",
			Title:       "Create a product",
			Description: "Add a product: of one variant (sku, price, stock) or with variants; draft keeps it unpublished.",
			Toolset:     "products", Op: service.OpCreateProduct, ResultAs: "get_product",
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.CreateProductIn) (shapes.ProductOut, error) {
			p, err := cat.CreateProduct(ctx, a, in.NewProduct(), string(in.IdempotencyKey))
			if err != nil {
				return shapes.ProductOut{}, err
			}
			return shapes.ProductView(p), nil
		}),
		catalogTool(Tool{
			Name:        "update_product",
			Title:       "Update a product",
			Description: "Change the fields given of a product; the others stay.",
			Toolset:     "products", Op: service.OpUpdateProduct, TargetArg: "id", ResultAs: "get_product",
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.UpdateProductIn) (shapes.ProductOut, error) {
			p, err := cat.UpdateProduct(ctx, a, in.ID, in.Changes())
			if err != nil {
				return shapes.ProductOut{}, err
			}
			return shapes.ProductView(p), nil
		}),
		tenantTool(Tool{
			Name:        "delete_product",
			Title:       "Delete a product",
			Description: "Delete a product for good; archiving (update_product) keeps it. The user may have to confirm.",
			Toolset:     "products", Op: service.OpDeleteProduct, Destructive: true, Idempotent: true, TargetArg: "id",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in shapes.DeleteProductIn) (shapes.DeleteProductOut, error) {
			cat := catalog.New(svc)
			if opts.ConfirmDestructive {
				if declined, err := confirmDeletion(ctx, svc, a, productDeletion(ctx, cat, a, in.ID)); err != nil || declined != "" {
					return shapes.DeleteProductOut{ID: in.ID, Message: declined}, err
				}
			}
			if err := cat.DeleteProduct(ctx, a, in.ID); err != nil {
				return shapes.DeleteProductOut{}, err
			}
			return shapes.DeleteProductOut{ID: in.ID, Deleted: true}, nil
		}),
	}
}
