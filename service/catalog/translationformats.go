package catalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/productfile"
	"github.com/vitrine/vitrine/internal/shopify"
	"github.com/vitrine/vitrine/service"
)

// The formats of a translations file.
const (
	TranslationsShopify = "shopify" // Shopify's translation CSV (Translate & Adapt)
	TranslationsJSONL   = "jsonl"   // JSON Lines: a product a line, with its translations
)

// TranslationFile is a translations file read into entries, with the
// notices of what its reader does not read (a column), each kind once.
type TranslationFile struct {
	Entries []TranslationEntry
	Notices []Notice
}

// ReadTranslations reads a translations file of the format into entries;
// maxRows (0: any number) bounds its rows (CSV rows, or JSON lines): past
// it, a ValidationError names the bound and the line. A file that cannot
// be read (not a translation CSV, a stray quote, a line that is no JSON
// object) is a ValidationError naming its line.
func ReadTranslations(ctx context.Context, r io.Reader, format string, maxRows int) (*TranslationFile, error) {
	switch format {
	case TranslationsShopify:
		return readShopifyTranslations(ctx, r, maxRows)
	case TranslationsJSONL:
		return readJSONLTranslations(r, maxRows)
	}
	return nil, vitrine.Invalid("format", "format must be \"shopify\" or \"jsonl\"; got %q", format)
}

func tooManyRows(maxRows, line int, what string) error {
	return vitrine.Invalid("text", "the file holds more than %d %s (line %d is past the bound): split it, or use the command line (vitrine translation import), which has none", maxRows, what, line)
}

// readShopifyTranslations reads a Shopify translation CSV. A row of a
// Shopify export names its product by Shopify's id; the file's own handle
// row of that id gives the handle (MAPPING.md, "Identification").
func readShopifyTranslations(ctx context.Context, r io.Reader, maxRows int) (*TranslationFile, error) {
	rd, err := shopify.NewTranslationReader(r)
	if err != nil {
		return nil, vitrine.Invalid("text", "the file cannot be read as a Shopify translation CSV: %s", strings.TrimPrefix(err.Error(), "shopify: "))
	}
	out := &TranslationFile{}
	var notes notices
	for _, is := range rd.Unmodelled() {
		notes.add(is)
	}
	type ident struct{ typ, id string }
	handles := map[ident]string{}
	var idents []ident // of each entry, to resolve once the file is read
	rows := 0
	for {
		row, issue, err := rd.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, vitrine.Invalid("text", "the file cannot be read as a Shopify translation CSV: %s", strings.TrimPrefix(err.Error(), "shopify: "))
		}
		rows++
		if issue != nil {
			if maxRows > 0 && rows > maxRows {
				return nil, tooManyRows(maxRows, issue.Line, "rows")
			}
			out.Entries = append(out.Entries, TranslationEntry{Line: issue.Line, Refused: errors.New(issue.Message)})
			idents = append(idents, ident{})
			continue
		}
		if maxRows > 0 && rows > maxRows {
			return nil, tooManyRows(maxRows, row.Line, "rows")
		}
		e := TranslationEntry{Line: row.Line, Locale: row.Locale, Ref: row.Identification, Text: row.Translated}
		typ := strings.ToUpper(row.Type)
		target, err := row.Target()
		switch {
		case err != nil:
			e.Refused = vitrine.Invalid("field", "%s", err.Error())
		case row.Market != "":
			e.Refused = vitrine.Invalid("market", "a translation for market %q alone is not imported: Vitrine keeps one translation per locale, shared by every market; the row without a market is the one imported", row.Market)
		case strings.TrimSpace(row.Translated) == "":
			e.Skip = "no translation to import (Translated content is blank)"
		}
		if err == nil {
			e.Resource, e.Ref, e.Option, e.Value = vitrine.TranslateProduct, target.Ref, target.Option, target.Value
			if target.Resource == shopify.ResourceCategory {
				e.Resource = vitrine.TranslateCategory
			}
			e.Field = target.Field
			if target.Field == vitrine.FieldHandle && (typ == shopify.TypeProduct || typ == shopify.TypeCollection) && strings.TrimSpace(row.Default) != "" {
				handles[ident{typ, row.Identification}] = strings.TrimSpace(row.Default)
			}
		}
		out.Entries = append(out.Entries, e)
		idents = append(idents, ident{typ, row.Identification})
	}
	for i := range out.Entries {
		e := &out.Entries[i]
		if e.Option != "" {
			continue // an option's row names its product by handle already
		}
		if h, ok := handles[idents[i]]; ok {
			e.Ref = h
		}
	}
	out.Notices = notes.list
	return out, nil
}

// readJSONLTranslations reads JSON Lines of products' translations: each
// line an object naming the product (id or handle) and its translations
// by locale, as the product export writes them (its other keys ignored).
func readJSONLTranslations(r io.Reader, maxRows int) (*TranslationFile, error) {
	rd, err := productfile.NewReader(r, productfile.JSONLines)
	if err != nil {
		return nil, err
	}
	out := &TranslationFile{}
	for n := 1; ; n++ {
		row, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, vitrine.Invalid("text", "%s", err.Error())
		}
		if maxRows > 0 && n > maxRows {
			return nil, tooManyRows(maxRows, row.Line, "lines")
		}
		out.Entries = append(out.Entries, ProductTranslationEntries(row.Line, row.Product)...)
	}
	return out, nil
}

// ProductTranslationEntries are the entries of a product file's line: its
// translations, each field of each locale, the product named by its id,
// or else its handle. A line without translations gives one skipped entry
// (a product export's line of a product without any), so that it is
// reported all the same.
func ProductTranslationEntries(line int, p *productfile.Product) []TranslationEntry {
	ref := p.ID
	if ref == "" {
		ref = p.Handle
	}
	if ref == "" {
		return []TranslationEntry{{Line: line, Refused: vitrine.Invalid("id", "the line names no product: give its id or handle")}}
	}
	if len(p.Translations) == 0 {
		return []TranslationEntry{{Line: line, Ref: ref, Skip: "the line has no translations (by locale: {\"es\": {\"name\": \"...\"}})"}}
	}
	var out []TranslationEntry
	for _, locale := range slices.Sorted(maps.Keys(p.Translations)) {
		t := p.Translations[locale]
		if t == nil {
			continue
		}
		fields := t.Fields()
		if len(fields) == 0 {
			out = append(out, TranslationEntry{Line: line, Ref: ref, Locale: locale, Refused: vitrine.Invalid("translations", "translations.%s gives no field: name, description, handle, product_type, seo or options", locale)})
		}
		for _, f := range fields {
			out = append(out, TranslationEntry{Line: line, Resource: vitrine.TranslateProduct, Ref: ref, Locale: locale,
				Field: f.Kind, Option: f.Option, Value: f.Value, Text: f.Text})
		}
	}
	return out
}

// ImportTranslationsFile reads a translations file and imports it
// (ImportTranslations), its notices with the result.
func (s *Catalog) ImportTranslationsFile(ctx context.Context, a *service.Access, r io.Reader, format string, maxRows int, progress func(done, total int)) (*TranslationImport, error) {
	if err := a.Allow(service.OpImportTranslations); err != nil {
		return nil, err
	}
	f, err := ReadTranslations(ctx, r, format, maxRows)
	if err != nil {
		return nil, err
	}
	if len(f.Entries) == 0 {
		return nil, vitrine.Invalid("text", "%s", ErrNoEntries.Error())
	}
	res, err := s.ImportTranslations(ctx, a, f.Entries, progress)
	if err != nil {
		return nil, err
	}
	res.Notices = f.Notices
	return res, nil
}

// ProductTranslations returns the translations of those products of the
// caller's company in its locales other than the default (only locale's
// when given), by product id, then locale.
func (s *Catalog) ProductTranslations(ctx context.Context, a *service.Access, ids []string, locale string) (map[string]map[string]vitrine.Translations, error) {
	if err := a.Allow(service.OpListProducts); err != nil {
		return nil, err
	}
	t, err := s.store.TenantByID(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	return s.translationsIn(ctx, t, vitrine.TranslateProduct, ids, locale)
}

func (s *Catalog) translationsIn(ctx context.Context, t *vitrine.Tenant, resource vitrine.TranslationResource, ids []string, locale string) (map[string]map[string]vitrine.Translations, error) {
	out := map[string]map[string]vitrine.Translations{}
	if !t.Multilingual() || len(ids) == 0 {
		return out, nil
	}
	all, err := s.store.Translations(ctx, t.ID, resource, ids, locale)
	if err != nil {
		return nil, err
	}
	others := t.Languages()[1:]
	for id, ts := range all {
		for _, tr := range ts {
			if !slices.Contains(others, tr.Locale) {
				continue
			}
			if out[id] == nil {
				out[id] = map[string]vitrine.Translations{}
			}
			if out[id][tr.Locale] == nil {
				out[id][tr.Locale] = vitrine.Translations{}
			}
			out[id][tr.Locale][tr.Field] = tr
		}
	}
	return out, nil
}

// ExportLocales checks the locales an export asks for: locale when given
// (one of the company's others), else every one of the company's others.
func (s *Catalog) ExportLocales(ctx context.Context, a *service.Access, locale string) ([]string, error) {
	t, err := s.store.TenantByID(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	if locale != "" {
		l, err := t.TranslationLocale("locale", locale)
		if err != nil {
			return nil, err
		}
		return []string{l}, nil
	}
	if !t.Multilingual() {
		return nil, vitrine.Invalid("locale", "the company has no locale but its default (%s): update_tenant with locales adds them", t.DefaultLanguage())
	}
	return t.Languages()[1:], nil
}

// ExportShopifyTranslations writes the company's products and categories
// in locales as a Shopify translation CSV: for each product, each locale,
// a row per field whose source is not blank (PRODUCT, then its options'
// names and values), then the categories (COLLECTION); the Default
// content the source, the Status translated, outdated (the source changed
// since) or blank, the Translated content Vitrine's (blank where none).
func (s *Catalog) ExportShopifyTranslations(ctx context.Context, a *service.Access, locales []string, w *shopify.TranslationWriter, progress func(n int)) error {
	t, err := s.store.TenantByID(ctx, a.TenantID)
	if err != nil {
		return err
	}
	write := func(typ, ident, field, locale, source string, tr *vitrine.Translation) error {
		row := shopify.TranslationRow{Type: typ, Identification: ident, Field: field, Locale: locale, Default: source}
		if tr != nil && tr.Value != "" {
			row.Translated, row.Status = tr.Value, shopify.StatusTranslated
			if tr.Outdated(source) {
				row.Status = shopify.StatusOutdated
			}
		}
		return w.Write(row)
	}
	cursor := ""
	for {
		page, err := s.ListProducts(ctx, a, vitrine.ProductQuery{Sort: vitrine.SortCreated}, vitrine.MaxPageLimit, cursor)
		if err != nil {
			return err
		}
		ids := make([]string, len(page.Products))
		for i, p := range page.Products {
			ids[i] = p.ID
		}
		trs, err := s.translationsIn(ctx, t, vitrine.TranslateProduct, ids, localeFilter(locales))
		if err != nil {
			return err
		}
		for _, p := range page.Products {
			for _, l := range locales {
				ts := trs[p.ID][l]
				for _, f := range productFields(p) {
					if err := write(f.typ, f.ident, f.field, l, f.source, ts[f.key]); err != nil {
						return err
					}
				}
			}
			if progress != nil {
				progress(1)
			}
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	cats, err := s.ListCategories(ctx, a)
	if err != nil {
		return err
	}
	ids := make([]string, len(cats))
	for i, c := range cats {
		ids[i] = c.ID
	}
	trs, err := s.translationsIn(ctx, t, vitrine.TranslateCategory, ids, localeFilter(locales))
	if err != nil {
		return err
	}
	for _, c := range cats {
		for _, l := range locales {
			ts := trs[c.ID][l]
			if err := write(shopify.TypeCollection, c.Handle, "title", l, c.Name, ts[vitrine.FieldName]); err != nil {
				return err
			}
			if err := write(shopify.TypeCollection, c.Handle, "handle", l, c.Handle, ts[vitrine.FieldHandle]); err != nil {
				return err
			}
		}
	}
	return nil
}

// localeFilter is the locale to read translations of: the one asked, or
// every one ("").
func localeFilter(locales []string) string {
	if len(locales) == 1 {
		return locales[0]
	}
	return ""
}

// exportField is one row of a product in a Shopify translation CSV.
type exportField struct {
	typ, ident, field string
	key, source       string
}

// productFields are the product's rows, those whose source is not blank.
func productFields(p *vitrine.Product) []exportField {
	var out []exportField
	add := func(typ, ident, key, source string) {
		if strings.TrimSpace(source) == "" {
			return
		}
		kind, _, _ := vitrine.FieldParts(key)
		resource := shopify.ResourceProduct
		field := shopify.ShopifyField(resource, kind)
		out = append(out, exportField{typ: typ, ident: ident, field: field, key: key, source: source})
	}
	add(shopify.TypeProduct, p.Handle, vitrine.FieldName, p.Name)
	add(shopify.TypeProduct, p.Handle, vitrine.FieldDescription, p.Description)
	add(shopify.TypeProduct, p.Handle, vitrine.FieldHandle, p.Handle)
	add(shopify.TypeProduct, p.Handle, vitrine.FieldProductType, p.ProductType)
	add(shopify.TypeProduct, p.Handle, vitrine.FieldSEOTitle, p.SEO.Title)
	add(shopify.TypeProduct, p.Handle, vitrine.FieldSEODescription, p.SEO.Description)
	for _, o := range p.Options {
		ident := shopify.OptionIdent(p.Handle, o.Name)
		add(shopify.TypeOption, ident, vitrine.OptionNameField(o.Name), o.Name)
		for _, v := range o.Values {
			add(shopify.TypeOptionValue, ident, vitrine.OptionValueField(o.Name, v), v)
		}
	}
	return out
}

// String is the import's summary in a line.
func (r *TranslationImport) String() string {
	return fmt.Sprintf("%d created, %d updated, %d removed, %d unchanged, %d skipped, %d failed", r.Created, r.Updated, r.Removed, r.Unchanged, r.Skipped, r.Failed)
}
