package shop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
)

// A company that writes in several locales publishes in each: check_shop
// says, per locale other than the default, which active products have a
// field without a translation there (untranslated) or with one written
// before its source changed (outdated_translation), and the calls that fix
// them. A company of one locale has none of this, and its report is as it
// was.

// LocaleReport is one locale's part of a Report.
type LocaleReport struct {
	Locale       string
	Untranslated TranslationGap
	Outdated     TranslationGap
}

// TranslationGap counts the products of one kind of gap in a locale, and
// shows a few (previewPerReason), with the call that fixes them.
type TranslationGap struct {
	Products int
	Page     []Blocked
	More     bool
	Fix      string
}

// localeTally tallies the translation gaps of the company's locales.
type localeTally struct {
	locales []string
	reports []LocaleReport
}

// newLocaleTally returns the tally of the company's locales other than
// the default (of the market's, with one), or nil for a company of one
// locale.
func (w *Window) newLocaleTally(ctx context.Context, tenantID string, market *vitrine.MarketView) (*localeTally, error) {
	t, err := w.store.TenantByID(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	if !t.Multilingual() {
		return nil, nil
	}
	lt := &localeTally{locales: t.Languages()[1:]}
	if market != nil {
		lt.locales = slices.DeleteFunc(slices.Clone(market.Market.Locales), func(l string) bool { return !slices.Contains(lt.locales, l) })
		if len(lt.locales) == 0 {
			return nil, nil
		}
	}
	for _, l := range lt.locales {
		lt.reports = append(lt.reports, LocaleReport{Locale: l,
			Untranslated: TranslationGap{Fix: fmt.Sprintf(`list_products {untranslated: %q} finds them; translate_product {id, locale: %q, ...} translates each`, l, l)},
			Outdated:     TranslationGap{Fix: fmt.Sprintf(`get_translations {id, locale: %q} shows what changed; translate_product {id, locale: %q, ...} writes it again`, l, l)}})
	}
	return lt, nil
}

// add tallies a batch of products with their translations.
func (lt *localeTally) add(ctx context.Context, w *Window, tenantID string, ps []*vitrine.Product) error {
	if lt == nil || len(ps) == 0 {
		return nil
	}
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	all, err := w.store.Translations(ctx, tenantID, vitrine.TranslateProduct, ids, "")
	if err != nil {
		return err
	}
	for _, p := range ps {
		fields := translatable(p)
		byLocale := map[string]map[string]*vitrine.Translation{}
		for _, tr := range all[p.ID] {
			if byLocale[tr.Locale] == nil {
				byLocale[tr.Locale] = map[string]*vitrine.Translation{}
			}
			byLocale[tr.Locale][tr.Field] = tr
		}
		for i, l := range lt.locales {
			var missing, outdated []string
			for _, f := range fields {
				switch tr := byLocale[l][f.field]; {
				case tr == nil || tr.Value == "":
					missing = append(missing, f.label)
				case tr.Outdated(f.source):
					outdated = append(outdated, f.label)
				}
			}
			r := &lt.reports[i]
			r.Untranslated.add(p, missing, "no translation of ")
			r.Outdated.add(p, outdated, "the source changed since the translation of ")
		}
	}
	return nil
}

func (g *TranslationGap) add(p *vitrine.Product, fields []string, detail string) {
	if len(fields) == 0 {
		return
	}
	g.Products++
	if len(g.Page) < previewPerReason {
		if len(fields) > 4 {
			fields = append(fields[:4:4], fmt.Sprintf("%d more", len(fields)-4))
		}
		g.Page = append(g.Page, Blocked{ID: p.ID, Handle: p.Handle, Name: p.Name, Detail: detail + strings.Join(fields, ", ")})
	}
	g.More = g.Products > len(g.Page)
}

func (lt *localeTally) report() []LocaleReport {
	if lt == nil {
		return nil
	}
	return lt.reports
}

// translatableField is a field of a product a translation translates: its
// stored key, its name as the tools say it, and its source.
type translatableField struct{ field, label, source string }

// translatable lists the product's fields whose source is not blank.
func translatable(p *vitrine.Product) []translatableField {
	var out []translatableField
	add := func(field, label, source string) {
		if strings.TrimSpace(source) != "" {
			out = append(out, translatableField{field, label, source})
		}
	}
	add(vitrine.FieldName, "name", p.Name)
	add(vitrine.FieldDescription, "description", p.Description)
	add(vitrine.FieldHandle, "handle", p.Handle)
	add(vitrine.FieldProductType, "product_type", p.ProductType)
	add(vitrine.FieldSEOTitle, "seo.title", p.SEO.Title)
	add(vitrine.FieldSEODescription, "seo.description", p.SEO.Description)
	for _, o := range p.Options {
		add(vitrine.OptionNameField(o.Name), "options."+o.Name+".name", o.Name)
		for _, v := range o.Values {
			add(vitrine.OptionValueField(o.Name, v), "options."+o.Name+".values."+v, v)
		}
	}
	return out
}
