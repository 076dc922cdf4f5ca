package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/feed"
	"github.com/vitrine/vitrine/service"
)

// Shopper is the shop window's caller: anyone, anonymous, reading one
// company's open window. It is an explicit value, as the operator's Access
// is (a nil pointer never means a privilege): only OpenWindowBySlug and
// OpenWindowByDomain make one, for a window they find open, and it reads
// that company's published (active) products, its categories and the
// public definitions of its attributes, nothing else, on the query,
// paging and cursors of list_products. It holds no Access, and no
// operation that takes an Access takes it. A Shopper that was not made by
// them (the zero value) reads nothing.
type Shopper struct {
	cat    *Catalog
	tenant *vitrine.Tenant
	shop   *vitrine.Shop
	// in is the market whose window it reads, the zero value for the
	// company's own (marketwindow.go).
	in marketView
}

// OpenWindowBySlug returns the shopper of the open window of the company
// with that slug; a closed window, or none, is a NotFoundError, the same
// in every case.
func (s *Catalog) OpenWindowBySlug(ctx context.Context, slug string) (*Shopper, error) {
	return s.openWindow(s.store.OpenShopBySlug(ctx, slug))
}

// OpenWindowByDomain returns the shopper of the open window served at
// that host name, as OpenWindowBySlug does.
// A host that no company's window is served at may be a market's own: its
// window is then that market's.
func (s *Catalog) OpenWindowByDomain(ctx context.Context, domain string) (*Shopper, error) {
	sh, err := s.openWindow(s.store.OpenShopByDomain(ctx, domain))
	if vitrine.TypeOf(err) != vitrine.NotFoundError {
		return sh, err
	}
	t, shop, m, err := s.store.OpenMarketByDomain(ctx, domain)
	if err != nil {
		return nil, err
	}
	if sh, err = s.openWindow(t, shop, nil); err != nil {
		return nil, err
	}
	cats, err := s.store.Categories(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	wm, err := newWindowMarket(m, cats)
	if err != nil {
		return nil, err
	}
	sh.in = marketView{market: wm}
	return sh, nil
}

func (s *Catalog) openWindow(t *vitrine.Tenant, shop *vitrine.Shop, err error) (*Shopper, error) {
	if err != nil {
		return nil, err
	}
	if t == nil || shop == nil || !shop.Open || shop.TenantID != t.ID {
		return nil, vitrine.NotFound("Shop")
	}
	return &Shopper{cat: s, tenant: t, shop: shop}, nil
}

// Tenant is the window's company.
func (sh *Shopper) Tenant() *vitrine.Tenant { return sh.tenant }

// Shop is the window's settings.
func (sh *Shopper) Shop() *vitrine.Shop { return sh.shop }

// tenantID is the company the shopper reads, or an error for a shopper
// that OpenWindow did not make.
func (sh *Shopper) tenantID() (string, error) {
	if sh == nil || sh.cat == nil || sh.tenant == nil {
		return "", vitrine.ErrPermissionDenied
	}
	return sh.tenant.ID, nil
}

// published reports whether a product is the window's company's, and
// active: what its feeds read (each feed then applies its channel's
// rules). The store's queries ask for both; this holds it whatever path a
// product came by.
func (sh *Shopper) published(p *vitrine.Product) bool {
	return p != nil && p.TenantID == sh.tenant.ID && p.Status == vitrine.ProductActive && sh.inMarket(p)
}

// shown reports whether the window's search, lookups and pages may show a
// product: published, and ready for UCP by the channel's rules, the very
// rule check_shop reports (feed.Problems, channel ucp: a product without
// a description is refused by both).
func (sh *Shopper) shown(p *vitrine.Product) bool {
	return sh.published(p) && len(feed.Problems(vitrine.ChannelUCP, &feed.Window{Tenant: sh.tenant, Shop: sh.shop}, p)) == 0
}

// Stamp returns what changes whenever anything the window shows changes:
// its answers and feeds are tagged by it.
func (sh *Shopper) Stamp(ctx context.Context) (string, error) {
	id, err := sh.tenantID()
	if err != nil {
		return "", err
	}
	stamp, err := sh.cat.store.CatalogStamp(ctx, id)
	if err != nil || sh.in.market == nil {
		return stamp, err
	}
	// A market's window: its own version too (every write of a market
	// moves the catalog's sequence as well).
	return stamp + "-" + sh.in.market.Handle + "." + sh.in.market.Stamp, nil
}

// PublicAttributes returns the definitions of the company's attributes
// that the window shows: the public ones.
func (sh *Shopper) PublicAttributes(ctx context.Context) ([]*vitrine.Attribute, error) {
	id, err := sh.tenantID()
	if err != nil {
		return nil, err
	}
	defs, err := sh.cat.store.Attributes(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []*vitrine.Attribute
	for _, d := range defs {
		if d.Public {
			out = append(out, d)
		}
	}
	return sh.attributesInShopperLocale(ctx, out)
}

// Categories returns the company's categories, in the shopper's locale.
func (sh *Shopper) Categories(ctx context.Context) ([]*vitrine.Category, error) {
	cats, err := sh.SourceCategories(ctx)
	if err != nil {
		return nil, err
	}
	return sh.categoriesInShopperLocale(ctx, cats)
}

// SourceCategories returns the company's categories as they are written,
// in its default locale: a filter may name one so in any locale.
func (sh *Shopper) SourceCategories(ctx context.Context) ([]*vitrine.Category, error) {
	id, err := sh.tenantID()
	if err != nil {
		return nil, err
	}
	return sh.cat.store.Categories(ctx, id)
}

// ShownCategories returns the company's categories that hold an active
// product, in them or under them, in the order Categories gives: a
// category of drafts or archived products alone is not the public's to
// know of. At most vitrine.MaxFacetValues, those of the most products
// (the categories facet of the active products counts them).
func (sh *Shopper) ShownCategories(ctx context.Context) ([]*vitrine.Category, error) {
	id, err := sh.tenantID()
	if err != nil {
		return nil, err
	}
	q := vitrine.ProductQuery{Status: vitrine.ProductActive, Facets: []vitrine.FacetName{vitrine.FacetCategories}, Among: sh.among()}
	f, err := sh.cat.filter(ctx, id, q, 1)
	if err != nil {
		return nil, err
	}
	found, err := sh.cat.store.FindProducts(ctx, id, f.Page(1, nil))
	if err != nil {
		return nil, err
	}
	holding := map[string]bool{}
	if found.Facets != nil {
		for _, v := range found.Facets.Values[vitrine.FacetCategories] {
			holding[v.Value] = true
		}
	}
	all, err := sh.cat.store.Categories(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]*vitrine.Category, 0, len(holding))
	for _, c := range all {
		if holding[c.ID] {
			out = append(out, c)
		}
	}
	return sh.categoriesInShopperLocale(ctx, out)
}

// SearchText checks the text of a window's search as list_products checks
// a query's, and reports whether it holds words to search by: a text
// without a letter or a digit searches by the filters alone.
func (sh *Shopper) SearchText(text string) (words bool, err error) {
	ws, err := vitrine.QueryWords(strings.TrimSpace(text), sh.QueryLocale())
	return len(ws) > 0, err
}

// QueryLocale is the locale whose language reads the window's search: the
// shopper's, else the company's default.
func (sh *Shopper) QueryLocale() string {
	if l := sh.Locale(); l != "" || sh.tenant == nil {
		return l
	}
	return sh.tenant.DefaultLanguage()
}

// Search returns a page of limit of the window's products that q keeps
// (its query, category and prices; whatever its status says, active
// products only), in its order, after cursor's position: list_products'
// query, paging and store read. The cursor is the window's own, signed
// over the filter and the price bounds.
func (sh *Shopper) Search(ctx context.Context, q vitrine.ProductQuery, limit int, cursor string) (*ProductPage, error) {
	id, err := sh.tenantID()
	if err != nil {
		return nil, err
	}
	q.Query = vitrine.QueryText(strings.TrimSpace(string(q.Query)))
	q.Status = vitrine.ProductActive
	if l := sh.Locale(); l != "" && l != sh.tenant.DefaultLanguage() {
		q.Locale = vitrine.LocaleTag(l) // the query read in the window's language
	}
	q.Among = sh.among()
	if q.MarketPrices != nil {
		if q.MarketPrices, err = sh.marketPrices(q.MarketPrices); err != nil {
			return nil, err
		}
	}
	f, err := sh.cat.filter(ctx, id, q, limit)
	if err != nil {
		return nil, err
	}
	// The cursor belongs to this window and this search.
	scope := "shop\x00" + id + "\x00" + string(f.Canonical()) + "\x00" + bound(f.MinMinor()) + "\x00" + bound(f.MaxMinor())
	pg, err := service.OpenPage[vitrine.ProductKey](ctx, sh.cat.svc, scope, limit, cursor)
	if err != nil {
		return nil, err
	}
	found, err := sh.cat.store.FindProducts(ctx, id, f.Page(pg.Fetch(), pg.After))
	if err != nil {
		return nil, err
	}
	page := &ProductPage{}
	ps, next := service.ClosePage(pg, found.Products, func(i int) vitrine.ProductKey { return found.Keys[i] })
	page.NextCursor = next
	for i, p := range ps {
		if sh.shown(p) {
			page.Products, page.Shown = append(page.Products, p), append(page.Shown, found.Shown[i])
		}
	}
	if page.Products, page.Shown, err = sh.priced(ctx, page.Products, page.Shown); err != nil {
		return nil, err
	}
	if q.MarketPrices != nil {
		// The store picked each row's variant at the catalog's prices:
		// pick it at the market's.
		for i, p := range page.Products {
			page.Shown[i] = f.ShownVariant(p)
		}
	}
	return page, sh.pageInShopperLocale(ctx, page)
}

func bound(b *int64) string {
	if b == nil {
		return ""
	}
	return fmt.Sprint(*b)
}

// PublishedProducts returns limit of the company's active products in the
// order they were created, after the product of id after ("" for the
// first page): what the window's feeds read. tenantID must be the
// window's.
func (sh *Shopper) PublishedProducts(ctx context.Context, tenantID, after string, limit int) ([]*vitrine.Product, error) {
	id, err := sh.tenantID()
	if err != nil {
		return nil, err
	}
	if tenantID != id {
		return nil, vitrine.ErrPermissionDenied
	}
	f, err := vitrine.NewProductFilter(vitrine.ProductQuery{Status: vitrine.ProductActive, Sort: vitrine.SortCreated, Among: sh.among()})
	if err != nil {
		return nil, err
	}
	var from *vitrine.ProductKey
	if after != "" {
		from = &vitrine.ProductKey{ID: after}
	}
	ps, err := sh.cat.store.ListProducts(ctx, id, f.Page(limit, from))
	if err != nil {
		return nil, err
	}
	out := ps[:0]
	for _, p := range ps {
		if sh.published(p) {
			out = append(out, p)
		}
	}
	if out, _, err = sh.priced(ctx, out, nil); err != nil {
		return nil, err
	}
	return sh.inShopperLocale(ctx, out)
}

// ShownProducts returns the products the window shows among limit of its
// published ones in the order they were created, after the product of id
// after ("" for the first page), and the id to read on from ("" after the
// last): what its sitemap lists.
func (sh *Shopper) ShownProducts(ctx context.Context, after string, limit int) ([]*vitrine.Product, string, error) {
	id, err := sh.tenantID()
	if err != nil {
		return nil, "", err
	}
	ps, err := sh.PublishedProducts(ctx, id, after, limit)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(ps) == limit {
		next = ps[len(ps)-1].ID
	}
	out := ps[:0]
	for _, p := range ps {
		if sh.shown(p) {
			out = append(out, p)
		}
	}
	return out, next, nil
}

// Browse returns a page of limit of the window's products by name, after
// cursor's position: its home page without a search. Its cursors are the
// home page's own.
func (sh *Shopper) Browse(ctx context.Context, limit int, cursor string) (*ProductPage, error) {
	id, err := sh.tenantID()
	if err != nil {
		return nil, err
	}
	f, err := vitrine.NewProductFilter(vitrine.ProductQuery{Status: vitrine.ProductActive, Sort: vitrine.SortName, Among: sh.among()})
	if err != nil {
		return nil, err
	}
	scope := "shop-home\x00" + id + "\x00" + string(f.Canonical())
	pg, err := service.OpenPage[vitrine.ProductKey](ctx, sh.cat.svc, scope, limit, cursor)
	if err != nil {
		return nil, err
	}
	found, err := sh.cat.store.FindProducts(ctx, id, f.Page(pg.Fetch(), pg.After))
	if err != nil {
		return nil, err
	}
	ps, next := service.ClosePage(pg, found.Products, func(i int) vitrine.ProductKey { return found.Keys[i] })
	page := &ProductPage{NextCursor: next}
	for _, p := range ps {
		if sh.shown(p) {
			page.Products = append(page.Products, p)
		}
	}
	if page.Products, _, err = sh.priced(ctx, page.Products, nil); err != nil {
		return nil, err
	}
	return page, sh.pageInShopperLocale(ctx, page)
}

// ProductByHandle returns the product of that handle (any case) if the
// window shows it; nil otherwise.
func (sh *Shopper) ProductByHandle(ctx context.Context, handle string) (*vitrine.Product, error) {
	_, err := sh.tenantID()
	if err != nil {
		return nil, err
	}
	h := strings.ToLower(handle)
	found, err := sh.productsByHandle(ctx, []string{h})
	if err != nil {
		return nil, err
	}
	if p := found[h]; sh.shown(p) {
		if p, err = sh.pricedOne(ctx, p); p == nil || err != nil {
			return nil, err
		}
		return sh.inShopperLocaleOne(ctx, p)
	}
	return nil, nil
}

// Product finds the one product an identifier names: a product id, a
// variant id, a SKU or a handle. variantID is set when it named a variant
// (id or SKU). A product the window does not show is not found: nil, and
// no error.
func (sh *Shopper) Product(ctx context.Context, ident string) (p *vitrine.Product, variantID string, err error) {
	tenant, err := sh.tenantID()
	if err != nil {
		return nil, "", err
	}
	st := sh.cat.store
	if vitrine.ValidID(ident) {
		p, err = st.ProductByID(ctx, tenant, ident)
		if vitrine.TypeOf(err) == vitrine.NotFoundError {
			p, err = st.ProductByVariant(ctx, tenant, ident)
			variantID = ident
		}
	} else {
		p, err = st.ProductBySKU(ctx, tenant, ident)
		if err == nil {
			for _, v := range p.Variants {
				if strings.EqualFold(v.SKU, ident) {
					variantID = v.ID
				}
			}
		}
		if vitrine.TypeOf(err) == vitrine.NotFoundError {
			var found map[string]*vitrine.Product
			found, err = sh.productsByHandle(ctx, []string{strings.ToLower(ident)})
			p = found[strings.ToLower(ident)]
			if err == nil && p == nil {
				err = vitrine.NotFound("Product")
			}
		}
	}
	if vitrine.TypeOf(err) == vitrine.NotFoundError || (err == nil && !sh.shown(p)) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	if p, err = sh.pricedOne(ctx, p); p == nil || err != nil {
		return nil, "", err
	}
	p, err = sh.inShopperLocaleOne(ctx, p)
	return p, variantID, err
}

// Found is what one identifier of a lookup names: a product, and the
// variant when it named one; nothing when the window shows none.
type Found struct {
	Product   *vitrine.Product
	VariantID string
}

// Products resolves a lookup's identifiers as Product does each: ids by
// the product, then the variant, each; the others (SKUs, handles) in two
// batches, whatever their number: a lookup of 50 SKUs is two queries, not
// 100.
func (sh *Shopper) Products(ctx context.Context, idents []string) (_ map[string]Found, err error) {
	tenant, err := sh.tenantID()
	if err != nil {
		return nil, err
	}
	out := make(map[string]Found, len(idents))
	var names []string
	for _, id := range idents {
		if !vitrine.ValidID(id) {
			names = append(names, id)
			continue
		}
		p, variantID, err := sh.Product(ctx, id)
		if err != nil {
			return nil, err
		}
		out[id] = Found{p, variantID}
	}
	if len(names) == 0 {
		return out, nil
	}
	bySKU, err := sh.cat.store.ProductsBySKU(ctx, tenant, names)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err == nil {
			err = sh.namesInShopperLocale(ctx, names, out)
		}
	}()
	var handles []string
	for _, id := range names {
		if p := bySKU[vitrine.SKUKey(id)]; p != nil {
			for _, v := range p.Variants {
				if v.SKU != "" && vitrine.SKUKey(v.SKU) == vitrine.SKUKey(id) && sh.shown(p) {
					out[id] = Found{p, v.ID}
				}
			}
		}
		if out[id].Product == nil {
			handles = append(handles, strings.ToLower(id))
		}
	}
	if len(handles) == 0 {
		return out, sh.pricedFound(ctx, out, names)
	}
	byHandle, err := sh.productsByHandle(ctx, handles)
	if err != nil {
		return nil, err
	}
	for _, id := range names {
		if p := byHandle[strings.ToLower(id)]; out[id].Product == nil && sh.shown(p) {
			out[id] = Found{Product: p}
		}
	}
	return out, sh.pricedFound(ctx, out, names)
}

// pricedOne is p as the shopper's market sells it (priced); nil when its
// prices cannot be converted.
func (sh *Shopper) pricedOne(ctx context.Context, p *vitrine.Product) (*vitrine.Product, error) {
	ps, _, err := sh.priced(ctx, []*vitrine.Product{p}, nil)
	if err != nil || len(ps) == 0 {
		return nil, err
	}
	return ps[0], nil
}

// pricedFound prices the products that the identifiers names found in the
// store (the others, by id, came priced by Product), in one read.
func (sh *Shopper) pricedFound(ctx context.Context, out map[string]Found, names []string) error {
	if sh.in.market == nil {
		return nil
	}
	var ps []*vitrine.Product
	for _, id := range names {
		if p := out[id].Product; p != nil && !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	priced, _, err := sh.priced(ctx, ps, nil)
	if err != nil {
		return err
	}
	byID := make(map[string]*vitrine.Product, len(priced))
	for _, p := range priced {
		byID[p.ID] = p
	}
	for _, id := range names {
		if f := out[id]; f.Product != nil {
			if p := byID[f.Product.ID]; p != nil {
				out[id] = Found{Product: p, VariantID: f.VariantID}
			} else {
				delete(out, id)
			}
		}
	}
	return nil
}
