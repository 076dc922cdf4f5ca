package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
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
	Price            *vitrine.Decimal  `json:"price,omitempty"`
	CompareAtPrice   *vitrine.Decimal  `json:"compare_at_price,omitempty" jsonschema:"Empty clears it."`
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

func variantTools(svc *service.Service, cat *catalog.Catalog) []*Tool {
	return []*Tool{
		tenantTool(svc, Tool{
			Name:        "add_variant",
			Title:       "Add a variant",
			Description: "Add a variant to a product, with its option values (new values join the options).",
			Toolset:     "catalog", Op: service.OpAddVariant, TargetArg: "id", ResultAs: "get_product",
		}, func(ctx context.Context, a *service.Access, in addVariantIn) (productOut, error) {
			p, err := cat.AddVariant(ctx, a, in.ID, in.variantIn.service(), in.ExpectedVersion)
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
		tenantTool(svc, Tool{
			Name:        "update_variant",
			Title:       "Update a variant",
			Description: "Change the fields given of one variant, by variant_id or sku; stock: adjust_stock.",
			Toolset:     "catalog", Op: service.OpUpdateVariant, ResultAs: "get_product",
		}, func(ctx context.Context, a *service.Access, in updateVariantIn) (productOut, error) {
			ch := catalog.VariantChanges{SKU: (*string)(in.NewSKU), Options: in.Options, Price: (*string)(in.Price),
				CompareAtPrice: (*string)(in.CompareAtPrice), Barcode: (*string)(in.Barcode), InventoryPolicy: (*string)(in.InventoryPolicy),
				RequiresShipping: in.RequiresShipping, Taxable: in.Taxable, Image: (*string)(in.Image), ExpectedVersion: in.ExpectedVersion}
			if in.Weight != nil {
				ch.Weight = &vitrine.Weight{Value: string(in.Weight.Value), Unit: vitrine.WeightUnit(in.Weight.Unit)}
			}
			p, err := cat.UpdateVariant(ctx, a, catalog.VariantRef{VariantID: in.VariantID, SKU: string(in.SKU)}, ch)
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
		tenantTool(svc, Tool{
			Name:        "delete_variant",
			Title:       "Delete a variant",
			Description: "Remove one variant of a product of several, by variant_id or sku.",
			Toolset:     "catalog", Op: service.OpDeleteVariant, Destructive: true, ResultAs: "get_product",
		}, func(ctx context.Context, a *service.Access, in deleteVariantIn) (productOut, error) {
			p, err := cat.DeleteVariant(ctx, a, catalog.VariantRef{VariantID: in.VariantID, SKU: string(in.SKU)}, in.ExpectedVersion)
			if err != nil {
				return productOut{}, err
			}
			return productView(p), nil
		}),
	}
}

type optionIn struct {
	Name   shortText   `json:"name"`
	Values []shortText `json:"values"`
}

type weightIn struct {
	Value vitrine.Decimal `json:"value"`
	Unit  weightUnit      `json:"unit"`
}

type variantIn struct {
	SKU              sku               `json:"sku,omitempty"`
	Options          map[string]string `json:"options,omitempty" jsonschema:"{\"Size\":\"M\"}."`
	Price            vitrine.Decimal   `json:"price"`
	CompareAtPrice   vitrine.Decimal   `json:"compare_at_price,omitempty"`
	Barcode          shortText         `json:"barcode,omitempty"`
	Weight           *weightIn         `json:"weight,omitempty"`
	Stock            stockLevel        `json:"stock,omitempty"`
	InventoryPolicy  policyName        `json:"inventory_policy,omitempty" jsonschema:"Default: deny."`
	RequiresShipping *bool             `json:"requires_shipping,omitempty"`
	Taxable          *bool             `json:"taxable,omitempty"`
	Image            imageURL          `json:"image,omitempty" jsonschema:"A media URL."`
}

func (v variantIn) service() catalog.NewVariant {
	out := catalog.NewVariant{SKU: string(v.SKU), Options: v.Options, Price: string(v.Price), CompareAtPrice: string(v.CompareAtPrice),
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
