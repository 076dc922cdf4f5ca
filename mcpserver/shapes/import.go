package shapes

import "github.com/vitrine/vitrine"

type (
	importMode string
	importRows []importRowIn // bounded to MaxImportRows in importTools
)

// MaxImportRows bounds the rows of one import_products call.
const MaxImportRows = 1000

// importRowIn is a row of an import: create_product's fields. Which
// optional fields a row gives is read from its JSON (given), so that an
// upsert keeps those it leaves out.
type importRowIn struct {
	productFields
	given map[string]bool
}

// Given records that the row gives the field name (args.Keyed).
func (r *importRowIn) Given(name string) {
	if r.given == nil {
		r.given = map[string]bool{}
	}
	r.given[name] = true
}

// GivenFields reports which fields the row gives, by JSON name.
func (r importRowIn) GivenFields() map[string]bool { return r.given }

type importFormat string

type ImportIn struct {
	TenantArg
	Products importRows           `json:"products,omitempty" jsonschema:"Rows of create_product's fields (no tenant_id)."`
	Format   importFormat         `json:"format,omitempty" jsonschema:"shopify: csv holds a Shopify product CSV export. Default: products."`
	CSV      longCSV              `json:"csv,omitempty"`
	Mode     importMode           `json:"mode,omitempty" jsonschema:"upsert: update a product that exists (by handle, else SKU), keeping fields left out. Default: create."`
	Atomic   bool                 `json:"atomic,omitempty" jsonschema:"true: one failed row writes nothing."`
	Currency vitrine.CurrencyCode `json:"currency,omitempty" jsonschema:"Of prices without one. Default: the company's."`
	Details  bool                 `json:"details,omitempty" jsonschema:"true: all rows, in full."`
}

// longCSV is a Shopify export sent whole; the HTTP body limit
// (--max-body) bounds it first.
type longCSV string

const maxCSVLength = 32 << 20
