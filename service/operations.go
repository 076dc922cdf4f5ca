package service

import "github.com/vitrine/vitrine"

// Operation names one thing a caller does in a tenant. Each operation
// needs one permission, declared here and nowhere else: the service checks
// it (Access.Allow) in the method that does the operation, and adapters
// read it (an MCP tool shows it and checks it before it reads its
// arguments, in the order of the error contract, docs/errors.md).
type Operation string

// The operations, named as the tools that do them.
const (
	OpGetTenant          Operation = "get_tenant"
	OpUpdateTenant       Operation = "update_tenant"
	OpListProducts       Operation = "list_products"
	OpGetProduct         Operation = "get_product"
	OpCreateProduct      Operation = "create_product"
	OpUpdateProduct      Operation = "update_product"
	OpDeleteProduct      Operation = "delete_product"
	OpAdjustStock        Operation = "adjust_stock"
	OpListStockMovements Operation = "list_stock_movements"
	OpImportProducts     Operation = "import_products"
	// OpUpsertProducts is an import that may change existing products: it
	// needs the right to update them, besides OpImportProducts.
	OpUpsertProducts   Operation = "import_products (upsert)"
	OpListMembers      Operation = "list_members"
	OpAddMember        Operation = "add_member"
	OpUpdateMember     Operation = "update_member"
	OpRemoveMember     Operation = "remove_member"
	OpGrantPermission  Operation = "grant_permission"
	OpRevokePermission Operation = "revoke_permission"
	OpListPermissions  Operation = "list_permissions"
	OpListRoles        Operation = "list_roles"
	OpCreateRole       Operation = "create_role"
	OpUpdateRole       Operation = "update_role"
	OpDeleteRole       Operation = "delete_role"
	OpListAuditEvents  Operation = "list_audit_events"
	OpAddVariant       Operation = "add_variant"
	OpUpdateVariant    Operation = "update_variant"
	OpDeleteVariant    Operation = "delete_variant"
	OpListCategories   Operation = "list_categories"
	OpSaveCategory     Operation = "save_category"
	OpDeleteCategory   Operation = "delete_category"
	OpListAttributes   Operation = "list_attributes"
	OpSaveAttribute    Operation = "save_attribute"
	OpDeleteAttribute  Operation = "delete_attribute"
	OpListSynonyms     Operation = "list_synonyms"
	OpSaveSynonyms     Operation = "save_synonyms"
	OpDeleteSynonyms   Operation = "delete_synonyms"
	OpGetShop          Operation = "get_shop"
	OpUpdateShop       Operation = "update_shop"
	OpCheckShop        Operation = "check_shop"
	OpSaveMarket       Operation = "save_market"
	OpListMarkets      Operation = "list_markets"
	OpDeleteMarket     Operation = "delete_market"
	OpSetMarketPrices  Operation = "set_market_prices"
	OpDeleteTenant     Operation = "delete_tenant"
	OpRestoreTenant    Operation = "restore_tenant"
	// The translations (issue 47): a product's text by who updates
	// products, a category's by who manages the catalog.
	OpTranslateProduct  Operation = "translate_product"
	OpTranslateCategory Operation = "translate_category"
	OpGetTranslations   Operation = "get_translations"
	// OpExportTenant takes the whole company out: every member's email
	// and the audit log with the catalog, as much as deleting it gives
	// away, and so the owner's alone (docs/permissions.md).
	OpExportTenant   Operation = "export_tenant"
	OpExportProducts Operation = "export_products"
)

var needs = map[Operation]vitrine.Permission{
	OpGetTenant:          vitrine.TenantsRead,
	OpUpdateTenant:       vitrine.TenantsUpdate,
	OpListProducts:       vitrine.ProductsRead,
	OpExportTenant:       vitrine.TenantsDelete,
	OpExportProducts:     vitrine.ProductsRead,
	OpGetProduct:         vitrine.ProductsRead,
	OpCreateProduct:      vitrine.ProductsCreate,
	OpUpdateProduct:      vitrine.ProductsUpdate,
	OpDeleteProduct:      vitrine.ProductsDelete,
	OpAdjustStock:        vitrine.ProductsUpdate,
	OpListStockMovements: vitrine.ProductsRead,
	OpImportProducts:     vitrine.ProductsCreate,
	OpUpsertProducts:     vitrine.ProductsUpdate,
	OpListMembers:        vitrine.MembersRead,
	OpAddMember:          vitrine.MembersManage,
	OpUpdateMember:       vitrine.MembersManage,
	OpRemoveMember:       vitrine.MembersManage,
	OpGrantPermission:    vitrine.MembersManage,
	OpRevokePermission:   vitrine.MembersManage,
	OpListPermissions:    vitrine.RolesRead,
	OpListRoles:          vitrine.RolesRead,
	OpCreateRole:         vitrine.RolesManage,
	OpUpdateRole:         vitrine.RolesManage,
	OpDeleteRole:         vitrine.RolesManage,
	OpListAuditEvents:    vitrine.AuditRead,
	OpAddVariant:         vitrine.ProductsUpdate,
	OpUpdateVariant:      vitrine.ProductsUpdate,
	OpDeleteVariant:      vitrine.ProductsUpdate,
	OpListCategories:     vitrine.ProductsRead,
	OpSaveCategory:       vitrine.CatalogManage,
	OpDeleteCategory:     vitrine.CatalogManage,
	OpListAttributes:     vitrine.ProductsRead,
	OpSaveAttribute:      vitrine.CatalogManage,
	OpDeleteAttribute:    vitrine.CatalogManage,
	// Synonyms are read as the catalog's other definitions are, by
	// whoever reads products; taught with the categories' permission.
	OpListSynonyms:   vitrine.ProductsRead,
	OpSaveSynonyms:   vitrine.CatalogManage,
	OpDeleteSynonyms: vitrine.CatalogManage,
	// The window's settings and URLs are what it shows the public anyway,
	// and whoever fixes what keeps products from it (a reader of products)
	// needs them: the product page template, the option mapping.
	OpGetShop:    vitrine.ProductsRead,
	OpUpdateShop: vitrine.ShopManage,
	OpCheckShop:  vitrine.ProductsRead,
	// A company's markets are its window's, in each market.
	OpSaveMarket:      vitrine.ShopManage,
	OpListMarkets:     vitrine.ShopManage,
	OpDeleteMarket:    vitrine.ShopManage,
	OpSetMarketPrices: vitrine.ShopManage,
	// Only the owner holds tenants:delete: deleting the company and
	// bringing it back are the same power.
	OpDeleteTenant:  vitrine.TenantsDelete,
	OpRestoreTenant: vitrine.TenantsDelete,

	OpTranslateProduct:  vitrine.ProductsUpdate,
	OpTranslateCategory: vitrine.CatalogManage,
	OpGetTranslations:   vitrine.ProductsRead,
}

// onScheduled are the operations a company scheduled for deletion still
// allows: every other is refused with the schedule and how to undo it.
var onScheduled = map[Operation]bool{OpRestoreTenant: true}

// Needs returns the permission the operation needs.
func (op Operation) Needs() vitrine.Permission {
	p, ok := needs[op]
	if !ok {
		panic("service: the operation " + string(op) + " declares no permission")
	}
	return p
}

// Operations returns every operation.
func Operations() []Operation {
	out := make([]Operation, 0, len(needs))
	for op := range needs {
		out = append(out, op)
	}
	return out
}

// Allow answers vitrine.ErrPermissionDenied unless a may do op. In a
// company scheduled for deletion, an operation it does not allow
// (onScheduled) is a ConflictError that says when it goes, whatever the
// caller holds.
func (a *Access) Allow(op Operation) error {
	if a != nil && a.Membership != nil && !a.Membership.TenantDeletesAt.IsZero() && !onScheduled[op] {
		return vitrine.ScheduledForDeletion(a.Membership.TenantDeletesAt)
	}
	return a.Require(op.Needs())
}

// OpImportTranslations writes translations from a file (import_translations,
// vitrine translation import), as translate_product does: a category's
// need save_category's right too.
const OpImportTranslations Operation = "import_translations"

func init() { needs[OpImportTranslations] = vitrine.ProductsUpdate }
