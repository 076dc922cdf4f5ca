package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

type addVariantIn struct {
	TenantArg
	ID string `json:"id" jsonschema:"The product's."`
	variantIn
	ExpectedVersion *int64 `json:"expected_version,omitempty"`
}

type variantRefIn struct {
	TenantArg
	VariantID string `json:"variant_id,omitempty" jsonschema:"Give variant_id or sku."`
	SKU       sku    `json:"sku,omitempty" jsonschema:"The variant's; any case."`
}

type updateVariantIn struct {
	variantRefIn
	NewSKU           *sku              `json:"new_sku,omitempty" jsonschema:"Empty clears it."`
	Options          map[string]string `json:"options,omitempty"`
	Price            *decimal          `json:"price,omitempty"`
	CompareAtPrice   *decimal          `json:"compare_at_price,omitempty" jsonschema:"Empty clears it."`
	Barcode          *shortText        `json:"barcode,omitempty"`
	Weight           *weightIn         `json:"weight,omitempty"`
	InventoryPolicy  *policyName       `json:"inventory_policy,omitempty"`
	RequiresShipping *bool             `json:"requires_shipping,omitempty"`
	Taxable          *bool             `json:"taxable,omitempty"`
	Image            *imageURL         `json:"image,omitempty"`
	ExpectedVersion  *int64            `json:"expected_version,omitempty"`
}

type deleteVariantIn struct {
	variantRefIn
	ExpectedVersion *int64 `json:"expected_version,omitempty"`
}

func variantTools() []*Tool {
	return []*Tool{
		tenantTool(Tool{
			Name:        "add_variant",
			Title:       "Add a variant",
			Description: "Add a variant to a product, with its option values (new values join the options).",
			Toolset:     "catalog", Op: service.OpAddVariant, TargetArg: "id", ResultAs: "get_product",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in addVariantIn) (productOut, error) {
			p, err := svc.AddVariant(ctx, a, in.ID, in.variantIn.service(), in.ExpectedVersion)
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
		tenantTool(Tool{
			Name:        "update_variant",
			Title:       "Update a variant",
			Description: "Change the fields given of one variant, by variant_id or sku; stock: adjust_stock.",
			Toolset:     "catalog", Op: service.OpUpdateVariant, ResultAs: "get_product",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in updateVariantIn) (productOut, error) {
			ch := service.VariantChanges{SKU: (*string)(in.NewSKU), Options: in.Options, Price: (*string)(in.Price),
				CompareAtPrice: (*string)(in.CompareAtPrice), Barcode: (*string)(in.Barcode), InventoryPolicy: (*string)(in.InventoryPolicy),
				RequiresShipping: in.RequiresShipping, Taxable: in.Taxable, Image: (*string)(in.Image), ExpectedVersion: in.ExpectedVersion}
			if in.Weight != nil {
				ch.Weight = &vitrine.Weight{Value: string(in.Weight.Value), Unit: vitrine.WeightUnit(in.Weight.Unit)}
			}
			p, err := svc.UpdateVariant(ctx, a, service.VariantRef{VariantID: in.VariantID, SKU: string(in.SKU)}, ch)
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
		tenantTool(Tool{
			Name:        "delete_variant",
			Title:       "Delete a variant",
			Description: "Remove one variant of a product of several, by variant_id or sku.",
			Toolset:     "catalog", Op: service.OpDeleteVariant, Destructive: true, ResultAs: "get_product",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in deleteVariantIn) (productOut, error) {
			p, err := svc.DeleteVariant(ctx, a, service.VariantRef{VariantID: in.VariantID, SKU: string(in.SKU)}, in.ExpectedVersion)
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
	}
}
