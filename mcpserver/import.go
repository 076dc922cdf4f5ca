package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

func importTools() []*Tool {
	t := catalogTool(Tool{
		Name:        "import_products",
		Title:       "Import products",
		Description: "Create up to 1000 products, or upsert them, each row with its own result. Reports progress.",
		Toolset:     "inventory", Op: service.OpImportProducts,
	}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.ImportIn) (shapes.ImportOut, error) {
		if in.Format == "shopify" {
			return importShopify(ctx, cat, a, in)
		}
		if in.CSV != "" {
			return shapes.ImportOut{}, vitrine.Invalid("csv", "csv holds a Shopify export: give format \"shopify\" with it, or rows in products")
		}
		if len(in.Products) == 0 {
			return shapes.ImportOut{}, vitrine.Invalid("products", "products must hold at least one row (or give format \"shopify\" and csv)")
		}
		rows := make([]catalog.ImportRow, len(in.Products))
		for i, r := range in.Products {
			rows[i] = catalog.ImportRow{NewProduct: r.NewProduct(), Given: r.GivenFields()}
			if rows[i].Currency == "" {
				rows[i].Currency = string(in.Currency)
			}
		}
		sum, err := cat.ImportProducts(ctx, a, rows, string(in.Mode), in.Atomic, progressReporter(ctx))
		if err != nil {
			return shapes.ImportOut{}, err
		}
		return shapes.ImportAnswer(sum, nil, catalog.TextNotices(sum.Notices), in.Details, errorBodyOf), nil
	})
	derived := t.schemas
	t.schemas = sync.OnceValue(func() toolSchemas {
		s := derived()
		rows := s.in.Properties["products"]
		rows.MaxItems = ptr(shapes.MaxImportRows)
		return s
	})
	return []*Tool{t}
}

// progressReporter returns a function that sends the call's progress
// notifications, or nil when the client asked for none.
func progressReporter(ctx context.Context) func(done, total int) {
	req := requestFrom(ctx)
	if req == nil || req.Session == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	return func(done, total int) {
		// A lost notification must not fail the import.
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
			Progress: float64(done), Total: float64(total), Message: fmt.Sprintf("%d of %d rows written", done, total)})
	}
}

// importShopify imports the Shopify product CSV of in.CSV.
func importShopify(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.ImportIn) (shapes.ImportOut, error) {
	if len(in.Products) > 0 {
		return shapes.ImportOut{}, vitrine.Invalid("products", "give either products or a Shopify csv, not both")
	}
	if in.CSV == "" {
		return shapes.ImportOut{}, vitrine.Invalid("csv", "csv must hold the Shopify product CSV export, header first")
	}
	// A file is bounded as rows are: at most MaxImportRows products a call.
	res, err := cat.ImportShopifyAtMost(ctx, a, strings.NewReader(string(in.CSV)), string(in.Currency), string(in.Mode), in.Atomic, shapes.MaxImportRows, progressReporter(ctx))
	if err != nil {
		return shapes.ImportOut{}, err
	}
	return shapes.ImportAnswer(res.ImportSummary, res.Lines, res.Notices, in.Details, errorBodyOf), nil
}
