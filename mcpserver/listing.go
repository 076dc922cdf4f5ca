package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// listingTools are the tools that list the catalog: list_products.
func listingTools() []*Tool {
	return []*Tool{
		catalogTool(Tool{
			Name:        "list_products",
			Title:       "List products",
			Description: "A company's products, a page at a time, filtered, with facet counts if asked.",
			Toolset:     "products", Op: service.OpListProducts, ReadOnly: true, Idempotent: true,
			Localized: fieldNames{args: []string{"locale", "untranslated"}},
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.ListProductsIn) (shapes.ListProductsOut, error) {
			page, err := cat.ListProducts(ctx, a, in.ProductQuery, int(in.PageSize), string(in.Cursor))
			if err != nil {
				return shapes.ListProductsOut{}, err
			}
			out := shapes.ListProductsOut{Products: make([]shapes.ProductRow, 0, len(page.Products)), NextCursor: page.NextCursor}
			if f := shapes.FacetsView(page.Facets, in.Facets); f != nil {
				out.Facets = f
			}
			for i, p := range page.Products {
				out.Products = append(out.Products, shapes.ProductRowView(p, page.Shown[i], in.Detail == "full"))
			}
			return out, nil
		}),
	}
}
