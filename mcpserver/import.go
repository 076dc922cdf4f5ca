package mcpserver

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/service"
)

type (
	importMode string
	importRows []importRowIn // bounded to MaxImportRows in importTools
)

// MaxImportRows bounds the rows of one import_products call.
const MaxImportRows = 1000

type importRowIn struct {
	SKU         sku            `json:"sku"`
	Name        shortText      `json:"name"`
	Price       decimal        `json:"price"`
	Description *longText      `json:"description,omitempty"`
	Currency    *currencyCode  `json:"currency,omitempty" jsonschema:"Default: BRL, or the product's own in an update."`
	Stock       *stockLevel    `json:"stock,omitempty"`
	Status      *productStatus `json:"status,omitempty"`
}

type importIn struct {
	TenantArg
	Products importRows `json:"products"`
	Mode     importMode `json:"mode,omitempty" jsonschema:"upsert: a SKU that exists updates its product, keeping fields left out. Default: create (an error)."`
	Atomic   bool       `json:"atomic,omitempty" jsonschema:"true: one failed row writes nothing."`
}

type importRowOut struct {
	Index  int        `json:"index"`
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
}

func importTools(svc *service.Service) []*Tool {
	t := tenantTool(svc, Tool{
		Name:  "import_products",
		Title: "Import products",
		Description: "Create up to 1000 products, or create and update them by SKU (upsert), each row with its own " +
			"result. Reports progress.",
		Toolset: "inventory", Op: service.OpImportProducts,
	}, func(ctx context.Context, a *service.Access, in importIn) (importOut, error) {
		rows := make([]service.ImportRow, len(in.Products))
		for i, r := range in.Products {
			rows[i] = service.ImportRow{SKU: string(r.SKU), Name: string(r.Name), Price: string(r.Price), Description: (*string)(r.Description),
				Currency: (*string)(r.Currency), Stock: (*int64)(r.Stock), Status: (*string)(r.Status)}
		}
		sum, err := svc.ImportProducts(ctx, a, rows, string(in.Mode), in.Atomic, progressReporter(ctx))
		if err != nil {
			return importOut{}, err
		}
		out := importOut{Created: sum.Created, Updated: sum.Updated, Failed: sum.Failed, Written: sum.Written,
			Rows: make([]importRowOut, len(sum.Results))}
		for i, r := range sum.Results {
			out.Rows[i] = importRowOut{Index: r.Index, SKU: r.SKU, Status: r.Status}
			if r.Product != nil {
				out.Rows[i].ID = r.Product.ID
			}
			if r.Err != nil {
				body := errorBodyOf(r.Err, "")
				out.Rows[i].Error = &body
			}
		}
		return out, nil
	})
	derived := t.schemas
	t.schemas = sync.OnceValue(func() toolSchemas {
		s := derived()
		rows := s.in.Properties["products"]
		rows.MinItems, rows.MaxItems = ptr(1), ptr(MaxImportRows)
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
