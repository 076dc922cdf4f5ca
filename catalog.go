package vitrine

import (
	"fmt"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/microcosm-cc/bluemonday"
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

// Media is an image of a product, kept by URL (never fetched).
type Media struct {
	URL      string `json:"url"`
	Alt      string `json:"alt,omitempty"`
	Position int    `json:"position"`
}

// SEO is what a search engine shows of a product.
type SEO struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
}

// ProductCategory is a category a product is in, with its name for those
// who read the product.
type ProductCategory struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Category is a node of a company's tree of categories.
type Category struct {
	ID        string
	TenantID  string
	ParentID  string // empty at the root
	Name      string
	Handle    string
	Position  int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AttributeType is the type of an attribute's values.
type AttributeType string

// The attribute types.
const (
	AttributeText    AttributeType = "text"
	AttributeNumber  AttributeType = "number"
	AttributeBoolean AttributeType = "boolean"
	AttributeEnum    AttributeType = "enum"
)

// AttributeTypes lists the attribute types.
var AttributeTypes = []AttributeType{AttributeText, AttributeNumber, AttributeBoolean, AttributeEnum}

// Attribute is a company's definition of a product field of its own.
type Attribute struct {
	TenantID  string
	Key       string
	Name      string
	Type      AttributeType
	Values    []string // of an enum
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Limits of the catalog, those of the platforms shops come from.
const (
	MaxOptions          = 3
	MaxOptionValues     = 100
	MaxVariants         = 100
	MaxMedia            = 250
	MaxTags             = 250
	MaxTagLength        = 255
	MaxHandleLength     = 255
	MaxVendorLength     = 255
	MaxOptionLength     = 255
	MaxBarcodeLength    = 64
	MaxURLLength        = 2048
	MaxAltLength        = 512
	MaxSEOTitleLength   = 255
	MaxSEODescLength    = 1000
	MaxCategories       = 50
	MaxAttributes       = 50
	MaxAttributeTextLen = 1000
)

var handleRE = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// ValidateHandle checks a product's URL slug: lower-case letters, digits
// and single hyphens inside.
func ValidateHandle(field, h string) (string, error) {
	h = strings.TrimSpace(h)
	if len(h) > MaxHandleLength {
		return "", Invalid(field, "%s is %d characters long; the limit is %d", field, len(h), MaxHandleLength)
	}
	if !handleRE.MatchString(h) {
		return "", Invalid(field, "%s may hold only lower-case letters, digits and single hyphens inside, such as \"blue-shirt\"; got %q", field, h)
	}
	return h, nil
}

// HandleOf makes a handle from a name: its words, folded to lower case
// without accents, joined by hyphens. It is empty when the name holds no
// letter or digit.
func HandleOf(name string) string {
	h := strings.Join(Words(name), "-")
	if len(h) > MaxHandleLength {
		h = strings.TrimRight(h[:MaxHandleLength], "-")
	}
	if !handleRE.MatchString(h) {
		// Words keeps letters of any script; a handle keeps a-z and 0-9.
		var b strings.Builder
		dash := false
		for _, r := range h {
			switch {
			case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				if dash && b.Len() > 0 {
					b.WriteByte('-')
				}
				b.WriteRune(r)
				dash = false
			default:
				dash = true
			}
		}
		h = b.String()
	}
	return h
}

// descriptionPolicy is the safe subset of HTML a description keeps: the
// policy of user-generated content (formatting, links, images, tables),
// which has no script, no event handler, no style, and no link but to
// http, https and mailto.
var descriptionPolicy = sync.OnceValue(func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.RequireNoFollowOnLinks(false)
	return p
})

var textPolicy = sync.OnceValue(bluemonday.StrictPolicy)

// SanitizeDescription keeps the safe subset of an HTML description. Text
// without a tag is kept as given: there is nothing in it to remove, and
// the sanitizer would write its quotes as entities.
func SanitizeDescription(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	return strings.TrimSpace(descriptionPolicy().Sanitize(s))
}

// DescriptionText is the text of an HTML description, for search.
func DescriptionText(s string) string {
	return html.UnescapeString(textPolicy().Sanitize(strings.NewReplacer("<", " <", ">", "> ").Replace(s)))
}

// ValidateText checks a short text field: valid UTF-8, no NUL, at most max
// characters; it returns it trimmed.
func ValidateText(field, s string, max int) (string, error) {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) {
		return "", Invalid(field, "%s must be valid UTF-8", field)
	}
	if strings.ContainsRune(s, 0) {
		return "", Invalid(field, "%s must not contain NUL characters", field)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return "", Invalid(field, "%s is %d characters long; the limit is %d", field, n, max)
	}
	return s, nil
}

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

// ValidateMediaURL checks an image's URL: absolute http or https, with a
// host. Vitrine keeps it and never fetches it.
func ValidateMediaURL(field, s string) (string, error) {
	s, err := ValidateText(field, s, MaxURLLength)
	if err != nil {
		return "", err
	}
	u, perr := url.Parse(s)
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", Invalid(field, "%s must be an http or https URL with a host, such as \"https://cdn.example.com/shirt.jpg\"; got %q", field, s)
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

// NormalizeTags trims the tags, drops empty ones and keeps the first of
// each set of tags equal without regard to case, in order.
func NormalizeTags(field string, tags []string) ([]string, error) {
	out := make([]string, 0, len(tags))
	seen := make(map[string]bool, len(tags))
	for i, t := range tags {
		f := fmt.Sprintf("%s[%d]", field, i)
		t, err := ValidateText(f, t, MaxTagLength)
		if err != nil {
			return nil, err
		}
		if strings.Contains(t, ",") {
			return nil, Invalid(f, "%s must not contain a comma (tags are written comma-separated in exports); got %q", f, t)
		}
		if t == "" || seen[TagKey(t)] {
			continue
		}
		seen[TagKey(t)] = true
		out = append(out, t)
	}
	if len(out) > MaxTags {
		return nil, Invalid(field, "%s holds %d tags; the limit is %d", field, len(out), MaxTags)
	}
	return out, nil
}

// TagKey is what tags are compared by: their folded form.
func TagKey(t string) string { return strings.ToLower(strings.TrimSpace(t)) }

// OptionKey is what option names are compared by.
func OptionKey(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// ValidateCatalog checks what a product holds beyond its name and prices,
// in the order a product lists its fields, and puts it in its one form:
// options derived from the variants when not given, positions numbered
// from 1, stock and summary recomputed. defs are the company's attribute
// definitions, by key; nil leaves the attribute values unchecked (they
// were checked when written, and the change does not touch them).
func (p *Product) ValidateCatalog(defs map[string]*Attribute) error {
	var err error
	if p.Vendor, err = ValidateText("vendor", p.Vendor, MaxVendorLength); err != nil {
		return err
	}
	if p.ProductType, err = ValidateText("product_type", p.ProductType, MaxVendorLength); err != nil {
		return err
	}
	if p.Tags, err = NormalizeTags("tags", p.Tags); err != nil {
		return err
	}
	if err := p.validateOptions(); err != nil {
		return err
	}
	if err := p.validateMedia(); err != nil {
		return err
	}
	if err := p.validateVariants(); err != nil {
		return err
	}
	if len(p.Categories) > MaxCategories {
		return Invalid("categories", "a product may be in at most %d categories; got %d", MaxCategories, len(p.Categories))
	}
	if defs != nil {
		if err := p.validateAttributes(defs); err != nil {
			return err
		}
	}
	if p.SEO.Title, err = ValidateText("seo.title", p.SEO.Title, MaxSEOTitleLength); err != nil {
		return err
	}
	if p.SEO.Description, err = ValidateText("seo.description", p.SEO.Description, MaxSEODescLength); err != nil {
		return err
	}
	p.Summarize()
	return nil
}

func (p *Product) validateOptions() error {
	if len(p.Options) == 0 {
		// Derived from the variants, in the order they name them.
		for _, v := range p.Variants {
			for _, name := range sortedKeys(v.Options) {
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

func (p *Product) validateMedia() error {
	if len(p.Media) > MaxMedia {
		return Invalid("media", "a product has at most %d images; got %d", MaxMedia, len(p.Media))
	}
	seen := map[string]bool{}
	out := p.Media[:0]
	for i, m := range p.Media {
		f := fmt.Sprintf("media[%d]", i)
		var err error
		if m.URL, err = ValidateMediaURL(f+".url", m.URL); err != nil {
			return err
		}
		if m.Alt, err = ValidateText(f+".alt", m.Alt, MaxAltLength); err != nil {
			return err
		}
		if seen[m.URL] {
			return Invalid(f+".url", "the image %q is given twice", m.URL)
		}
		seen[m.URL] = true
		out = append(out, m)
	}
	slices.SortStableFunc(out, func(a, b Media) int {
		// Those without a position keep their place after those with one.
		switch {
		case a.Position == b.Position:
			return 0
		case a.Position == 0:
			return 1
		case b.Position == 0:
			return -1
		}
		return a.Position - b.Position
	})
	for i := range out {
		out[i].Position = i + 1
	}
	p.Media = out
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
				return Invalid(f+".options", "%s names option %q, which the product does not have (its options: %s)", f, name, optionNames(p.Options))
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

func optionNames(os []Option) string {
	if len(os) == 0 {
		return "none"
	}
	names := make([]string, len(os))
	for i, o := range os {
		names[i] = o.Name
	}
	return strings.Join(names, ", ")
}

func (p *Product) validateAttributes(defs map[string]*Attribute) error {
	if len(p.Attributes) > MaxAttributes {
		return Invalid("attributes", "a product has at most %d attributes; got %d", MaxAttributes, len(p.Attributes))
	}
	for _, key := range sortedKeys(p.Attributes) {
		f := "attributes." + key
		def := defs[key]
		if def == nil {
			return Invalid(f, "no attribute %q is defined in this company; its admins define attributes (save_attribute)", key)
		}
		v, err := def.Check(f, p.Attributes[key])
		if err != nil {
			return err
		}
		p.Attributes[key] = v
	}
	return nil
}

// Check validates a value of the attribute and returns it in its one form:
// a string, a float64 or a bool.
func (a *Attribute) Check(field string, v any) (any, error) {
	switch a.Type {
	case AttributeText:
		s, ok := v.(string)
		if !ok {
			return nil, Invalid(field, "%s is a text attribute; got %s", field, describe(v))
		}
		return ValidateText(field, s, MaxAttributeTextLen)
	case AttributeNumber:
		switch n := v.(type) {
		case float64:
			return n, nil
		case int:
			return float64(n), nil
		case int64:
			return float64(n), nil
		case string:
			if f, err := strconv.ParseFloat(strings.TrimSpace(n), 64); err == nil {
				return f, nil
			}
		}
		return nil, Invalid(field, "%s is a number attribute; got %s", field, describe(v))
	case AttributeBoolean:
		switch b := v.(type) {
		case bool:
			return b, nil
		case string:
			if x, err := strconv.ParseBool(strings.TrimSpace(b)); err == nil {
				return x, nil
			}
		}
		return nil, Invalid(field, "%s is a true/false attribute; got %s", field, describe(v))
	case AttributeEnum:
		s, ok := v.(string)
		if ok && slices.Contains(a.Values, strings.TrimSpace(s)) {
			return strings.TrimSpace(s), nil
		}
		return nil, Invalid(field, "%s must be one of %s; got %s", field, quoteAll(a.Values), describe(v))
	}
	return nil, Invalid(field, "%s has an unknown type %q", field, a.Type)
}

// AttributeString is an attribute value's canonical text, as it is indexed
// and exported.
func AttributeString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case nil:
		return "null"
	case bool, float64, int, int64:
		return fmt.Sprintf("%v", x)
	}
	return fmt.Sprintf("a %T", v)
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Summarize computes what a product shows of its variants: the first
// variant's SKU, the lowest and highest price, the highest compare-at
// price, the total stock.
func (p *Product) Summarize() {
	p.SKU, p.Price, p.PriceMax, p.CompareAtPrice, p.Stock = "", 0, 0, nil, 0
	for i, v := range p.Variants {
		if i == 0 {
			p.SKU, p.Price, p.PriceMax = v.SKU, v.Price, v.Price
		}
		p.Price, p.PriceMax = min(p.Price, v.Price), max(p.PriceMax, v.Price)
		if v.CompareAtPrice != nil && (p.CompareAtPrice == nil || *v.CompareAtPrice > *p.CompareAtPrice) {
			c := *v.CompareAtPrice
			p.CompareAtPrice = &c
		}
		p.Stock += v.Stock
	}
}

// OnSale reports whether some variant's compare-at price is above its price.
func (p *Product) OnSale() bool {
	return slices.ContainsFunc(p.Variants, func(v *Variant) bool { return v.CompareAtPrice != nil && *v.CompareAtPrice > v.Price })
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

// Clone returns a deep copy of p, for a change that may fail.
func (p *Product) Clone() *Product {
	c := *p
	c.Tags = slices.Clone(p.Tags)
	c.Options = make([]Option, len(p.Options))
	for i, o := range p.Options {
		c.Options[i] = Option{Name: o.Name, Values: slices.Clone(o.Values)}
	}
	c.Variants = make([]*Variant, len(p.Variants))
	for i, v := range p.Variants {
		vc := *v
		vc.Options = make(map[string]string, len(v.Options))
		for k, x := range v.Options {
			vc.Options[k] = x
		}
		if v.CompareAtPrice != nil {
			x := *v.CompareAtPrice
			vc.CompareAtPrice = &x
		}
		if v.Weight != nil {
			w := *v.Weight
			vc.Weight = &w
		}
		c.Variants[i] = &vc
	}
	c.Media = slices.Clone(p.Media)
	c.Categories = slices.Clone(p.Categories)
	if p.Attributes != nil {
		c.Attributes = make(map[string]any, len(p.Attributes))
		for k, v := range p.Attributes {
			c.Attributes[k] = v
		}
	}
	if p.CompareAtPrice != nil {
		x := *p.CompareAtPrice
		c.CompareAtPrice = &x
	}
	return &c
}

// SetOneVariant makes p a product of one variant without options (the
// seed's product: a SKU, a price, a stock), with the variant's id.
func (p *Product) SetOneVariant(variantID, sku string, price, stock int64) {
	p.Options = nil
	p.Variants = []*Variant{{ID: variantID, SKU: sku, Options: map[string]string{}, Price: price, Stock: stock,
		Policy: PolicyDeny, RequiresShipping: true, Taxable: true, Position: 1}}
	p.Summarize()
}
