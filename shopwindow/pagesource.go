package shopwindow

import (
	"context"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// What the pages read of a window's catalog, beyond the operations UCP's
// catalog shares with them (search, the view of a product).

// stamp is the catalog's stamp, which tags the pages.
func (c *catalog) stamp(ctx context.Context, win *Window) (string, error) {
	return c.store.CatalogStamp(ctx, win.Tenant.ID)
}

// categories are the company's categories.
func (c *catalog) categories(ctx context.Context, win *Window) ([]*vitrine.Category, error) {
	return c.store.Categories(ctx, win.Tenant.ID)
}

// attributeNames names the company's public attributes, by key.
func (c *catalog) attributeNames(ctx context.Context, win *Window) (map[string]string, error) {
	defs, err := c.store.Attributes(ctx, win.Tenant.ID)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, d := range defs {
		if d.Public {
			out[d.Key] = d.Name
		}
	}
	return out, nil
}

// browse lists the window's active products by name, a page at a time:
// the home page without a search, as search_catalog lists them.
func (c *catalog) browse(ctx context.Context, win *Window, cursor string, limit int) (*searchResponse, error) {
	f := vitrine.ProductFilter{Status: vitrine.ProductActive, Sort: vitrine.SortName}
	scope := "shop-home\x00" + win.Tenant.ID + "\x00" + string(f.Canonical())
	pg, err := service.OpenPage[vitrine.ProductKey](ctx, c.svc, scope, limit, cursor)
	if err != nil {
		if vitrine.TypeOf(err) == vitrine.ValidationError {
			return nil, invalid("This page's link is out of date: start again from the first page.")
		}
		return nil, err
	}
	f.After, f.Limit = pg.After, pg.Fetch()
	found, err := c.store.FindProducts(ctx, win.Tenant.ID, f)
	if err != nil {
		return nil, err
	}
	ps, next := service.ClosePage(pg, found.Products, func(i int) vitrine.ProductKey { return found.Keys[i] })
	v, err := c.newView(ctx, win, ps)
	if err != nil {
		return nil, err
	}
	out := &searchResponse{Products: make([]*product, 0, len(ps)), Pagination: &pagination{Cursor: next, HasNextPage: next != ""}}
	for _, p := range ps {
		if shown(win, p) {
			out.Products = append(out.Products, v.listed(p, &filter{}))
		}
	}
	return out, nil
}

// productByHandle is the active product of the window's company with that
// handle; nil for any other.
func (c *catalog) productByHandle(ctx context.Context, win *Window, handle string) (*vitrine.Product, error) {
	h := strings.ToLower(handle)
	found, err := c.store.ProductsByHandle(ctx, win.Tenant.ID, []string{h})
	if err != nil {
		return nil, err
	}
	if p := found[h]; shown(win, p) {
		return p, nil
	}
	return nil, nil
}

// publishedProducts are the window's active products after the one of id
// after (from the first with ""), in the order they were created, and the
// id to read on from ("" after the last).
func (c *catalog) publishedProducts(ctx context.Context, win *Window, after string, limit int) ([]*vitrine.Product, string, error) {
	f := vitrine.ProductFilter{Status: vitrine.ProductActive, Sort: vitrine.SortCreated, Limit: limit}
	if after != "" {
		f.After = &vitrine.ProductKey{ID: after}
	}
	ps, err := c.store.ListProducts(ctx, win.Tenant.ID, f)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(ps) == limit {
		next = ps[len(ps)-1].ID
	}
	out := ps[:0]
	for _, p := range ps {
		if shown(win, p) {
			out = append(out, p)
		}
	}
	return out, next, nil
}
