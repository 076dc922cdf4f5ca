// Package shapes holds what agents see of the MCP tools: the structs of
// their arguments and results, the single source of the JSON schemas
// derived from them (SchemaFor, OutputSchemaFor), the named types that carry
// bounds and enums into every schema that uses them, and the views of
// domain values as results (ProductView, ...) and of arguments as the
// service's inputs. It knows no server: mcpserver's tools take and return
// these shapes, and its server lists and serves them.
package shapes

// TenantArg is the argument every tenant-scoped tool takes first. It has
// no description of its own: the server's instructions say once where the
// ids come from (whoami, list_tenants), which spares ~30 bytes of every
// tool in tools/list. An invitee's tenant_id (invitations.go) says where
// it comes from, since that is somewhere else.
type TenantArg struct {
	TenantID string `json:"tenant_id"`
}

// pageArgs are the arguments of a list that pages. (The page size is
// PageSize in Go: list_products' arguments embed vitrine.ProductQuery, and
// two fields of one name at one depth would hide each other from the
// schema.)
type pageArgs struct {
	PageSize pageLimit  `json:"limit,omitempty" jsonschema:"Page size. Default: 20."`
	Cursor   pageCursor `json:"cursor,omitempty" jsonschema:"next_cursor of the last page."`
}

// ToolsetName is a toolset's name, as request_toolset takes it.
type ToolsetName string
