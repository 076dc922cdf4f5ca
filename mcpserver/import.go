package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

type (
	importMode string
	importRows []importRowIn // bounded to MaxImportRows in importTools
)

// MaxImportRows bounds the rows of one import_products call.
const MaxImportRows = 1000

type importRowIn struct {
	SKU         string         `json:"sku" jsonschema:"Stock-keeping unit; in upsert mode, a SKU that exists updates that product."`
	Name        string         `json:"name" jsonschema:"Product name."`
	Price       string         `json:"price" jsonschema:"Price as a decimal string, such as \"4599.90\"."`
	Description *string        `json:"description,omitempty" jsonschema:"Free text."`
	Currency    *string        `json:"currency,omitempty" jsonschema:"ISO 4217 code. Default: BRL for a new product; the product's own for an update."`
	Stock       *stockLevel    `json:"stock,omitempty" jsonschema:"Units in stock."`
	Status      *productStatus `json:"status,omitempty" jsonschema:"active or archived."`
}

type importIn struct {
	TenantArg
	Products importRows `json:"products" jsonschema:"The rows, 1 to 1000: the fields of create_product."`
	Mode     importMode `json:"mode,omitempty" jsonschema:"\"create\": a SKU that exists is an error for its row. \"upsert\": it updates that product, keeping the fields the row leaves out. Default: create."`
	Atomic   bool       `json:"atomic,omitempty" jsonschema:"true: if any row fails, nothing is written. Default: false, each valid row is written."`
}

type importRowOut struct {
	Index  int        `json:"index"`
	SKU    string     `json:"sku"`
	Status string     `json:"status" jsonschema:"created, updated, error, or skipped (valid, but not written because an atomic import failed)."`
	ID     string     `json:"id,omitempty"`
	Error  *errorBody `json:"error,omitempty" jsonschema:"Why the row failed: an error of the same form as a tool's."`
}

type importOut struct {
	Created int            `json:"created"`
	Updated int            `json:"updated"`
	Failed  int            `json:"failed"`
	Written bool           `json:"written" jsonschema:"false when an atomic import wrote nothing."`
	Rows    []importRowOut `json:"rows"`
}

func importTools(svc *service.Service) []*Tool {
	t := tenantTool(svc, Tool{
		Name:  "import_products",
		Title: "Import products",
		Description: "Create up to 1000 products at once, or with mode \"upsert\" create and update them by SKU. " +
			"Every row gets its own result (created, updated, or its error, typed like a tool error); with " +
			"atomic, one failed row writes nothing. Sends progress notifications when the call carries a progress token.",
		Toolset: "products", Permission: vitrine.ProductsCreate,
	}, func(ctx context.Context, a *service.Access, in importIn) (importOut, error) {
		rows := make([]service.ImportRow, len(in.Products))
		for i, r := range in.Products {
			rows[i] = service.ImportRow{SKU: r.SKU, Name: r.Name, Price: r.Price, Description: r.Description,
				Currency: r.Currency, Stock: (*int64)(r.Stock), Status: (*string)(r.Status)}
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
				out.Rows[i].Error = &errorBody{Error: true, Type: string(r.Err.Type), Message: r.Err.Message, Field: r.Err.Field}
			}
		}
		return out, nil
	})
	rows := t.InputSchema.Properties["products"]
	rows.MinItems, rows.MaxItems = ptr(1), ptr(MaxImportRows)
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
