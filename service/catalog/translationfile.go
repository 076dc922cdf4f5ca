package catalog

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// Translations come in from files (Shopify's translation CSV, JSON Lines of
// products' translations) a field at a time: each entry is matched to a
// product or category of the company, checked as translate_product and
// translate_category check it, and written in batches; what does not match
// is reported by its line, nothing dropped in silence.

// TranslationEntry is one translation a file gives: a field of a product
// or category, in one locale.
type TranslationEntry struct {
	// Line is the file's line the entry comes from.
	Line     int
	Resource vitrine.TranslationResource // product or category
	// Ref names the product or category: its id, or its handle in the
	// company's default locale.
	Ref string
	// Field is vitrine.FieldName, FieldDescription, ..., or FieldOptionName
	// or FieldOptionValue with Option (and Value) naming what it translates.
	Field  string
	Option string
	Value  string
	Locale string
	// Text is the translation; "" removes one (JSON Lines only: a
	// Shopify row with no translation is skipped before it comes here).
	Text string
	// Refused, when set, is why the file's reader could not read the
	// entry: it is reported on its line and nothing else is checked.
	Refused error
	// Skip, when set, says why there is nothing to import on the line
	// (a Shopify row with a blank translation).
	Skip string
}

// The kinds of field of an option, as TranslationEntry.Field names them.
const (
	FieldOptionName  = "option.name"
	FieldOptionValue = "option.value"
)

// Outcomes of a translation entry.
const (
	TranslationCreated   = "created"
	TranslationUpdated   = "updated"
	TranslationRemoved   = "removed"
	TranslationUnchanged = "unchanged"
	TranslationSkipped   = "skipped"
	TranslationFailed    = "error"
)

// TranslationResult is what became of one entry.
type TranslationResult struct {
	Line     int
	Resource vitrine.TranslationResource
	Ref      string
	// ID is the product's or category's id, once found.
	ID string
	// Field is the field as the tools name it (name, options.Size.name,
	// options.Size.values.M, ...).
	Field  string
	Locale string
	Status string
	// Note says why an entry was skipped.
	Note string
	Err  *vitrine.Error
}

// TranslationImport is the outcome of an import of translations: a result
// per entry, in the file's order, and the notices of what the file holds
// that Vitrine does not read (a column), each kind once.
type TranslationImport struct {
	Results                                               []TranslationResult
	Created, Updated, Removed, Unchanged, Skipped, Failed int
	Notices                                               []Notice
}

// translationBatch is how many translations one transaction writes.
const translationBatch = 2000

// ImportTranslations matches each entry to a product or category of the
// caller's company and writes its translation: the products' by who may
// update products, the categories' by who manages the catalog. An entry
// whose product or category the company does not have (even one another
// company has), whose field the resource lacks or whose locale is not one
// of the company's others fails on its line; the others are written, in
// batches, each audited as the call's. progress, if set, hears of the
// entries done.
func (s *Catalog) ImportTranslations(ctx context.Context, a *service.Access, entries []TranslationEntry, progress func(done, total int)) (*TranslationImport, error) {
	if err := a.Allow(service.OpImportTranslations); err != nil {
		return nil, err
	}
	t, err := s.store.TenantByID(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	mayCategories := a.Allow(service.OpSaveCategory)
	out := &TranslationImport{Results: make([]TranslationResult, len(entries))}
	fail := func(i int, err error) {
		out.Results[i].Status, out.Results[i].Err = TranslationFailed, vitrine.AsError(err)
		if out.Results[i].Err == nil {
			out.Results[i].Err = &vitrine.Error{Type: vitrine.ValidationError, Message: err.Error()}
		}
	}

	// Find the products and categories the entries name.
	r, err := s.resolveRefs(ctx, a.TenantID, entries)
	if err != nil {
		return nil, err
	}

	// Check each entry, and keep the last of each field.
	type key struct {
		resource          vitrine.TranslationResource
		id, locale, field string
	}
	seen := map[key]int{}
	ts := make([]*vitrine.Translation, len(entries))
	now := s.now()
	for i, e := range entries {
		res := &out.Results[i]
		*res = TranslationResult{Line: e.Line, Resource: e.Resource, Ref: e.Ref, Locale: e.Locale, Field: entryLabel(e)}
		if e.Refused != nil {
			fail(i, e.Refused)
			continue
		}
		if e.Skip != "" {
			res.Status, res.Note = TranslationSkipped, e.Skip
			continue
		}
		locale, err := t.TranslationLocale("locale", e.Locale)
		if err != nil {
			fail(i, err)
			continue
		}
		res.Locale = locale
		if e.Resource == vitrine.TranslateCategory && mayCategories != nil {
			fail(i, mayCategories)
			continue
		}
		tr, err := r.translation(e)
		if err != nil {
			fail(i, err)
			continue
		}
		tr.Locale, tr.UpdatedAt = locale, now
		res.ID = tr.ResourceID
		k := key{tr.Resource, tr.ResourceID, locale, tr.Field}
		if j, dup := seen[k]; dup {
			fail(i, vitrine.Conflict("locale", "line %d translates the same field in the same locale: give each once", entries[j].Line))
			continue
		}
		seen[k] = i
		ts[i] = tr
	}

	// Compare with the translations there are: the same text of the same
	// source is left as it is.
	old, err := s.existingTranslations(ctx, a.TenantID, ts)
	if err != nil {
		return nil, err
	}
	var pending []int
	for i, tr := range ts {
		if tr == nil {
			continue
		}
		prev := old[translationKey(tr)]
		switch {
		case prev == nil && tr.Value == "":
			out.Results[i].Status = TranslationUnchanged
		case prev != nil && prev.Value == tr.Value && prev.Digest == tr.Digest:
			out.Results[i].Status = TranslationUnchanged
		case tr.Value == "":
			out.Results[i].Status = TranslationRemoved
			pending = append(pending, i)
		case prev != nil:
			out.Results[i].Status = TranslationUpdated
			pending = append(pending, i)
		default:
			out.Results[i].Status = TranslationCreated
			pending = append(pending, i)
		}
	}

	// Write, a batch at a time; a batch refused for a handle taken is
	// written again an entry at a time, so that the conflict is the
	// line's alone.
	for start := 0; start < len(pending); start += translationBatch {
		batch := pending[start:min(start+translationBatch, len(pending))]
		list := make([]*vitrine.Translation, len(batch))
		for j, i := range batch {
			list[j] = ts[i]
		}
		err := s.store.SaveTranslations(ctx, a.Change(), a.TenantID, list)
		if vitrine.TypeOf(err) == vitrine.ConflictError {
			for _, i := range batch {
				if err := s.store.SaveTranslations(ctx, a.Change(), a.TenantID, []*vitrine.Translation{ts[i]}); err != nil {
					if vitrine.TypeOf(err) != vitrine.ConflictError {
						return nil, err
					}
					fail(i, err)
				}
			}
		} else if err != nil {
			return nil, err
		}
		if progress != nil {
			progress(start+len(batch), len(pending))
		}
	}
	for _, res := range out.Results {
		switch res.Status {
		case TranslationCreated:
			out.Created++
		case TranslationUpdated:
			out.Updated++
		case TranslationRemoved:
			out.Removed++
		case TranslationUnchanged:
			out.Unchanged++
		case TranslationSkipped:
			out.Skipped++
		case TranslationFailed:
			out.Failed++
		}
	}
	return out, nil
}

// entryLabel names an entry's field as the tools do.
func entryLabel(e TranslationEntry) string {
	switch e.Field {
	case FieldOptionName:
		return "options." + e.Option + ".name"
	case FieldOptionValue:
		return "options." + e.Option + ".values." + e.Value
	}
	return e.Field
}

// refs are the products and categories an import's entries name, by id
// and by handle.
type refs struct {
	products   map[string]*vitrine.Product // by id and by handle
	categories []*vitrine.Category
}

// resolveRefs reads the company's products and categories the entries
// name: by handle in one query, by id one at a time (an import from a
// file names them by handle).
func (s *Catalog) resolveRefs(ctx context.Context, tenantID string, entries []TranslationEntry) (*refs, error) {
	r := &refs{products: map[string]*vitrine.Product{}}
	var handles []string
	ids := map[string]bool{}
	cats := false
	for _, e := range entries {
		if e.Refused != nil || e.Skip != "" || e.Ref == "" {
			continue
		}
		switch {
		case e.Resource == vitrine.TranslateCategory:
			cats = true
		case vitrine.ValidID(e.Ref):
			ids[e.Ref] = true
		default:
			handles = append(handles, e.Ref)
		}
	}
	if len(handles) > 0 {
		slices.Sort(handles)
		byHandle, err := s.store.ProductsByHandle(ctx, tenantID, slices.Compact(handles))
		if err != nil {
			return nil, err
		}
		for h, p := range byHandle {
			r.products[h] = p
		}
	}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		p, err := s.store.ProductByID(ctx, tenantID, id)
		if vitrine.TypeOf(err) == vitrine.NotFoundError {
			continue
		}
		if err != nil {
			return nil, err
		}
		r.products[id] = p
	}
	if cats {
		var err error
		if r.categories, err = s.store.Categories(ctx, tenantID); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// translation checks an entry against the resource it names and returns
// its translation (without locale nor time).
func (r *refs) translation(e TranslationEntry) (*vitrine.Translation, error) {
	if e.Resource == vitrine.TranslateCategory {
		i := slices.IndexFunc(r.categories, func(c *vitrine.Category) bool { return c.ID == e.Ref || c.Handle == e.Ref })
		if i < 0 {
			return nil, vitrine.Invalid("identification", "no category with handle or id %q in this company", e.Ref)
		}
		c := r.categories[i]
		switch e.Field {
		case vitrine.FieldName:
			return checked(vitrine.TranslateCategory, c.ID, e, c.Name, func(v string) (string, error) { return vitrine.ValidateName("name", v, 255) })
		case vitrine.FieldHandle:
			return checked(vitrine.TranslateCategory, c.ID, e, c.Handle, func(v string) (string, error) { return vitrine.ValidateHandle("handle", v) })
		}
		return nil, vitrine.Invalid("field", "a category's translatable fields are name and handle; not %q", e.Field)
	}
	p := r.products[e.Ref]
	if p == nil {
		return nil, vitrine.Invalid("identification", "no product with handle or id %q in this company", e.Ref)
	}
	text := func(field string, max int) func(string) (string, error) {
		return func(v string) (string, error) { return vitrine.ValidateText(field, v, max) }
	}
	switch e.Field {
	case vitrine.FieldName:
		return checked(vitrine.TranslateProduct, p.ID, e, p.Name, func(v string) (string, error) {
			return vitrine.ValidateName("name", v, vitrine.MaxProductNameLength)
		})
	case vitrine.FieldDescription:
		return checked(vitrine.TranslateProduct, p.ID, e, p.Description, func(v string) (string, error) { return validDescription("description", v) })
	case vitrine.FieldHandle:
		return checked(vitrine.TranslateProduct, p.ID, e, p.Handle, func(v string) (string, error) { return vitrine.ValidateHandle("handle", v) })
	case vitrine.FieldProductType:
		return checked(vitrine.TranslateProduct, p.ID, e, p.ProductType, text("product_type", vitrine.MaxVendorLength))
	case vitrine.FieldSEOTitle:
		return checked(vitrine.TranslateProduct, p.ID, e, p.SEO.Title, text("seo.title", vitrine.MaxSEOTitleLength))
	case vitrine.FieldSEODescription:
		return checked(vitrine.TranslateProduct, p.ID, e, p.SEO.Description, text("seo.description", vitrine.MaxSEODescLength))
	case FieldOptionName, FieldOptionValue:
		i := slices.IndexFunc(p.Options, func(o vitrine.Option) bool { return o.Name == e.Option })
		if i < 0 {
			return nil, vitrine.Invalid("options", "product %q has no option %q (its options: %s)", p.Handle, e.Option, optionList(p))
		}
		o := p.Options[i]
		if e.Field == FieldOptionName {
			e.Field = vitrine.OptionNameField(o.Name)
			return checked(vitrine.TranslateProduct, p.ID, e, o.Name, text("options."+o.Name+".name", vitrine.MaxOptionLength))
		}
		if !slices.Contains(o.Values, e.Value) {
			return nil, vitrine.Invalid("options", "option %q of product %q has no value %q (its values: %s)", o.Name, p.Handle, e.Value, strings.Join(o.Values, ", "))
		}
		e.Field = vitrine.OptionValueField(o.Name, e.Value)
		return checked(vitrine.TranslateProduct, p.ID, e, e.Value, text("options."+o.Name+".values", vitrine.MaxOptionLength))
	}
	return nil, vitrine.Invalid("field", "%q is not a field Vitrine translates (name, description, handle, product_type, seo.title, seo.description, options)", e.Field)
}

func optionList(p *vitrine.Product) string {
	if len(p.Options) == 0 {
		return "none"
	}
	names := make([]string, len(p.Options))
	for i, o := range p.Options {
		names[i] = o.Name
	}
	return strings.Join(names, ", ")
}

// checked is the entry's translation of a field whose source is source,
// its text checked by check ("" removes, unchecked).
func checked(resource vitrine.TranslationResource, id string, e TranslationEntry, source string, check func(string) (string, error)) (*vitrine.Translation, error) {
	v := e.Text
	if v != "" {
		if strings.TrimSpace(source) == "" {
			return nil, vitrine.Invalid(entryLabel(e), "%s is blank in the default locale: there is nothing to translate", entryLabel(e))
		}
		var err error
		if v, err = check(v); err != nil {
			return nil, err
		}
	}
	return &vitrine.Translation{Resource: resource, ResourceID: id, Field: e.Field, Value: v, Digest: vitrine.SourceDigest(source)}, nil
}

func translationKey(t *vitrine.Translation) string {
	return string(t.Resource) + "\x00" + t.ResourceID + "\x00" + t.Locale + "\x00" + t.Field
}

// existingTranslations reads the translations there are of the resources
// of ts, by translationKey.
func (s *Catalog) existingTranslations(ctx context.Context, tenantID string, ts []*vitrine.Translation) (map[string]*vitrine.Translation, error) {
	ids := map[vitrine.TranslationResource]map[string]bool{}
	for _, t := range ts {
		if t == nil {
			continue
		}
		if ids[t.Resource] == nil {
			ids[t.Resource] = map[string]bool{}
		}
		ids[t.Resource][t.ResourceID] = true
	}
	out := map[string]*vitrine.Translation{}
	for _, res := range []vitrine.TranslationResource{vitrine.TranslateProduct, vitrine.TranslateCategory} {
		list := slices.Sorted(maps.Keys(ids[res]))
		for start := 0; start < len(list); start += 1000 {
			all, err := s.store.Translations(ctx, tenantID, res, list[start:min(start+1000, len(list))], "")
			if err != nil {
				return nil, err
			}
			for _, trs := range all {
				for _, t := range trs {
					out[translationKey(t)] = t
				}
			}
		}
	}
	return out, nil
}

// ErrNoEntries is the error of a file of no translations.
var ErrNoEntries = errors.New("the file holds no translations")

// String is the result as one line of a report.
func (r TranslationResult) String() string {
	what := r.Ref
	if r.Field != "" {
		what += " " + r.Field
	}
	if r.Locale != "" {
		what += " (" + r.Locale + ")"
	}
	switch {
	case r.Err != nil:
		return fmt.Sprintf("line %d, %s: %s", r.Line, what, r.Err.Message)
	case r.Note != "":
		return fmt.Sprintf("line %d, %s: %s", r.Line, what, r.Note)
	}
	return fmt.Sprintf("line %d, %s: %s", r.Line, what, r.Status)
}
