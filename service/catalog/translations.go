package catalog

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// Translations of a company's products, categories and public attribute
// definitions into its locales other than the default (issue 47). A
// translation keeps the digest of the source it translated, and reads
// outdated once the source changes; reads in a locale fall back field by
// field to the default.

// ProductTranslation is what translate_product writes in one locale: a
// field nil is left as it is, one given "" loses its translation.
type ProductTranslation struct {
	Name, Description, Handle, ProductType *string
	SEOTitle, SEODescription               *string
	// Options are by the option's name (in the default locale).
	Options map[string]OptionTranslation
}

// OptionTranslation translates an option's name and values (by the
// value in the default locale).
type OptionTranslation struct {
	Name   *string
	Values map[string]string
}

// AttributeTranslation translates an attribute definition's name and an
// enum's values (by the value in the default locale), in one locale.
type AttributeTranslation struct {
	Name   *string
	Values map[string]string
}

// ResourceTranslations are a product's, category's or attribute's
// translatable fields with their translations, as get_translations shows
// them.
type ResourceTranslations struct {
	Resource      vitrine.TranslationResource
	ID            string
	DefaultLocale string
	Fields        []FieldTranslations
}

// FieldTranslations are one field's source and its translations by
// locale (those it has).
type FieldTranslations struct {
	// Field names it as the tools do: name, description, handle,
	// product_type, seo.title, seo.description, options.<option>.name,
	// options.<option>.values.<value>, values.<value> (an enum's).
	Field   string
	Source  string
	Locales map[string]LocaleText
}

// LocaleText is a field's translation in one locale.
type LocaleText struct {
	Value    string
	Outdated bool
}

// FieldLabel is how the tools name a stored field.
func FieldLabel(field string) string {
	kind, option, value := vitrine.FieldParts(field)
	switch kind {
	case "option.name":
		return "options." + option + ".name"
	case "option.value":
		return "options." + option + ".values." + value
	case "value":
		return "values." + value
	}
	return field
}

// tenantOf reads the company of an access.
func (s *Catalog) tenantOf(ctx context.Context, a *service.Access) (*vitrine.Tenant, error) {
	return s.store.TenantByID(ctx, a.TenantID)
}

// TranslateProduct writes a product's translations in one locale, and
// returns every translation of it.
func (s *Catalog) TranslateProduct(ctx context.Context, a *service.Access, id, locale string, in ProductTranslation) (*ResourceTranslations, error) {
	if err := a.Allow(service.OpTranslateProduct); err != nil {
		return nil, err
	}
	t, err := s.tenantOf(ctx, a)
	if err != nil {
		return nil, err
	}
	if locale, err = t.TranslationLocale("locale", locale); err != nil {
		return nil, err
	}
	if !vitrine.ValidID(id) {
		return nil, vitrine.NotFound("Product")
	}
	p, err := s.store.ProductByID(ctx, a.TenantID, id)
	if err != nil {
		return nil, err
	}
	w := translationWriter{resource: vitrine.TranslateProduct, id: id, locale: locale, at: s.now()}
	check := func(field string, max int) func(string) (string, error) {
		return func(v string) (string, error) { return vitrine.ValidateText(field, v, max) }
	}
	w.add("name", vitrine.FieldName, p.Name, in.Name, func(v string) (string, error) {
		return vitrine.ValidateName("name", v, vitrine.MaxProductNameLength)
	})
	w.add("description", vitrine.FieldDescription, p.Description, in.Description, func(v string) (string, error) {
		return validDescription("description", v)
	})
	w.add("handle", vitrine.FieldHandle, p.Handle, in.Handle, func(v string) (string, error) {
		return vitrine.ValidateHandle("handle", v)
	})
	w.add("product_type", vitrine.FieldProductType, p.ProductType, in.ProductType, check("product_type", vitrine.MaxVendorLength))
	w.add("seo.title", vitrine.FieldSEOTitle, p.SEO.Title, in.SEOTitle, check("seo.title", vitrine.MaxSEOTitleLength))
	w.add("seo.description", vitrine.FieldSEODescription, p.SEO.Description, in.SEODescription, check("seo.description", vitrine.MaxSEODescLength))
	for _, name := range slices.Sorted(maps.Keys(in.Options)) {
		ot := in.Options[name]
		i := slices.IndexFunc(p.Options, func(o vitrine.Option) bool { return o.Name == name })
		if i < 0 {
			return nil, vitrine.Invalid("options", "the product has no option %q (its options: %s)", name, optionNames(p))
		}
		o := p.Options[i]
		w.add("options."+name+".name", vitrine.OptionNameField(name), name, ot.Name, check("options."+name+".name", vitrine.MaxOptionLength))
		for _, v := range slices.Sorted(maps.Keys(ot.Values)) {
			if !slices.Contains(o.Values, v) {
				return nil, vitrine.Invalid("options", "option %q has no value %q (its values: %v)", name, v, o.Values)
			}
			text := ot.Values[v]
			w.add("options."+name+".values."+v, vitrine.OptionValueField(name, v), v, &text, check("options."+name+".values."+v, vitrine.MaxOptionLength))
		}
	}
	return s.writeTranslations(ctx, a, t, &w, p.TranslatableFields(), "name, description, handle, product_type, seo or options")
}

func optionNames(p *vitrine.Product) string {
	if len(p.Options) == 0 {
		return "none"
	}
	names := make([]string, len(p.Options))
	for i, o := range p.Options {
		names[i] = fmt.Sprintf("%q", o.Name)
	}
	return fmt.Sprint(names)
}

// translationWriter collects the translations of one resource in one
// locale, each checked as its field is, the first error kept.
type translationWriter struct {
	resource vitrine.TranslationResource
	id       string
	locale   string
	at       time.Time
	ts       []*vitrine.Translation
	err      error
}

// add translates field, whose source is source, to *value (nil: nothing
// to write; "": remove), checked by check.
func (w *translationWriter) add(arg, field, source string, value *string, check func(string) (string, error)) {
	if value == nil || w.err != nil {
		return
	}
	v := *value
	if v != "" {
		if v, w.err = check(v); w.err != nil {
			return
		}
		if source == "" {
			w.err = vitrine.Invalid(arg, "%s is blank in the default locale: there is nothing to translate", arg)
			return
		}
	}
	w.ts = append(w.ts, &vitrine.Translation{Resource: w.resource, ResourceID: w.id, Locale: w.locale, Field: field,
		Value: v, Digest: vitrine.SourceDigest(source), UpdatedAt: w.at})
}

// TranslateCategory writes a category's name and handle in one locale.
func (s *Catalog) TranslateCategory(ctx context.Context, a *service.Access, id, locale string, name, handle *string) (*ResourceTranslations, error) {
	if err := a.Allow(service.OpTranslateCategory); err != nil {
		return nil, err
	}
	t, err := s.tenantOf(ctx, a)
	if err != nil {
		return nil, err
	}
	if locale, err = t.TranslationLocale("locale", locale); err != nil {
		return nil, err
	}
	c, err := s.category(ctx, a.TenantID, id)
	if err != nil {
		return nil, err
	}
	w := translationWriter{resource: vitrine.TranslateCategory, id: id, locale: locale, at: s.now()}
	w.add("name", vitrine.FieldName, c.Name, name, func(v string) (string, error) { return vitrine.ValidateName("name", v, 255) })
	w.add("handle", vitrine.FieldHandle, c.Handle, handle, func(v string) (string, error) { return vitrine.ValidateHandle("handle", v) })
	return s.writeTranslations(ctx, a, t, &w, c.TranslatableFields(), "name or handle")
}

// writeTranslations writes what w collected, and answers the resource's
// translations as they are then; give names the arguments a call that
// gives none should have given.
func (s *Catalog) writeTranslations(ctx context.Context, a *service.Access, t *vitrine.Tenant, w *translationWriter, fields []vitrine.TranslatableField, give string) (*ResourceTranslations, error) {
	if w.err != nil {
		return nil, w.err
	}
	if len(w.ts) == 0 {
		return nil, vitrine.Invalid("locale", "nothing to translate: give %s", give)
	}
	if err := s.store.SaveTranslations(ctx, a.Change(), a.TenantID, w.ts); err != nil {
		return nil, err
	}
	return s.resourceTranslations(ctx, t, w.resource, w.id, fields, "")
}

func (s *Catalog) category(ctx context.Context, tenantID, id string) (*vitrine.Category, error) {
	all, err := s.store.Categories(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(all, func(c *vitrine.Category) bool { return c.ID == id })
	if i < 0 {
		return nil, vitrine.NotFound("Category")
	}
	return all[i], nil
}

// attributeTranslations checks an attribute definition's translations, by
// locale, and returns them to write in the same call as the definition
// (save_attribute).
func (s *Catalog) attributeTranslations(ctx context.Context, a *service.Access, at *vitrine.Attribute, in map[string]AttributeTranslation) ([]*vitrine.Translation, error) {
	t, err := s.tenantOf(ctx, a)
	if err != nil {
		return nil, err
	}
	var ts []*vitrine.Translation
	for _, l := range slices.Sorted(maps.Keys(in)) {
		locale, err := t.TranslationLocale("translations", l)
		if err != nil {
			return nil, err
		}
		tr := in[l]
		w := translationWriter{resource: vitrine.TranslateAttribute, id: at.Key, locale: locale, at: s.now()}
		w.add("translations."+l+".name", vitrine.FieldName, at.Name, tr.Name, func(v string) (string, error) {
			return vitrine.ValidateName("translations."+l+".name", v, 255)
		})
		for _, v := range slices.Sorted(maps.Keys(tr.Values)) {
			if !slices.Contains(at.Values, v) {
				return nil, vitrine.Invalid("translations", "attribute %q has no value %q to translate (its values: %v)", at.Key, v, at.Values)
			}
			text := tr.Values[v]
			w.add("translations."+l+".values", vitrine.EnumValueField(v), v, &text, func(x string) (string, error) {
				return vitrine.ValidateText("translations."+l+".values", x, vitrine.MaxOptionLength)
			})
		}
		if w.err != nil {
			return nil, w.err
		}
		ts = append(ts, w.ts...)
	}
	return ts, nil
}

// GetTranslations returns the translatable fields of the product, or else
// the category, of that id, with their translations in locale (every
// locale of the company's when "").
func (s *Catalog) GetTranslations(ctx context.Context, a *service.Access, id, locale string) (*ResourceTranslations, error) {
	if err := a.Allow(service.OpGetTranslations); err != nil {
		return nil, err
	}
	t, err := s.tenantOf(ctx, a)
	if err != nil {
		return nil, err
	}
	if locale != "" {
		if locale, err = t.TranslationLocale("locale", locale); err != nil {
			return nil, err
		}
	}
	if !vitrine.ValidID(id) {
		return nil, vitrine.NotFound("Product")
	}
	p, err := s.store.ProductByID(ctx, a.TenantID, id)
	if err == nil {
		return s.resourceTranslations(ctx, t, vitrine.TranslateProduct, id, p.TranslatableFields(), locale)
	}
	if vitrine.TypeOf(err) != vitrine.NotFoundError {
		return nil, err
	}
	c, err := s.category(ctx, a.TenantID, id)
	if err != nil {
		return nil, vitrine.NotFound("Product")
	}
	return s.resourceTranslations(ctx, t, vitrine.TranslateCategory, id, c.TranslatableFields(), locale)
}

// AttributeTranslations returns the translations of the company's
// attribute definitions in its locales, by key, then locale.
func (s *Catalog) AttributeTranslations(ctx context.Context, tenant *vitrine.Tenant, keys []string) (map[string]map[string]vitrine.Translations, error) {
	all, err := s.store.Translations(ctx, tenant.ID, vitrine.TranslateAttribute, keys, "")
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]vitrine.Translations{}
	for key, ts := range all {
		for _, tr := range ts {
			if !slices.Contains(tenant.Languages()[1:], tr.Locale) {
				continue
			}
			if out[key] == nil {
				out[key] = map[string]vitrine.Translations{}
			}
			if out[key][tr.Locale] == nil {
				out[key][tr.Locale] = vitrine.Translations{}
			}
			out[key][tr.Locale][tr.Field] = tr
		}
	}
	return out, nil
}

// resourceTranslations reads a resource's translations, in locale or in
// every locale of the company (those it removed are not read), field by
// field.
func (s *Catalog) resourceTranslations(ctx context.Context, t *vitrine.Tenant, resource vitrine.TranslationResource, id string, fields []vitrine.TranslatableField, locale string) (*ResourceTranslations, error) {
	all, err := s.store.Translations(ctx, t.ID, resource, []string{id}, locale)
	if err != nil {
		return nil, err
	}
	byField := map[string][]*vitrine.Translation{}
	for _, tr := range all[id] {
		if slices.Contains(t.Languages()[1:], tr.Locale) {
			byField[tr.Field] = append(byField[tr.Field], tr)
		}
	}
	out := &ResourceTranslations{Resource: resource, ID: id, DefaultLocale: t.DefaultLanguage(), Fields: make([]FieldTranslations, 0, len(fields))}
	for _, f := range fields {
		ft := FieldTranslations{Field: FieldLabel(f.Field), Source: f.Source, Locales: map[string]LocaleText{}}
		for _, tr := range byField[f.Field] {
			ft.Locales[tr.Locale] = LocaleText{Value: tr.Value, Outdated: tr.Outdated(f.Source)}
		}
		out.Fields = append(out.Fields, ft)
	}
	return out, nil
}

// inLocale returns the products with their text in locale, each field
// untranslated there its own; the products themselves are left as they
// are. The company's default locale, and "", read them as they are.
func (s *Catalog) inLocale(ctx context.Context, t *vitrine.Tenant, locale string, ps []*vitrine.Product) ([]*vitrine.Product, error) {
	if locale == "" || locale == t.DefaultLanguage() || len(ps) == 0 {
		return ps, nil
	}
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	all, err := s.store.Translations(ctx, t.ID, vitrine.TranslateProduct, ids, locale)
	if err != nil {
		return nil, err
	}
	cats, attrs, err := s.labelsInLocale(ctx, t.ID, locale, ps)
	if err != nil {
		return nil, err
	}
	out := make([]*vitrine.Product, len(ps))
	for i, p := range ps {
		out[i] = p.Translated(vitrine.TranslationsOf(all[p.ID])).TranslatedLabels(cats, attrs)
	}
	return out, nil
}

// labelsInLocale reads the translations in locale of the products'
// categories, by id, and of their attributes' definitions, by key: a
// query for each kind the products have any of.
func (s *Catalog) labelsInLocale(ctx context.Context, tenantID, locale string, ps []*vitrine.Product) (cats, attrs map[string]vitrine.Translations, err error) {
	var catIDs, keys []string
	for _, p := range ps {
		for _, c := range p.Categories {
			if !slices.Contains(catIDs, c.ID) {
				catIDs = append(catIDs, c.ID)
			}
		}
		for k, v := range p.Attributes {
			if _, ok := v.(string); ok && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	read := func(resource vitrine.TranslationResource, ids []string) (map[string]vitrine.Translations, error) {
		if len(ids) == 0 {
			return nil, nil
		}
		all, err := s.store.Translations(ctx, tenantID, resource, ids, locale)
		if err != nil {
			return nil, err
		}
		out := make(map[string]vitrine.Translations, len(all))
		for id, ts := range all {
			out[id] = vitrine.TranslationsOf(ts)
		}
		return out, nil
	}
	if cats, err = read(vitrine.TranslateCategory, catIDs); err != nil {
		return nil, nil, err
	}
	attrs, err = read(vitrine.TranslateAttribute, keys)
	return cats, attrs, err
}

// settleLocales checks a list's locale (any of the company's) and
// untranslated (one of its others), and puts them in their canonical
// form (vitrine.ProductQuery.Locale): a text query without a locale is
// read in the company's default locale's language.
func (s *Catalog) settleLocales(ctx context.Context, tenantID string, q *vitrine.ProductQuery) error {
	t, err := s.store.TenantByID(ctx, tenantID)
	if err != nil {
		return err
	}
	if q.Locale != "" || hasText(q.Query) {
		l, err := t.ReadLocale("locale", string(q.Locale))
		if err != nil {
			return err
		}
		if l == vitrine.DefaultLocale && l == t.DefaultLanguage() {
			l = "" // the catalog as it is written, in the language the text query is read in by default
		}
		q.Locale = vitrine.LocaleTag(l)
	}
	if q.Untranslated != "" {
		l, err := t.TranslationLocale("untranslated", string(q.Untranslated))
		if err != nil {
			return err
		}
		q.Untranslated = vitrine.LocaleTag(l)
	}
	return nil
}

// pageInLocale puts a page's products in locale, each row's variant
// with them.
func (s *Catalog) pageInLocale(ctx context.Context, tenantID, locale string, page *ProductPage) error {
	t, err := s.store.TenantByID(ctx, tenantID)
	if err != nil {
		return err
	}
	ps, err := s.inLocale(ctx, t, locale, page.Products)
	if err != nil {
		return err
	}
	for i, p := range ps {
		if v := page.Shown[i]; v != nil && p != page.Products[i] {
			if j := slices.IndexFunc(p.Variants, func(x *vitrine.Variant) bool { return x.ID == v.ID }); j >= 0 {
				page.Shown[i] = p.Variants[j]
			}
		}
	}
	page.Products = ps
	return nil
}

// FindProductIn is FindProduct with the product's text in locale (one of
// the company's; "" or its default for the product as it is written).
func (s *Catalog) FindProductIn(ctx context.Context, a *service.Access, id, sku, handle, locale string) (*vitrine.Product, error) {
	if locale == "" {
		return s.FindProduct(ctx, a, id, sku, handle)
	}
	if err := a.Allow(service.OpGetProduct); err != nil {
		return nil, err
	}
	t, err := s.tenantOf(ctx, a)
	if err != nil {
		return nil, err
	}
	if locale, err = t.ReadLocale("locale", locale); err != nil {
		return nil, err
	}
	p, err := s.FindProduct(ctx, a, id, sku, handle)
	if err != nil {
		return nil, err
	}
	ps, err := s.inLocale(ctx, t, locale, []*vitrine.Product{p})
	if err != nil {
		return nil, err
	}
	return ps[0], nil
}
