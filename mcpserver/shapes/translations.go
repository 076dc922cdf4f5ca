package shapes

import (
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service/catalog"
)

type TranslateProductIn struct {
	TenantArg
	ID          string                         `json:"id"`
	Locale      vitrine.LocaleTag              `json:"locale" jsonschema:"One of the company's, not its default."`
	Name        *shortText                     `json:"name,omitempty" jsonschema:"Each field: \"\" removes its translation."`
	Description *longText                      `json:"description,omitempty"`
	Handle      *shortText                     `json:"handle,omitempty"`
	ProductType *shortText                     `json:"product_type,omitempty"`
	SEO         *seoTranslationIn              `json:"seo,omitempty"`
	Options     map[string]optionTranslationIn `json:"options,omitempty" jsonschema:"By option name."`
}

type seoTranslationIn struct {
	Title       *shortText `json:"title,omitempty"`
	Description *longText  `json:"description,omitempty"`
}

type optionTranslationIn struct {
	Name   *shortText        `json:"name,omitempty"`
	Values map[string]string `json:"values,omitempty" jsonschema:"By value."`
}

func (in TranslateProductIn) Translation() catalog.ProductTranslation {
	out := catalog.ProductTranslation{Name: (*string)(in.Name), Description: (*string)(in.Description), Handle: (*string)(in.Handle),
		ProductType: (*string)(in.ProductType)}
	if in.SEO != nil {
		out.SEOTitle, out.SEODescription = (*string)(in.SEO.Title), (*string)(in.SEO.Description)
	}
	if in.Options != nil {
		out.Options = make(map[string]catalog.OptionTranslation, len(in.Options))
		for name, o := range in.Options {
			out.Options[name] = catalog.OptionTranslation{Name: (*string)(o.Name), Values: o.Values}
		}
	}
	return out
}

type TranslateCategoryIn struct {
	TenantArg
	ID     string            `json:"id"`
	Locale vitrine.LocaleTag `json:"locale"`
	Name   *shortText        `json:"name,omitempty"`
	Handle *shortText        `json:"handle,omitempty"`
}

type GetTranslationsIn struct {
	TenantArg
	ID     string            `json:"id" jsonschema:"A product's or a category's."`
	Locale vitrine.LocaleTag `json:"locale,omitempty" jsonschema:"Default: every locale."`
}

type TranslationsOut struct {
	ID            string             `json:"id"`
	Resource      string             `json:"resource"`
	DefaultLocale string             `json:"default_locale"`
	Fields        []fieldTranslation `json:"fields"`
}

type fieldTranslation struct {
	Field   string                   `json:"field"`
	Source  string                   `json:"source"`
	Locales map[string]localeTextOut `json:"locales" jsonschema:"By locale: those translated."`
}

type localeTextOut struct {
	Value    string `json:"value"`
	Outdated bool   `json:"outdated,omitempty" jsonschema:"The source changed since."`
}

func TranslationsOf(r *catalog.ResourceTranslations, err error) (TranslationsOut, error) {
	if err != nil {
		return TranslationsOut{}, err
	}
	out := TranslationsOut{ID: r.ID, Resource: string(r.Resource), DefaultLocale: r.DefaultLocale, Fields: make([]fieldTranslation, len(r.Fields))}
	for i, f := range r.Fields {
		ls := make(map[string]localeTextOut, len(f.Locales))
		for l, t := range f.Locales {
			ls[l] = localeTextOut{Value: t.Value, Outdated: t.Outdated}
		}
		out.Fields[i] = fieldTranslation{Field: f.Field, Source: f.Source, Locales: ls}
	}
	return out, nil
}

// attributeTranslationIn is an attribute's name and enum values in one
// locale (save_attribute's translations).
type attributeTranslationIn struct {
	Name   *shortText        `json:"name,omitempty"`
	Values map[string]string `json:"values,omitempty" jsonschema:"By value."`
}

// AttributeTranslations are save_attribute's translations, for the
// service.
func AttributeTranslations(in map[string]attributeTranslationIn) map[string]catalog.AttributeTranslation {
	if in == nil {
		return nil
	}
	out := make(map[string]catalog.AttributeTranslation, len(in))
	for l, t := range in {
		out[l] = catalog.AttributeTranslation{Name: (*string)(t.Name), Values: t.Values}
	}
	return out
}
