// Package base is what the store's packages build their units of work and
// statements with: a tenant's scope, a write that stores its call's audit
// event in its own transaction, ids checked before the database is asked,
// numbered arguments, and the few clauses the dialects write differently.
// store (accounts, tenancy, the audit log) and store/internal/catalog (the
// catalog) both use it; the engines themselves are sqldb's.
package base

import (
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// Tenant is the scope of a unit of work in one tenant.
func Tenant(id string) sqldb.Scope { return sqldb.Scope{TenantID: id} }

// ValidIDs reports whether every id has an id's shape. Methods answer
// NotFound for a malformed id before asking the database, which on
// PostgreSQL would refuse it as a uuid.
func ValidIDs(ids ...string) bool {
	for _, id := range ids {
		if !vitrine.ValidID(id) {
			return false
		}
	}
	return true
}
