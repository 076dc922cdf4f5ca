package vitrine

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
	"time"
)

// TranslationResource is the kind of thing a translation translates a
// field of.
type TranslationResource string

const (
	TranslateProduct   TranslationResource = "product"
	TranslateCategory  TranslationResource = "category"
	TranslateAttribute TranslationResource = "attribute"
)

// The translatable fields, as translate_product names them; an option's
// name and its values, and an enum attribute's values, are named with
// OptionNameField, OptionValueField and EnumValueField.
const (
	FieldName           = "name"
	FieldDescription    = "description"
	FieldHandle         = "handle"
	FieldProductType    = "product_type"
	FieldSEOTitle       = "seo.title"
	FieldSEODescription = "seo.description"
	fieldOptionName     = "option.name"
	fieldOptionValue    = "option.value"
	fieldEnumValue      = "value"
)

// fieldSep separates the parts of a field's key: no option name or value
// holds it (Text refuses control characters).
const fieldSep = "\x1f"

// OptionNameField is the field of an option's name.
func OptionNameField(option string) string { return fieldOptionName + fieldSep + option }

// OptionValueField is the field of one value of an option.
func OptionValueField(option, value string) string {
	return fieldOptionValue + fieldSep + option + fieldSep + value
}

// EnumValueField is the field of one value of an enum attribute.
func EnumValueField(value string) string { return fieldEnumValue + fieldSep + value }

// FieldParts reads a field's key: its kind (FieldName..., "option.name",
// "option.value" or "value"), and the option and value it names.
func FieldParts(field string) (kind, option, value string) {
	parts := strings.SplitN(field, fieldSep, 3)
	kind = parts[0]
	switch {
	case kind == fieldEnumValue && len(parts) > 1:
		value = parts[1]
	case len(parts) == 2:
		option = parts[1]
	case len(parts) == 3:
		option, value = parts[1], parts[2]
	}
	return kind, option, value
}

// Translation is one field of one product, category or attribute
// definition in one of its company's locales other than the default. It
// keeps the digest of the source text it translated, as Shopify does: once
// the source changes, the translation is outdated (still read, until it
// is written again).
type Translation struct {
	Resource   TranslationResource
	ResourceID string
	Locale     string
	Field      string
	// Value is the translated text; written as "", it removes the
	// translation.
	Value string
	// Digest is SourceDigest of the source when the translation was
	// written.
	Digest    string
	UpdatedAt time.Time
}

// Outdated reports whether the source changed since the translation was
// written.
func (t *Translation) Outdated(source string) bool { return t.Digest != SourceDigest(source) }

// SourceDigest is the digest a translation keeps of its source text: MD5
// in hex, which PostgreSQL computes too (a digest to tell a change, not a
// secret).
func SourceDigest(source string) string {
	sum := md5.Sum([]byte(source))
	return hex.EncodeToString(sum[:])
}

// Translations are the translations of one resource in one locale, by
// field.
type Translations map[string]*Translation

// Text returns the field's translation, or source when it has none.
func (ts Translations) Text(field, source string) string {
	if t := ts[field]; t != nil && t.Value != "" {
		return t.Value
	}
	return source
}

// TranslationStore keeps the translations of a company's products,
// categories and attribute definitions.
type TranslationStore interface {
	// Translations returns the tenant's translations of those resources
	// of one kind, in locale (every locale when ""), by resource id.
	Translations(ctx context.Context, tenantID string, resource TranslationResource, ids []string, locale string) (map[string][]*Translation, error)
	// TranslatedHandles returns the ids of the tenant's products (or
	// categories) whose handle translated in locale is one of handles
	// (lower case), by handle.
	TranslatedHandles(ctx context.Context, tenantID string, resource TranslationResource, locale string, handles []string) (map[string]string, error)
	// SaveTranslations writes translations of the tenant, of any
	// resources, in one transaction: each replaces the one of its
	// resource, locale and field; one whose Value is "" removes it. A
	// product's or category's handle in a locale taken by another's
	// (translated, or its own where it has none in that locale) is a
	// ConflictError. Deleting a product, category or attribute definition
	// deletes its translations.
	SaveTranslations(ctx context.Context, ch Change, tenantID string, ts []*Translation) error
}

// TranslatableField is one field of a resource that a translation may
// translate, with its source: its text in the company's default locale.
type TranslatableField struct {
	Field  string
	Source string
}

// TranslatableFields are the product's fields a translation may
// translate, those whose source is not blank, in the order get_translations
// lists them: name, description, handle, product type, SEO, then each
// option's name and values.
func (p *Product) TranslatableFields() []TranslatableField {
	var out []TranslatableField
	add := func(field, source string) {
		if strings.TrimSpace(source) != "" {
			out = append(out, TranslatableField{field, source})
		}
	}
	add(FieldName, p.Name)
	add(FieldDescription, p.Description)
	add(FieldHandle, p.Handle)
	add(FieldProductType, p.ProductType)
	add(FieldSEOTitle, p.SEO.Title)
	add(FieldSEODescription, p.SEO.Description)
	for _, o := range p.Options {
		add(OptionNameField(o.Name), o.Name)
		for _, v := range o.Values {
			add(OptionValueField(o.Name, v), v)
		}
	}
	return out
}

// TranslatableFields are the category's: its name and handle.
func (c *Category) TranslatableFields() []TranslatableField {
	return []TranslatableField{{FieldName, c.Name}, {FieldHandle, c.Handle}}
}

// TranslatableFields are the attribute definition's: its name and an
// enum's values.
func (a *Attribute) TranslatableFields() []TranslatableField {
	out := []TranslatableField{{FieldName, a.Name}}
	for _, v := range a.Values {
		out = append(out, TranslatableField{EnumValueField(v), v})
	}
	return out
}

// Untranslated reports whether one of the fields has no translation in ts,
// or an outdated one.
func Untranslated(fields []TranslatableField, ts Translations) bool {
	for _, f := range fields {
		t := ts[f.Field]
		if t == nil || t.Outdated(f.Source) {
			return true
		}
	}
	return false
}

// Translated returns a copy of p whose text fields read their translations
// in ts, each field without one its own (the default locale's). Outdated
// translations are read too, as Shopify does, until they are written
// again. p itself is left as it is.
func (p *Product) Translated(ts Translations) *Product {
	if len(ts) == 0 {
		return p
	}
	// Each variant's options are written anew below: not cloned first
	// (a feed translates 300,000 variants).
	c := p.clone(len(p.Options) == 0)
	c.Name = ts.Text(FieldName, p.Name)
	c.Description = ts.Text(FieldDescription, p.Description)
	c.Handle = ts.Text(FieldHandle, p.Handle)
	c.ProductType = ts.Text(FieldProductType, p.ProductType)
	c.SEO.Title = ts.Text(FieldSEOTitle, p.SEO.Title)
	c.SEO.Description = ts.Text(FieldSEODescription, p.SEO.Description)
	if len(p.Options) == 0 {
		return c
	}
	// An option's name and values in the locale, read once for all the
	// variants.
	type named struct {
		name   string
		values map[string]string
	}
	options := make(map[string]named, len(p.Options))
	for i, o := range p.Options {
		n := named{name: ts.Text(OptionNameField(o.Name), o.Name), values: make(map[string]string, len(o.Values))}
		c.Options[i].Name = n.name
		for j, v := range o.Values {
			c.Options[i].Values[j] = ts.Text(OptionValueField(o.Name, v), v)
			n.values[v] = c.Options[i].Values[j]
		}
		options[o.Name] = n
	}
	for i, v := range p.Variants {
		opts := make(map[string]string, len(v.Options))
		for name, val := range v.Options {
			n, ok := options[name]
			if !ok {
				opts[name] = ts.Text(OptionValueField(name, val), val)
				continue
			}
			to, ok := n.values[val]
			if !ok {
				to = ts.Text(OptionValueField(name, val), val)
			}
			opts[n.name] = to
		}
		c.Variants[i].Options = opts
	}
	return c
}

// TranslationsOf indexes a resource's translations of one locale by field.
func TranslationsOf(ts []*Translation) Translations {
	out := make(Translations, len(ts))
	for _, t := range ts {
		out[t.Field] = t
	}
	return out
}

// Translated returns a copy of c with its name and handle in a locale (ts,
// its translations there), each untranslated one its own.
func (c *Category) Translated(ts Translations) *Category {
	if len(ts) == 0 {
		return c
	}
	out := *c
	out.Name, out.Handle = ts.Text(FieldName, c.Name), ts.Text(FieldHandle, c.Handle)
	return &out
}

// Translated returns a copy of a with its name in a locale (ts, its
// translations there). An enum's Values stay the catalog's: they are what
// products hold (Product.TranslatedLabels shows a product's in the locale).
func (a *Attribute) Translated(ts Translations) *Attribute {
	if len(ts) == 0 {
		return a
	}
	out := *a
	out.Name = ts.Text(FieldName, a.Name)
	return &out
}

// TranslatedLabels returns p with the names of its categories and the
// values of its enum attributes in a locale: cats are the translations
// there of its categories, by id, attrs those of the company's attribute
// definitions, by key. Each untranslated one stays the default locale's;
// p itself when nothing is translated.
func (p *Product) TranslatedLabels(cats, attrs map[string]Translations) *Product {
	changes := false
	for _, c := range p.Categories {
		if cats[c.ID].Text(FieldName, c.Name) != c.Name {
			changes = true
		}
	}
	for k, v := range p.Attributes {
		if s, ok := v.(string); ok && attrs[k].Text(EnumValueField(s), s) != s {
			changes = true
		}
	}
	if !changes {
		return p
	}
	c := *p
	c.Categories = slices.Clone(p.Categories)
	for i, pc := range c.Categories {
		c.Categories[i].Name = cats[pc.ID].Text(FieldName, pc.Name)
	}
	c.Attributes = maps.Clone(p.Attributes)
	for k, v := range c.Attributes {
		if s, ok := v.(string); ok {
			c.Attributes[k] = attrs[k].Text(EnumValueField(s), s)
		}
	}
	return &c
}
