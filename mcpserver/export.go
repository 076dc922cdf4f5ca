package mcpserver

import (
	"bytes"
	"context"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// exportTools take a catalog out the way import_products brings it in:
// a bounded part per call, each a whole file of its format.
func exportTools() []*Tool {
	return []*Tool{catalogTool(Tool{
		Name:        "export_products",
		Title:       "Export products",
		Description: "Export the products as JSON Lines or a Shopify CSV, up to 500 a call; pass next_cursor for more.",
		Toolset:     "inventory", Op: service.OpExportProducts, ReadOnly: true, Idempotent: true,
	}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.ExportProductsIn) (shapes.ExportProductsOut, error) {
		format := string(in.Format)
		if format != "jsonl" && format != "shopify" {
			return shapes.ExportProductsOut{}, vitrine.Invalid("format", "format must be jsonl or shopify")
		}
		var buf bytes.Buffer
		x, err := cat.NewProductExport(ctx, a, &buf, format, false)
		if err != nil {
			return shapes.ExportProductsOut{}, err
		}
		out := shapes.ExportProductsOut{Format: format}
		cursor := string(in.Cursor)
		for {
			n, next, err := x.Page(ctx, min(vitrine.MaxPageLimit, shapes.ExportMaxProducts-out.Products), cursor, nil)
			if err != nil {
				return shapes.ExportProductsOut{}, err
			}
			out.Products += n
			cursor = next
			if err := x.Close(); err != nil { // flushes: buf holds what the page wrote
				return shapes.ExportProductsOut{}, err
			}
			if next == "" || out.Products >= shapes.ExportMaxProducts || buf.Len() >= shapes.ExportMaxBytes {
				break
			}
		}
		out.Content, out.NextCursor = buf.String(), cursor
		return out, nil
	})}
}
