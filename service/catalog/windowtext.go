package catalog

import (
	"context"

	"github.com/vitrine/vitrine"
)

// inShopperLocale returns the products with their text in the locale the
// shopper reads (Locale), each field untranslated there the company's
// default; as they are for a window of the company's default locale, or
// of a company of one locale.
func (sh *Shopper) inShopperLocale(ctx context.Context, ps []*vitrine.Product) ([]*vitrine.Product, error) {
	l := sh.Locale()
	if l == "" || len(ps) == 0 || l == sh.tenant.DefaultLanguage() {
		return ps, nil
	}
	return sh.cat.inLocale(ctx, sh.tenant, l, ps)
}

// inShopperLocaleOne is inShopperLocale of one product (nil stays nil).
func (sh *Shopper) inShopperLocaleOne(ctx context.Context, p *vitrine.Product) (*vitrine.Product, error) {
	if p == nil {
		return nil, nil
	}
	ps, err := sh.inShopperLocale(ctx, []*vitrine.Product{p})
	if err != nil {
		return nil, err
	}
	return ps[0], nil
}

// pageInShopperLocale puts a window's page in the shopper's locale, each
// row's variant with its product.
func (sh *Shopper) pageInShopperLocale(ctx context.Context, page *ProductPage) error {
	l := sh.Locale()
	if l == "" || len(page.Products) == 0 || l == sh.tenant.DefaultLanguage() {
		return nil
	}
	if page.Shown == nil {
		ps, err := sh.cat.inLocale(ctx, sh.tenant, l, page.Products)
		page.Products = ps
		return err
	}
	return sh.cat.pageInLocale(ctx, sh.tenant.ID, l, page)
}

// namesInShopperLocale puts in the shopper's locale the products found by
// those identifiers (SKUs and handles: Product puts those of ids).
func (sh *Shopper) namesInShopperLocale(ctx context.Context, names []string, out map[string]Found) error {
	var ps []*vitrine.Product
	for _, n := range names {
		if p := out[n].Product; p != nil {
			ps = append(ps, p)
		}
	}
	tr, err := sh.inShopperLocale(ctx, ps)
	if err != nil {
		return err
	}
	i := 0
	for _, n := range names {
		if f := out[n]; f.Product != nil {
			f.Product = tr[i]
			out[n] = f
			i++
		}
	}
	return nil
}

// productsByHandle returns the products of those handles (lower case), by
// handle, as the window's locale names them: a handle translated in it
// names its product first, then a product's own handle (the default
// locale's, which names it in every locale). What the window may show of
// them is the caller's to check.
func (sh *Shopper) productsByHandle(ctx context.Context, handles []string) (map[string]*vitrine.Product, error) {
	st := sh.cat.store
	out := map[string]*vitrine.Product{}
	rest := handles
	if l := sh.Locale(); l != "" && l != sh.tenant.DefaultLanguage() {
		ids, err := st.TranslatedHandles(ctx, sh.tenant.ID, vitrine.TranslateProduct, l, handles)
		if err != nil {
			return nil, err
		}
		rest = nil
		for _, h := range handles {
			id, ok := ids[h]
			if !ok {
				rest = append(rest, h)
				continue
			}
			p, err := st.ProductByID(ctx, sh.tenant.ID, id)
			if vitrine.TypeOf(err) == vitrine.NotFoundError {
				continue
			}
			if err != nil {
				return nil, err
			}
			out[h] = p
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	found, err := st.ProductsByHandle(ctx, sh.tenant.ID, rest)
	if err != nil {
		return nil, err
	}
	for h, p := range found {
		out[h] = p
	}
	return out, nil
}

// translationsInShopperLocale reads the translations of resources of one
// kind in the shopper's locale, by id; none in the company's default.
func (sh *Shopper) translationsInShopperLocale(ctx context.Context, resource vitrine.TranslationResource, ids []string) (map[string]vitrine.Translations, error) {
	l := sh.Locale()
	if l == "" || len(ids) == 0 || l == sh.tenant.DefaultLanguage() {
		return nil, nil
	}
	all, err := sh.cat.store.Translations(ctx, sh.tenant.ID, resource, ids, l)
	if err != nil {
		return nil, err
	}
	out := make(map[string]vitrine.Translations, len(all))
	for id, ts := range all {
		out[id] = vitrine.TranslationsOf(ts)
	}
	return out, nil
}

// categoriesInShopperLocale returns the categories with their names and
// handles in the shopper's locale, each untranslated one its own.
func (sh *Shopper) categoriesInShopperLocale(ctx context.Context, cats []*vitrine.Category) ([]*vitrine.Category, error) {
	ids := make([]string, len(cats))
	for i, c := range cats {
		ids[i] = c.ID
	}
	ts, err := sh.translationsInShopperLocale(ctx, vitrine.TranslateCategory, ids)
	if err != nil || ts == nil {
		return cats, err
	}
	out := make([]*vitrine.Category, len(cats))
	for i, c := range cats {
		out[i] = c.Translated(ts[c.ID])
	}
	return out, nil
}

// attributesInShopperLocale returns the attribute definitions with their
// names in the shopper's locale, each untranslated one its own.
func (sh *Shopper) attributesInShopperLocale(ctx context.Context, defs []*vitrine.Attribute) ([]*vitrine.Attribute, error) {
	keys := make([]string, len(defs))
	for i, d := range defs {
		keys[i] = d.Key
	}
	ts, err := sh.translationsInShopperLocale(ctx, vitrine.TranslateAttribute, keys)
	if err != nil || ts == nil {
		return defs, err
	}
	out := make([]*vitrine.Attribute, len(defs))
	for i, d := range defs {
		out[i] = d.Translated(ts[d.Key])
	}
	return out, nil
}
