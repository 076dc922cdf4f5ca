package productfile

import (
	"maps"
	"slices"

	"github.com/vitrine/vitrine"
)

// Translation is a product's text in one locale, as translate_product
// takes it: a field left out is not translated (an import leaves it as it
// is), one given "" has its translation removed by an import.
type Translation struct {
	Name        *string                       `json:"name,omitempty"`
	Description *string                       `json:"description,omitempty"`
	Handle      *string                       `json:"handle,omitempty"`
	ProductType *string                       `json:"product_type,omitempty"`
	SEO         *SEOTranslation               `json:"seo,omitempty"`
	Options     map[string]*OptionTranslation `json:"options,omitempty"`
}

// SEOTranslation is the product's SEO title and description in a locale.
type SEOTranslation struct {
	Title       *string `json:"title,omitempty"`
	Description *string `json:"description,omitempty"`
}

// OptionTranslation is an option's name and values in a locale, the
// values by their text in the default locale.
type OptionTranslation struct {
	Name   *string           `json:"name,omitempty"`
	Values map[string]string `json:"values,omitempty"`
}

// Field is one translated field of a Translation: Kind is vitrine's field
// (vitrine.FieldName, ...) or "option.name" or "option.value" with the
// Option (and Value) it translates.
type Field struct {
	Kind, Option, Value string
	Text                string
}

// Fields lists the fields the translation gives, in the order
// get_translations lists them (options by name, values by value).
func (t *Translation) Fields() []Field {
	var out []Field
	add := func(kind string, v *string) {
		if v != nil {
			out = append(out, Field{Kind: kind, Text: *v})
		}
	}
	add(vitrine.FieldName, t.Name)
	add(vitrine.FieldDescription, t.Description)
	add(vitrine.FieldHandle, t.Handle)
	add(vitrine.FieldProductType, t.ProductType)
	if t.SEO != nil {
		add(vitrine.FieldSEOTitle, t.SEO.Title)
		add(vitrine.FieldSEODescription, t.SEO.Description)
	}
	for _, name := range slices.Sorted(maps.Keys(t.Options)) {
		o := t.Options[name]
		if o == nil {
			continue
		}
		if o.Name != nil {
			out = append(out, Field{Kind: "option.name", Option: name, Text: *o.Name})
		}
		for _, v := range slices.Sorted(maps.Keys(o.Values)) {
			out = append(out, Field{Kind: "option.value", Option: name, Value: v, Text: o.Values[v]})
		}
	}
	return out
}

// TranslationsOf are a product's translations as a file holds them, by
// locale: each locale's that are not blank (outdated ones too), nil when
// it has none.
func TranslationsOf(byLocale map[string]vitrine.Translations) map[string]*Translation {
	var out map[string]*Translation
	for locale, ts := range byLocale {
		var t Translation
		some := false
		for field, tr := range ts {
			if tr == nil || tr.Value == "" {
				continue
			}
			v := tr.Value
			kind, option, value := vitrine.FieldParts(field)
			switch kind {
			case vitrine.FieldName:
				t.Name = &v
			case vitrine.FieldDescription:
				t.Description = &v
			case vitrine.FieldHandle:
				t.Handle = &v
			case vitrine.FieldProductType:
				t.ProductType = &v
			case vitrine.FieldSEOTitle, vitrine.FieldSEODescription:
				if t.SEO == nil {
					t.SEO = &SEOTranslation{}
				}
				if kind == vitrine.FieldSEOTitle {
					t.SEO.Title = &v
				} else {
					t.SEO.Description = &v
				}
			case "option.name", "option.value":
				if t.Options == nil {
					t.Options = map[string]*OptionTranslation{}
				}
				o := t.Options[option]
				if o == nil {
					o = &OptionTranslation{}
					t.Options[option] = o
				}
				if kind == "option.name" {
					o.Name = &v
				} else {
					if o.Values == nil {
						o.Values = map[string]string{}
					}
					o.Values[value] = v
				}
			default:
				continue
			}
			some = true
		}
		if !some {
			continue
		}
		if out == nil {
			out = map[string]*Translation{}
		}
		out[locale] = &t
	}
	return out
}
