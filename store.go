package vitrine

import (
	"context"
	"time"
)

// Store is the persistence contract. The store package implements it on
// SQLite and on PostgreSQL, with the same behaviour on both.
//
// Every method on tenant-owned data takes the tenant id and filters by it:
// no method reads or writes another tenant's rows. Methods return business
// errors (*Error) for what a caller can act on: NotFound when a row is
// absent, Conflict on a uniqueness or version clash.
type Store interface {
	UserStore
	TenantStore
	MembershipStore
	TokenStore
	ProductStore
	Close() error
}

// UserStore keeps users.
type UserStore interface {
	CreateUser(ctx context.Context, u *User) error
	UserByID(ctx context.Context, id string) (*User, error)
	UserByEmail(ctx context.Context, email string) (*User, error)
}

// TenantStore keeps tenants.
type TenantStore interface {
	// CreateTenant creates a tenant and its first owner's membership at once.
	CreateTenant(ctx context.Context, t *Tenant, owner *Membership) error
	TenantByID(ctx context.Context, id string) (*Tenant, error)
	TenantBySlug(ctx context.Context, slug string) (*Tenant, error)
	UpdateTenant(ctx context.Context, t *Tenant) error
}

// MembershipStore keeps memberships.
type MembershipStore interface {
	CreateMembership(ctx context.Context, m *Membership) error
	// Membership returns a user's membership in a tenant, any status, with
	// RolePermissions resolved.
	Membership(ctx context.Context, tenantID, userID string) (*Membership, error)
	// MembershipsOfUser returns the user's active memberships with their
	// tenants, ordered by tenant name.
	MembershipsOfUser(ctx context.Context, userID string) ([]TenantMembership, error)
}

// TokenStore keeps personal access tokens.
type TokenStore interface {
	CreateToken(ctx context.Context, t *Token) error
	// TokenByPrefix returns the token whose stored prefix is prefix, with its
	// user.
	TokenByPrefix(ctx context.Context, prefix string) (*Token, *User, error)
	// TouchToken records that a token was used, at most once a minute.
	TouchToken(ctx context.Context, id string, at time.Time) error
}

// ProductStore keeps products.
type ProductStore interface {
	CreateProduct(ctx context.Context, p *Product) error
	ProductByID(ctx context.Context, tenantID, id string) (*Product, error)
	ProductBySKU(ctx context.Context, tenantID, sku string) (*Product, error)
	// ListProducts returns up to f.Limit products after f.After in f.Sort order.
	ListProducts(ctx context.Context, tenantID string, f ProductFilter) ([]*Product, error)
	// UpdateProduct writes p over the stored product if the stored version
	// still equals p.Version, then sets p.Version to the new version. A
	// product changed meanwhile is a ConflictError wrapping ErrStaleVersion.
	UpdateProduct(ctx context.Context, p *Product) error
	DeleteProduct(ctx context.Context, tenantID, id string) error
}

// ErrStaleVersion marks the conflict of a write based on an outdated version.
var ErrStaleVersion = &Error{Type: ConflictError, Field: "expected_version",
	Message: "The product was changed by someone else since you read it; fetch it again with get_product and retry with its current version"}
