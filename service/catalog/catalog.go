// Package catalog is what a caller may do with a company's catalog:
// products and their variants, the list query, stock, imports, categories
// and attribute definitions. It works on the service's Access: every
// operation asks it for the operation's permission (service.Operation)
// first, as the rest of the service does, and writes with the change its
// caller makes (Access.Change). It goes to the database only through
// vitrine.Store, which the service hands its own packages alone.
package catalog

import (
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/internal/insider"
)

// Catalog is the catalog's operations on a service's store.
type Catalog struct {
	svc   *service.Service
	store vitrine.Store
	now   func() time.Time
}

// New returns the catalog of svc: every adapter that serves the catalog
// makes one (the MCP server, the command line), all reading the same store.
func New(svc *service.Service) *Catalog {
	return &Catalog{svc: svc, store: svc.Store(insider.Pass{}), now: vitrine.Now}
}
