package catalog

import (
	"context"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// NewVariant holds one variant's fields as the agent sent them.
type NewVariant struct {
	SKU            string
	Options        map[string]string
	Price          string
	CompareAtPrice string
	// Currency, when given, must be the product's: one product, one
	// currency.
	Currency        string
	Barcode         string
	Weight          *vitrine.Weight
	Stock           int64
	InventoryPolicy string
	// TrackInventory false: the variant's stock is not tracked (always
	// available). Default: tracked.
	TrackInventory   *bool
	RequiresShipping *bool
	Taxable          *bool
	Image            string
}

// VariantChanges holds update_variant's arguments; nil leaves a field
// alone, and an empty string clears an optional one (compare-at price,
// barcode, image).
type VariantChanges struct {
	SKU              *string
	Options          map[string]string
	Price            *string
	CompareAtPrice   *string
	Barcode          *string
	Weight           *vitrine.Weight
	InventoryPolicy  *string
	TrackInventory   *bool
	RequiresShipping *bool
	Taxable          *bool
	Image            *string
	ExpectedVersion  *int64
}

// newVariant checks one variant's fields; prefix names it in errors.
func newVariant(prefix string, in NewVariant, currency string, scale int) (*vitrine.Variant, error) {
	v := &vitrine.Variant{Options: in.Options, Barcode: in.Barcode, Weight: in.Weight, Stock: in.Stock,
		Policy: vitrine.InventoryPolicy(in.InventoryPolicy), RequiresShipping: true, Taxable: true, Image: in.Image,
		Untracked: in.TrackInventory != nil && !*in.TrackInventory}
	if v.Options == nil {
		v.Options = map[string]string{}
	}
	if in.SKU != "" {
		sku, _, err := vitrine.ValidateSKU(prefix+"sku", in.SKU)
		if err != nil {
			return nil, err
		}
		v.SKU = sku
	}
	if in.Currency != "" {
		code, _, err := vitrine.NormalizeCurrency(prefix+"currency", in.Currency)
		if err != nil {
			return nil, err
		}
		if code != currency {
			return nil, vitrine.Invalid(prefix+"currency", "%scurrency is %s, but the product's prices are in %s: every price of a product is in its one currency", prefix, code, currency)
		}
	}
	var err error
	if in.Price == "" {
		return nil, vitrine.Invalid(prefix+"price", "%sprice is required, such as \"59.90\"", prefix)
	}
	if v.Price, err = vitrine.ParsePrice(prefix+"price", in.Price, scale); err != nil {
		return nil, err
	}
	if in.CompareAtPrice != "" {
		c, err := vitrine.ParsePrice(prefix+"compare_at_price", in.CompareAtPrice, scale)
		if err != nil {
			return nil, err
		}
		v.CompareAtPrice = &c
	}
	if in.RequiresShipping != nil {
		v.RequiresShipping = *in.RequiresShipping
	}
	if in.Taxable != nil {
		v.Taxable = *in.Taxable
	}
	return v, nil
}

// VariantRef names a variant: by its id, its SKU, or the id of a product
// of one variant.
type VariantRef struct {
	ProductID, VariantID, SKU string
}

// productOf finds the id of the product the reference names, and checks
// that it names one variant.
func (s *Catalog) productOf(ctx context.Context, a *service.Access, ref VariantRef) (string, error) {
	given := 0
	for _, x := range []string{ref.ProductID, ref.VariantID, ref.SKU} {
		if x != "" {
			given++
		}
	}
	switch {
	case given == 0:
		return "", vitrine.Invalid("variant_id", "give the variant's variant_id or sku (or the id of a product of one variant)")
	case given > 1:
		return "", vitrine.Invalid("variant_id", "give one of variant_id, sku and id, not several")
	case ref.ProductID != "":
		if !vitrine.ValidID(ref.ProductID) {
			return "", vitrine.NotFound("Product")
		}
		return ref.ProductID, nil
	case ref.VariantID != "":
		p, err := s.store.ProductByVariant(ctx, a.TenantID, ref.VariantID)
		if err != nil {
			return "", err
		}
		return p.ID, nil
	}
	p, err := s.store.ProductBySKU(ctx, a.TenantID, ref.SKU)
	if err != nil {
		return "", err
	}
	return p.ID, nil
}

// variantIn returns the variant ref names in p.
func variantIn(p *vitrine.Product, ref VariantRef) (*vitrine.Variant, error) {
	if ref.ProductID != "" {
		if len(p.Variants) != 1 {
			return nil, vitrine.Invalid("id", "this product has %d variants: name one by variant_id or sku", len(p.Variants))
		}
		return p.Variants[0], nil
	}
	if v := p.Variant(ref.VariantID, ref.SKU); v != nil {
		return v, nil
	}
	return nil, vitrine.NotFound("Variant")
}

// AddVariant adds a variant to a product, with the option values it
// needs added to the product's options.
func (s *Catalog) AddVariant(ctx context.Context, a *service.Access, productID string, in NewVariant, expectedVersion *int64) (*vitrine.Product, error) {
	if err := a.Allow(service.OpAddVariant); err != nil {
		return nil, err
	}
	if !vitrine.ValidID(productID) {
		return nil, vitrine.NotFound("Product")
	}
	return s.changeVariants(ctx, a, productID, expectedVersion, func(p *vitrine.Product) error {
		v, err := newVariant("", in, p.Currency, vitrine.CurrencyScale(p.Currency))
		if err != nil {
			return err
		}
		v.ID = vitrine.NewID()
		if err := addOptionValues(p, v.Options); err != nil {
			return err
		}
		p.Variants = append(p.Variants, v)
		return nil
	})
}

// addOptionValues adds to p's options the values vals names that they
// lack. A new option is update_product's: every variant needs a value.
func addOptionValues(p *vitrine.Product, vals map[string]string) error {
	for name, val := range vals {
		i := slices.IndexFunc(p.Options, func(o vitrine.Option) bool { return vitrine.OptionKey(o.Name) == vitrine.OptionKey(name) })
		if i < 0 {
			return vitrine.Invalid("options", "the product has no option %q (its options: %s); add the option with update_product first", name, vitrine.OptionNames(p.Options))
		}
		val = strings.TrimSpace(val)
		if val != "" && !slices.Contains(p.Options[i].Values, val) {
			p.Options[i].Values = append(p.Options[i].Values, val)
		}
	}
	return nil
}

// UpdateVariant changes some fields of one variant.
func (s *Catalog) UpdateVariant(ctx context.Context, a *service.Access, ref VariantRef, ch VariantChanges) (*vitrine.Product, error) {
	if err := a.Allow(service.OpUpdateVariant); err != nil {
		return nil, err
	}
	id, err := s.productOf(ctx, a, ref)
	if err != nil {
		return nil, err
	}
	return s.changeVariants(ctx, a, id, ch.ExpectedVersion, func(p *vitrine.Product) error {
		v, err := variantIn(p, ref)
		if err != nil {
			return err
		}
		scale := vitrine.CurrencyScale(p.Currency)
		if ch.SKU != nil {
			v.SKU = strings.TrimSpace(*ch.SKU)
		}
		if ch.Options != nil {
			if err := addOptionValues(p, ch.Options); err != nil {
				return err
			}
			for name, val := range ch.Options {
				for _, o := range p.Options {
					if vitrine.OptionKey(o.Name) == vitrine.OptionKey(name) {
						v.Options[o.Name] = strings.TrimSpace(val)
					}
				}
			}
		}
		if ch.Price != nil {
			if v.Price, err = vitrine.ParsePrice("price", *ch.Price, scale); err != nil {
				return err
			}
		}
		if ch.CompareAtPrice != nil {
			v.CompareAtPrice = nil
			if *ch.CompareAtPrice != "" {
				c, err := vitrine.ParsePrice("compare_at_price", *ch.CompareAtPrice, scale)
				if err != nil {
					return err
				}
				v.CompareAtPrice = &c
			}
		}
		set(&v.Barcode, ch.Barcode)
		if ch.Weight != nil {
			v.Weight = ch.Weight
			if ch.Weight.Value == "" && ch.Weight.Unit == "" {
				v.Weight = nil
			}
		}
		if ch.InventoryPolicy != nil {
			v.Policy = vitrine.InventoryPolicy(*ch.InventoryPolicy)
		}
		if ch.TrackInventory != nil {
			v.Untracked = !*ch.TrackInventory
		}
		set(&v.RequiresShipping, ch.RequiresShipping)
		set(&v.Taxable, ch.Taxable)
		set(&v.Image, ch.Image)
		return nil
	})
}

// DeleteVariant removes one variant of a product of several.
func (s *Catalog) DeleteVariant(ctx context.Context, a *service.Access, ref VariantRef, expectedVersion *int64) (*vitrine.Product, error) {
	if err := a.Allow(service.OpDeleteVariant); err != nil {
		return nil, err
	}
	id, err := s.productOf(ctx, a, ref)
	if err != nil {
		return nil, err
	}
	return s.changeVariants(ctx, a, id, expectedVersion, func(p *vitrine.Product) error {
		v, err := variantIn(p, ref)
		if err != nil {
			return err
		}
		if len(p.Variants) == 1 {
			return vitrine.Invalid("variant_id", "this is the product's only variant: a product has at least one; delete the product instead")
		}
		p.Variants = slices.DeleteFunc(p.Variants, func(x *vitrine.Variant) bool { return x == v })
		// An option value no variant holds any more leaves the option.
		for i := range p.Options {
			o := &p.Options[i]
			o.Values = slices.DeleteFunc(o.Values, func(val string) bool {
				return !slices.ContainsFunc(p.Variants, func(x *vitrine.Variant) bool { return x.Options[o.Name] == val })
			})
		}
		return nil
	})
}

// changeVariants applies change to the product under its lock, validates
// the result and writes it with the next version.
func (s *Catalog) changeVariants(ctx context.Context, a *service.Access, id string, expectedVersion *int64, change func(*vitrine.Product) error) (*vitrine.Product, error) {
	var defs map[string]*vitrine.Attribute // the values stay as they were checked
	return s.store.UpdateProduct(ctx, a.Change(), a.TenantID, id, func(p *vitrine.Product) error {
		if expectedVersion != nil && *expectedVersion != p.Version {
			return staleVersion(*expectedVersion, p.Version)
		}
		if err := change(p); err != nil {
			return err
		}
		dropUndefined(p, defs)
		if err := p.ValidateCatalog(defs); err != nil {
			return err
		}
		p.UpdatedAt, p.UpdatedBy = s.now(), a.Caller.User.ID
		return nil
	})
}
