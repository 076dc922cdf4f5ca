package shopwindow

import (
	"context"

	"github.com/vitrine/vitrine"
)

// What the pages read of a window's catalog, beyond the operations UCP's
// catalog shares with them (search, the view of a product): through the
// window's Shopper, as those operations do.

// stamp is the catalog's stamp, which tags the pages.
func (c *catalog) stamp(ctx context.Context, win *Window) (string, error) {
	return win.reader.Stamp(ctx)
}

// categories are the company's categories.
func (c *catalog) categories(ctx context.Context, win *Window) ([]*vitrine.Category, error) {
	return win.reader.Categories(ctx)
}

// attributeNames names the company's public attributes, by key.
func (c *catalog) attributeNames(ctx context.Context, win *Window) (map[string]string, error) {
	defs, err := win.reader.PublicAttributes(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, d := range defs {
		out[d.Key] = d.Name
	}
	return out, nil
}

// browse lists the window's active products by name, a page at a time:
// the home page without a search, as search_catalog lists them.
func (c *catalog) browse(ctx context.Context, win *Window, cursor string, limit int) (*searchResponse, error) {
	page, err := win.reader.Browse(ctx, limit, cursor)
	if err != nil {
		if vitrine.TypeOf(err) == vitrine.ValidationError {
			return nil, invalid("This page's link is out of date: start again from the first page.")
		}
		return nil, err
	}
	v, err := c.newView(ctx, win, page.Products)
	if err != nil {
		return nil, err
	}
	out := &searchResponse{Products: make([]*product, 0, len(page.Products)), Pagination: &pagination{Cursor: page.NextCursor, HasNextPage: page.NextCursor != ""}}
	for _, p := range page.Products {
		out.Products = append(out.Products, v.listed(p, &filter{}))
	}
	return out, nil
}

// productByHandle is the product of the window's company with that handle
// that the window shows; nil for any other.
func (c *catalog) productByHandle(ctx context.Context, win *Window, handle string) (*vitrine.Product, error) {
	return win.reader.ProductByHandle(ctx, handle)
}

// publishedProducts are the window's shown products among those after the
// one of id after (from the first with ""), in the order they were
// created, and the id to read on from ("" after the last).
func (c *catalog) publishedProducts(ctx context.Context, win *Window, after string, limit int) ([]*vitrine.Product, string, error) {
	return win.reader.ShownProducts(ctx, after, limit)
}
