// Package vitrine is a multi-tenant product catalog served to AI agents over
// the Model Context Protocol.
//
// This root package holds the domain: the types (users, tenants, memberships,
// roles, products, tokens), the permission catalog, the error contract and
// the storage contract. It says what the application does; the packages
// around it adapt it to the outside world:
//
//   - service: the rules (membership, permission, validation) in one place;
//   - store: the Store contract on SQLite and PostgreSQL;
//   - mcpserver: tools, their schemas and the error JSON, over stdio and HTTP;
//   - cmd/vitrine: the operator's binary, where flags and wiring live.
package vitrine

import (
	"time"

	"github.com/google/uuid"
)

// NewID returns a new opaque identifier: a UUIDv7, time-ordered so that
// keyset paging by id follows creation order.
func NewID() string {
	return uuid.Must(uuid.NewV7()).String()
}

// ValidID reports whether s has the shape of an identifier issued by NewID.
// A malformed id names nothing, so callers answer "not found" for it without
// asking the database.
func ValidID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

// Now returns the current time as the stores keep it: UTC, truncated to the
// microsecond that both SQLite and PostgreSQL hold exactly.
func Now() time.Time {
	return Timestamp(time.Now())
}

// Timestamp normalises t to UTC microseconds.
func Timestamp(t time.Time) time.Time {
	return t.UTC().Truncate(time.Microsecond)
}

// The size of a page of any list: what it holds when the caller asks for
// none, and the most it may hold.
const (
	DefaultPageLimit = 20
	MaxPageLimit     = 100
)
