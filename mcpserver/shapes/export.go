package shapes

type exportFormat string

// ExportProductsIn are export_products' arguments.
type ExportProductsIn struct {
	TenantArg
	Format exportFormat `json:"format" jsonschema:"jsonl: every field; shopify: Shopify's product CSV (import_products reads both)."`
	Cursor pageCursor   `json:"cursor,omitempty" jsonschema:"next_cursor of the last page."`
}

// ExportProductsOut is a part of the export: a whole file of its format.
type ExportProductsOut struct {
	Format     string `json:"format"`
	Products   int    `json:"products"`
	Content    string `json:"content"`
	NextCursor string `json:"next_cursor" jsonschema:"Empty at the end."`
}

// Bounds of one export_products call: at most ExportMaxProducts products,
// and no page begun past ExportMaxBytes.
const (
	ExportMaxProducts = 500
	ExportMaxBytes    = 4 << 20
)
