package shapes

import (
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service/catalog"
)

type AddVariantIn struct {
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

type UpdateVariantIn struct {
	variantRefIn
	NewSKU           *sku              `json:"new_sku,omitempty" jsonschema:"Empty clears it."`
	Options          map[string]string `json:"options,omitempty"`
	Price            *vitrine.Decimal  `json:"price,omitempty"`
	CompareAtPrice   *vitrine.Decimal  `json:"compare_at_price,omitempty" jsonschema:"Empty clears it."`
	Barcode          *shortText        `json:"barcode,omitempty"`
	Weight           *weightIn         `json:"weight,omitempty"`
	InventoryPolicy  *policyName       `json:"inventory_policy,omitempty"`
	TrackInventory   *bool             `json:"track_inventory,omitempty"`
	RequiresShipping *bool             `json:"requires_shipping,omitempty"`
	Taxable          *bool             `json:"taxable,omitempty"`
	Image            *imageURL         `json:"image,omitempty"`
	ExpectedVersion  *int64            `json:"expected_version,omitempty"`
}

type DeleteVariantIn struct {
	variantRefIn
	ExpectedVersion *int64 `json:"expected_version,omitempty"`
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
	TrackInventory   *bool             `json:"track_inventory,omitempty" jsonschema:"false: not tracked (a blank Shopify tracker), stock kept as given. Default: true."`
	RequiresShipping *bool             `json:"requires_shipping,omitempty"`
	Taxable          *bool             `json:"taxable,omitempty"`
	Image            imageURL          `json:"image,omitempty" jsonschema:"A media URL."`
}

func (v variantIn) NewVariant() catalog.NewVariant {
	out := catalog.NewVariant{SKU: string(v.SKU), Options: v.Options, Price: string(v.Price), CompareAtPrice: string(v.CompareAtPrice),
		Barcode: string(v.Barcode), Stock: int64(v.Stock), InventoryPolicy: string(v.InventoryPolicy), RequiresShipping: v.RequiresShipping,
		Taxable: v.Taxable, Image: string(v.Image), TrackInventory: v.TrackInventory}
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
