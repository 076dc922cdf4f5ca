package vitrine

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Option is one way a product varies (Size), with its values in the order
// a shopper sees them (S, M, L).
type Option struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// Variant is one sellable form of a product: what is priced and stocked.
type Variant struct {
	ID  string `json:"id"`
	SKU string `json:"sku,omitempty"`
	// Options holds one value per product option, by option name; empty
	// for a product without options.
	Options map[string]string `json:"options"`
	// Price and CompareAtPrice are in minor units of the product's currency.
	Price          int64           `json:"price"`
	CompareAtPrice *int64          `json:"compare_at_price,omitempty"`
	Barcode        string          `json:"barcode,omitempty"`
	Weight         *Weight         `json:"weight,omitempty"`
	Stock          int64           `json:"stock"`
	Policy         InventoryPolicy `json:"inventory_policy"`
	// Untracked is true for a variant whose stock is not tracked (Shopify's
	// blank Variant Inventory Tracker): its quantity and policy are kept as
	// given, and exported with a blank tracker again. Stock filters and
	// adjust_stock still read the quantity as they do a tracked variant's.
	// Stored so, variants of before are tracked.
	Untracked bool `json:"untracked,omitempty"`
	// RequiresShipping and Taxable default to true.
	RequiresShipping bool   `json:"requires_shipping"`
	Taxable          bool   `json:"taxable"`
	Image            string `json:"image,omitempty"` // the URL of one of the product's media
	Position         int    `json:"position"`
}

// Weight is a variant's weight: an exact decimal and its unit.
type Weight struct {
	Value string     `json:"value"` // "0.25"
	Unit  WeightUnit `json:"unit"`
}

// WeightUnit is the unit of a weight.
type WeightUnit string

// The units a weight may take.
var WeightUnits = []WeightUnit{"g", "kg", "lb", "oz"}

// InventoryPolicy says whether a variant may be sold out of stock.
type InventoryPolicy string

// The inventory policies.
const (
	PolicyDeny     InventoryPolicy = "deny"
	PolicyContinue InventoryPolicy = "continue"
)

// Limits of options and variants, those of the platforms shops come from.
const (
	MaxOptions       = 3
	MaxOptionValues  = 100
	MaxVariants      = 100
	MaxOptionLength  = 255
	MaxBarcodeLength = 64
	MaxSKULength     = 64
)

var skuRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._/-]*[A-Za-z0-9])?$`)

// ValidateSKU checks a stock-keeping unit: letters, digits and ". _ / -"
// inside, at most 64 characters. SKUs are unique per tenant without regard
// to case; the returned key is what that uniqueness compares.
func ValidateSKU(field, sku string) (string, string, error) {
	sku = strings.TrimSpace(sku)
	if sku == "" {
		return "", "", Invalid(field, "%s must not be empty", field)
	}
	if len(sku) > MaxSKULength {
		return "", "", Invalid(field, "%s is %d characters long; the limit is %d", field, len(sku), MaxSKULength)
	}
	if !skuRE.MatchString(sku) {
		return "", "", Invalid(field, "%s may hold only letters, digits and . _ / - (not at the ends), such as \"NB-DELL-5440\"; got %q", field, sku)
	}
	return sku, strings.ToLower(sku), nil
}

// SKUKey returns the key a valid SKU is unique by.
func SKUKey(sku string) string { return strings.ToLower(sku) }

// OptionKey is what option names are compared by.
func OptionKey(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// ValidateBarcode checks a barcode: a numeric one of 8, 12, 13 or 14
// digits is a GTIN, whose last digit must check the others; any other
// form (ISBN with dashes, a shop's own code) is kept as given.
func ValidateBarcode(field, s string) (string, error) {
	s, err := ValidateText(field, s, MaxBarcodeLength)
	if err != nil || s == "" {
		return s, err
	}
	numeric := strings.Trim(s, "0123456789") == ""
	if !numeric {
		return s, nil
	}
	switch len(s) {
	case 8, 12, 13, 14:
	default:
		return "", Invalid(field, "%s %q is numeric but not a GTIN: a GTIN has 8, 12, 13 or 14 digits, this one %d", field, s, len(s))
	}
	sum := 0
	for i := len(s) - 2; i >= 0; i-- {
		d := int(s[i] - '0')
		if (len(s)-2-i)%2 == 0 {
			d *= 3
		}
		sum += d
	}
	if want := (10 - sum%10) % 10; int(s[len(s)-1]-'0') != want {
		return "", Invalid(field, "%s %q has a wrong check digit: a GTIN with these digits ends in %d", field, s, want)
	}
	return s, nil
}

var weightRE = regexp.MustCompile(`^[0-9]{1,9}(?:\.[0-9]{1,6})?$`)

// ValidateWeight checks a weight: a non-negative decimal and a unit.
func ValidateWeight(field string, w *Weight) error {
	if w == nil {
		return nil
	}
	w.Value = strings.TrimSpace(w.Value)
	if !weightRE.MatchString(w.Value) {
		return Invalid(field+".value", "%s.value must be a decimal number such as \"0.25\"; got %q", field, w.Value)
	}
	if !slices.Contains(WeightUnits, w.Unit) {
		return Invalid(field+".unit", "%s.unit must be one of \"g\", \"kg\", \"lb\", \"oz\"; got %q", field, w.Unit)
	}
	// One form for one weight: no leading zeros, no trailing decimal zeros.
	whole, frac, _ := strings.Cut(w.Value, ".")
	whole = strings.TrimLeft(whole, "0")
	if whole == "" {
		whole = "0"
	}
	frac = strings.TrimRight(frac, "0")
	w.Value = whole
	if frac != "" {
		w.Value += "." + frac
	}
	return nil
}

func (p *Product) validateOptions() error {
	if len(p.Options) == 0 {
		// Derived from the variants, in the order they name them.
		for _, v := range p.Variants {
			for _, name := range slices.Sorted(maps.Keys(v.Options)) {
				i := slices.IndexFunc(p.Options, func(o Option) bool { return OptionKey(o.Name) == OptionKey(name) })
				if i < 0 {
					p.Options = append(p.Options, Option{Name: name})
					i = len(p.Options) - 1
				}
				if val := strings.TrimSpace(v.Options[name]); !slices.Contains(p.Options[i].Values, val) {
					p.Options[i].Values = append(p.Options[i].Values, val)
				}
			}
		}
	}
	if len(p.Options) > MaxOptions {
		return Invalid("options", "a product has at most %d options (such as Size, Color, Material); got %d", MaxOptions, len(p.Options))
	}
	names := map[string]bool{}
	for i := range p.Options {
		o := &p.Options[i]
		f := fmt.Sprintf("options[%d]", i)
		name, err := ValidateText(f+".name", o.Name, MaxOptionLength)
		if err != nil {
			return err
		}
		if name == "" {
			return Invalid(f+".name", "%s.name must not be empty", f)
		}
		if names[OptionKey(name)] {
			return Invalid(f+".name", "option %q is given twice", name)
		}
		names[OptionKey(name)] = true
		o.Name = name
		if len(o.Values) == 0 {
			return Invalid(f+".values", "option %q needs at least one value", name)
		}
		if len(o.Values) > MaxOptionValues {
			return Invalid(f+".values", "option %q has %d values; the limit is %d", name, len(o.Values), MaxOptionValues)
		}
		seen := map[string]bool{}
		for j, v := range o.Values {
			vf := fmt.Sprintf("%s.values[%d]", f, j)
			v, err := ValidateText(vf, v, MaxOptionLength)
			if err != nil {
				return err
			}
			if v == "" {
				return Invalid(vf, "%s must not be empty", vf)
			}
			if seen[v] {
				return Invalid(vf, "option %q has the value %q twice", name, v)
			}
			seen[v] = true
			o.Values[j] = v
		}
	}
	return nil
}

func (p *Product) validateVariants() error {
	if len(p.Variants) == 0 {
		return Invalid("variants", "a product needs at least one variant")
	}
	if len(p.Variants) > MaxVariants {
		return Invalid("variants", "a product has at most %d variants; got %d", MaxVariants, len(p.Variants))
	}
	combos := map[string]int{}
	skus := map[string]int{}
	for i, v := range p.Variants {
		f := fmt.Sprintf("variants[%d]", i)
		if v.SKU != "" {
			sku, key, err := ValidateSKU(f+".sku", v.SKU)
			if err != nil {
				return err
			}
			if j, ok := skus[key]; ok {
				return Invalid(f+".sku", "SKU %q is on variants[%d] already", sku, j)
			}
			skus[key] = i
			v.SKU = sku
		}
		// One value per option, by the option's own name.
		vals := make(map[string]string, len(p.Options))
		for name, val := range v.Options {
			j := slices.IndexFunc(p.Options, func(o Option) bool { return OptionKey(o.Name) == OptionKey(name) })
			if j < 0 {
				return Invalid(f+".options", "%s names option %q, which the product does not have (its options: %s)", f, name, OptionNames(p.Options))
			}
			val = strings.TrimSpace(val)
			if !slices.Contains(p.Options[j].Values, val) {
				return Invalid(f+".options", "%s has %s %q, which is not one of the option's values (%s)", f, p.Options[j].Name, val, strings.Join(p.Options[j].Values, ", "))
			}
			vals[p.Options[j].Name] = val
		}
		var combo []string
		for _, o := range p.Options {
			val, ok := vals[o.Name]
			if !ok {
				return Invalid(f+".options", "%s has no value for option %q: every variant has one value of each option", f, o.Name)
			}
			combo = append(combo, val)
		}
		v.Options = vals
		key := strings.Join(combo, "\x00")
		if j, ok := combos[key]; ok {
			return Invalid(f+".options", "%s has the same options as variants[%d] (%s): each combination is one variant", f, j, strings.Join(combo, " / "))
		}
		combos[key] = i
		if v.Price < 0 {
			return Invalid(f+".price", "%s.price must not be negative", f)
		}
		if v.CompareAtPrice != nil && *v.CompareAtPrice < 0 {
			return Invalid(f+".compare_at_price", "%s.compare_at_price must not be negative", f)
		}
		var err error
		if v.Barcode, err = ValidateBarcode(f+".barcode", v.Barcode); err != nil {
			return err
		}
		if err := ValidateWeight(f+".weight", v.Weight); err != nil {
			return err
		}
		if err := ValidateStock(f+".stock", v.Stock); err != nil {
			return err
		}
		switch v.Policy {
		case "":
			v.Policy = PolicyDeny
		case PolicyDeny, PolicyContinue:
		default:
			return Invalid(f+".inventory_policy", "%s.inventory_policy must be \"deny\" or \"continue\"; got %q", f, v.Policy)
		}
		if v.Image != "" && !slices.ContainsFunc(p.Media, func(m Media) bool { return m.URL == v.Image }) {
			return Invalid(f+".image", "%s.image %q is not one of the product's media; add it to media first", f, v.Image)
		}
	}
	// In the order of the product's options' values, as shops list them.
	slices.SortStableFunc(p.Variants, func(a, b *Variant) int {
		for _, o := range p.Options {
			if c := slices.Index(o.Values, a.Options[o.Name]) - slices.Index(o.Values, b.Options[o.Name]); c != 0 {
				return c
			}
		}
		return 0
	})
	for i, v := range p.Variants {
		v.Position = i + 1
	}
	return nil
}

// OptionNames lists the options' names for a message: "Size, Color", or
// "none".
func OptionNames(os []Option) string {
	if len(os) == 0 {
		return "none"
	}
	names := make([]string, len(os))
	for i, o := range os {
		names[i] = o.Name
	}
	return strings.Join(names, ", ")
}

// Variant returns the product's variant with that id or SKU, or nil.
func (p *Product) Variant(id, sku string) *Variant {
	for _, v := range p.Variants {
		if (id != "" && v.ID == id) || (sku != "" && v.SKU != "" && SKUKey(v.SKU) == SKUKey(sku)) {
			return v
		}
	}
	return nil
}

// SetOneVariant makes p a product of one variant without options (the
// seed's product: a SKU, a price, a stock), with the variant's id.
func (p *Product) SetOneVariant(variantID, sku string, price, stock int64) {
	p.Options = nil
	p.Variants = []*Variant{{ID: variantID, SKU: sku, Options: map[string]string{}, Price: price, Stock: stock,
		Policy: PolicyDeny, RequiresShipping: true, Taxable: true, Position: 1}}
	p.Summarize()
}

// clone returns a deep copy of v.
func (v *Variant) clone(options bool) *Variant {
	c := *v
	if options {
		c.Options = maps.Clone(v.Options)
		if c.Options == nil {
			c.Options = map[string]string{}
		}
	}
	if v.CompareAtPrice != nil {
		x := *v.CompareAtPrice
		c.CompareAtPrice = &x
	}
	if v.Weight != nil {
		w := *v.Weight
		c.Weight = &w
	}
	return &c
}
