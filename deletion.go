package vitrine

import (
	"context"
	"time"
)

// DefaultDeletionGrace is how long a company scheduled for deletion stays
// restorable before its purge (vitrine serve --grace).
const DefaultDeletionGrace = 30 * 24 * time.Hour

// DeletedTenant is the record of a company's deletion, which outlives it:
// the operator's (vitrine tenant deleted).
type DeletedTenant struct {
	ID          string
	Slug        string
	Name        string
	RequestedAt time.Time
	// RequestedBy is the user who asked; empty when the operator did.
	RequestedBy    string
	PurgeStartedAt time.Time
	// PurgedAt is when its last row went; zero while the purge goes on.
	PurgedAt    time.Time
	RowsRemoved int64
}

// ScheduledForDeletion is the refusal of a call on a company scheduled
// for deletion: when it goes, and how to undo it.
func ScheduledForDeletion(deletesAt time.Time) *Error {
	return Conflict("tenant_id", "This company is scheduled for deletion on %s; until then its owner can restore it "+
		"(restore_tenant, or vitrine tenant restore)", deletesAt.UTC().Format(time.RFC3339))
}

// TenantDeletionStore keeps the deletions of companies: their schedule,
// their purge in bounded batches, the lease that lets one instance at a
// time purge, and the record of each deletion.
type TenantDeletionStore interface {
	// ScheduleTenantDeletion marks the tenant for deletion at deletesAt,
	// asked by userID (empty: the operator) at at; ch's event is written
	// with it. A tenant already scheduled is a ConflictError.
	ScheduleTenantDeletion(ctx context.Context, ch Change, tenantID, userID string, at, deletesAt time.Time) (*Tenant, error)
	// HastenTenantDeletion makes a tenant scheduled for later due at now,
	// its request (who asked, and when) kept; ch's event is written with
	// it. A tenant not scheduled is a ConflictError.
	HastenTenantDeletion(ctx context.Context, ch Change, tenantID string, now time.Time) (*Tenant, error)
	// RestoreTenant clears a tenant's schedule. One not scheduled, or
	// whose purge has begun, is a ConflictError.
	RestoreTenant(ctx context.Context, ch Change, tenantID string) (*Tenant, error)
	// TenantsDue returns the ids of the tenants whose purge has begun or
	// whose deletion is due at now, those begun first.
	TenantsDue(ctx context.Context, now time.Time, limit int) ([]string, error)
	// PurgeTenantStep removes up to batch rows of a due tenant, from one
	// table, in one transaction, and counts them in its DeletedTenant
	// record (made by its first step). When no row of it is left in any
	// table that has a tenant_id, it removes the tenant and says done. A
	// tenant not due is a ConflictError.
	PurgeTenantStep(ctx context.Context, tenantID string, now time.Time, batch int) (removed int64, done bool, err error)
	// TakeLease takes, or renews, the lease of that name for holder until
	// now+ttl, unless another holds it unexpired; it says whether holder
	// holds it.
	TakeLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error)
	// ReleaseLease gives up holder's lease.
	ReleaseLease(ctx context.Context, name, holder string) error
	// DeletedTenants returns the records of deletions, newest first.
	DeletedTenants(ctx context.Context, limit int) ([]*DeletedTenant, error)
}
