package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

func variantTools() []*Tool {
	return []*Tool{
		catalogTool(Tool{
			Name:        "add_variant",
			Title:       "Add a variant",
			Description: "Add a variant to a product, with its option values (new values join the options).",
			Toolset:     "catalog", Op: service.OpAddVariant, TargetArg: "id", ResultAs: "get_product",
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.AddVariantIn) (shapes.ProductOut, error) {
			p, err := cat.AddVariant(ctx, a, in.ID, in.NewVariant(), in.ExpectedVersion)
			if err != nil {
				return shapes.ProductOut{}, err
			}
			return shapes.ProductView(p), nil
		}),
		catalogTool(Tool{
			Name:        "update_variant",
			Title:       "Update a variant",
			Description: "Change the fields given of one variant, by variant_id or sku; stock: adjust_stock.",
			Toolset:     "catalog", Op: service.OpUpdateVariant, ResultAs: "get_product",
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.UpdateVariantIn) (shapes.ProductOut, error) {
			ch := catalog.VariantChanges{SKU: (*string)(in.NewSKU), Options: in.Options, Price: (*string)(in.Price),
				CompareAtPrice: (*string)(in.CompareAtPrice), Barcode: (*string)(in.Barcode), InventoryPolicy: (*string)(in.InventoryPolicy),
				RequiresShipping: in.RequiresShipping, Taxable: in.Taxable, Image: (*string)(in.Image), ExpectedVersion: in.ExpectedVersion,
				TrackInventory: in.TrackInventory}
			if in.Weight != nil {
				ch.Weight = &vitrine.Weight{Value: string(in.Weight.Value), Unit: vitrine.WeightUnit(in.Weight.Unit)}
			}
			p, err := cat.UpdateVariant(ctx, a, catalog.VariantRef{VariantID: in.VariantID, SKU: string(in.SKU)}, ch)
			if err != nil {
				return shapes.ProductOut{}, err
			}
			return shapes.ProductView(p), nil
		}),
		catalogTool(Tool{
			Name:        "delete_variant",
			Title:       "Delete a variant",
			Description: "Remove one variant of a product of several, by variant_id or sku.",
			Toolset:     "catalog", Op: service.OpDeleteVariant, Destructive: true, ResultAs: "get_product",
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.DeleteVariantIn) (shapes.ProductOut, error) {
			p, err := cat.DeleteVariant(ctx, a, catalog.VariantRef{VariantID: in.VariantID, SKU: string(in.SKU)}, in.ExpectedVersion)
			if err != nil {
				return shapes.ProductOut{}, err
			}
			return shapes.ProductView(p), nil
		}),
	}
}
