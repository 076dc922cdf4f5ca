package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/mcpserver/wire"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

type importRowOut struct {
	Index  int        `json:"index"`
	Line   int        `json:"line,omitempty" jsonschema:"The CSV line of the product's first row."`
	Handle string     `json:"handle,omitempty"`
	SKU    string     `json:"sku"`
	Status string     `json:"status" jsonschema:"created, updated, unchanged, error, or skipped (an atomic import failed)."`
	ID     string     `json:"id,omitempty"`
	Error  *errorBody `json:"error,omitempty" jsonschema:"As a tool's error."`
}

type importNoticeOut struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
	Lines   []int  `json:"lines,omitempty"`
}

type importOut struct {
	Created   int            `json:"created"`
	Updated   int            `json:"updated"`
	Unchanged int            `json:"unchanged"`
	Failed    int            `json:"failed"`
	Written   bool           `json:"written"`
	Rows      []importRowOut `json:"rows" jsonschema:"Every row; if too many, failed ones (*_omitted: left out)."`
	// RowsOmitted and NoticesOmitted say what a bounded answer left out.
	RowsOmitted    int               `json:"rows_omitted,omitempty"`
	Notices        []importNoticeOut `json:"notices,omitempty" jsonschema:"What is not kept, each kind once."`
	NoticesOmitted int               `json:"notices_omitted,omitempty"`
}

// The bounds of an import's answer when the caller does not ask for every
// row, in bytes of the result, which carries it twice (structured and as
// text, wire.ResultSize): its rows and notices, of which notices may take
// importNoticeBudget, the rest of 16 KiB left to the counts and the
// envelope; and the length of a message in it.
const (
	importBudget       = 14 << 10
	importNoticeBudget = 4 << 10
	importMessageMax   = 300
)

func importTools() []*Tool {
	t := catalogTool(Tool{
		Name:        "import_products",
		Title:       "Import products",
		Description: "Create up to 1000 products, or upsert them, each row with its own result. Reports progress.",
		Toolset:     "inventory", Op: service.OpImportProducts,
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
			if rows[i].Currency == "" {
				rows[i].Currency = string(in.Currency)
			}
		}
		sum, err := cat.ImportProducts(ctx, a, rows, string(in.Mode), in.Atomic, progressReporter(ctx))
		if err != nil {
			return importOut{}, err
		}
		return importResult(sum, nil, catalog.TextNotices(sum.Notices), in.Details), nil
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
// each row's line in a CSV. Unless details, the answer is bounded
// (importBudget) whatever the file: every row when all fit, else the
// failed ones that fit, and the kinds of notice that fit, each cut short;
// what is left out is counted.
func importResult(sum *catalog.ImportSummary, lines []int, notices []catalog.Notice, details bool) importOut {
	out := importOut{Created: sum.Created, Updated: sum.Updated, Unchanged: sum.Unchanged, Failed: sum.Failed, Written: sum.Written,
		Rows: []importRowOut{}}
	clip := func(s string) string {
		if details {
			return s
		}
		return vitrine.Clip(s, importMessageMax)
	}
	used := 0
	fits := func(v any, budget int) bool {
		if details {
			return true
		}
		n := wire.ResultSize(v) + 2
		if used+n > budget {
			return false
		}
		used += n
		return true
	}
	for _, n := range notices {
		no := importNoticeOut{Message: clip(n.Message), Count: n.Count, Lines: n.Lines}
		if !fits(no, importNoticeBudget) {
			out.NoticesOmitted = len(notices) - len(out.Notices)
			break
		}
		out.Notices = append(out.Notices, no)
	}
	rows := make([]importRowOut, len(sum.Results))
	size := 0
	for i, r := range sum.Results {
		rows[i] = importRowOut{Index: r.Index, Handle: r.Handle, SKU: r.SKU, Status: r.Status}
		if lines != nil {
			rows[i].Line = lines[i]
		}
		if r.Product != nil {
			rows[i].ID = r.Product.ID
		}
		if r.Err != nil {
			body := errorBodyOf(r.Err, "")
			body.Message = clip(body.Message)
			rows[i].Error = &body
		}
		if !details && size <= importBudget {
			size += wire.ResultSize(rows[i]) + 2
		}
	}
	if details || used+size <= importBudget {
		out.Rows = rows
		return out
	}
	for _, r := range rows {
		if r.Status != catalog.RowFailed {
			continue
		}
		if !fits(r, importBudget) {
			break
		}
		out.Rows = append(out.Rows, r)
	}
	out.RowsOmitted = len(rows) - len(out.Rows)
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
	res, err := cat.ImportShopifyAtMost(ctx, a, strings.NewReader(string(in.CSV)), string(in.Currency), string(in.Mode), in.Atomic, shapes.MaxImportRows, progressReporter(ctx))
	if err != nil {
		return importOut{}, err
	}
	return importResult(res.ImportSummary, res.Lines, res.Notices, in.Details), nil
}
