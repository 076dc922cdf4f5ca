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

type importRowOut struct {
	Index  int        `json:"index"`
	Line   int        `json:"line,omitempty" jsonschema:"The CSV line of the product's first row."`
	Handle string     `json:"handle,omitempty"`
	SKU    string     `json:"sku"`
	Status string     `json:"status" jsonschema:"created, updated, error, or skipped (an atomic import failed)."`
	ID     string     `json:"id,omitempty"`
	Error  *errorBody `json:"error,omitempty" jsonschema:"As a tool's error."`
}

type importOut struct {
	Created int            `json:"created"`
	Updated int            `json:"updated"`
	Failed  int            `json:"failed"`
	Written bool           `json:"written"`
	Rows    []importRowOut `json:"rows"`
	Notices []string       `json:"notices,omitempty" jsonschema:"What the file holds that Vitrine does not keep, once each."`
}

func importTools() []*Tool {
	t := catalogTool(Tool{
		Name:  "import_products",
		Title: "Import products",
		Description: "Create up to 1000 products, or create and update them by SKU (upsert), each row with its own " +
			"result. Reports progress.",
		Toolset: "inventory", Op: service.OpImportProducts,
	}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.ImportIn) (importOut, error) {
		if in.Format == "shopify" {
			return importShopify(ctx, cat, a, in)
		}
		if in.CSV != "" {
			return importOut{}, vitrine.Invalid("csv", "csv holds a Shopify export: give format \"shopify\" with it, or rows in products")
		}
		if len(in.Products) == 0 {
			return importOut{}, vitrine.Invalid("products", "products must hold at least one row (or give format \"shopify\" and csv)")
		}
		rows := make([]catalog.ImportRow, len(in.Products))
		for i, r := range in.Products {
			rows[i] = catalog.ImportRow{NewProduct: r.NewProduct(), Given: r.GivenFields()}
		}
		sum, err := cat.ImportProducts(ctx, a, rows, string(in.Mode), in.Atomic, progressReporter(ctx))
		if err != nil {
			return importOut{}, err
		}
		return importResult(sum, nil, nil), nil
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

// importResult is an import's summary as the tool returns it; lines gives
// each row's line in a CSV.
func importResult(sum *catalog.ImportSummary, lines []int, notices []string) importOut {
	out := importOut{Created: sum.Created, Updated: sum.Updated, Failed: sum.Failed, Written: sum.Written,
		Rows: make([]importRowOut, len(sum.Results)), Notices: notices}
	for i, r := range sum.Results {
		out.Rows[i] = importRowOut{Index: r.Index, Handle: r.Handle, SKU: r.SKU, Status: r.Status}
		if lines != nil {
			out.Rows[i].Line = lines[i]
		}
		if r.Product != nil {
			out.Rows[i].ID = r.Product.ID
		}
		if r.Err != nil {
			body := errorBodyOf(r.Err, "")
			out.Rows[i].Error = &body
		}
	}
	return out
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
func importShopify(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.ImportIn) (importOut, error) {
	if len(in.Products) > 0 {
		return importOut{}, vitrine.Invalid("products", "give either products or a Shopify csv, not both")
	}
	if in.CSV == "" {
		return importOut{}, vitrine.Invalid("csv", "csv must hold the Shopify product CSV export, header first")
	}
	// A file is bounded as rows are: at most MaxImportRows products a call.
	res, err := cat.ImportShopifyAtMost(ctx, a, strings.NewReader(string(in.CSV)), "", string(in.Mode), in.Atomic, shapes.MaxImportRows, progressReporter(ctx))
	if err != nil {
		return importOut{}, err
	}
	return importResult(res.ImportSummary, res.Lines, res.Notices), nil
}
