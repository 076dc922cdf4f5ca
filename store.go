package vitrine

import (
	"context"
	"time"
)

// Store is the persistence contract. The store package implements it on
// SQLite and on PostgreSQL, with the same behaviour on both.
//
// Every method on tenant-owned data takes the tenant id and filters by it:
// no method reads or writes another tenant's rows. Every method that
// writes tenant data takes a Change, and stores the audit event of the
// change's call in the write's own transaction (see Change). Methods return business
// errors (*Error) for what a caller can act on: NotFound when a row is
// absent, Conflict on a uniqueness or version clash.
type Store interface {
	UserStore
	TenantStore
	TenantDeletionStore
	MembershipStore
	RoleStore
	TokenStore
	ProductStore
	TaxonomyStore
	TranslationStore
	ShopStore
	MarketStore
	AuditStore
	MCPSessionStore
	TenantArchiveStore
	TenantExportStore
	// AccessEpoch returns a number that grows whenever a user, token,
	// tenant, membership or role changes, whoever changes it: what was
	// read of them under one epoch holds for as long as it is current.
	AccessEpoch(ctx context.Context) (int64, error)
	// CheckingEpoch returns the store for one call of a caller read under
	// epoch: its first unit of work checks that the epoch has not moved
	// (EpochStore).
	CheckingEpoch(epoch int64) EpochStore
	// ServerKey returns the secret key stored under name, storing fresh
	// under it if none is: every instance gets the same key.
	ServerKey(ctx context.Context, name string, fresh []byte) ([]byte, error)
	Close() error
}

// MCPSessionStore remembers the MCP sessions (protocol 2025-11-25) that
// their clients ended, so that every instance refuses a later request of
// one, whichever instance held it.
type MCPSessionStore interface {
	// EndMCPSession records that the session ended at at, and forgets
	// the sessions ended more than a day before.
	EndMCPSession(ctx context.Context, id string, at time.Time) error
	// MCPSessionEnded reports whether the session was ended.
	MCPSessionEnded(ctx context.Context, id string) (bool, error)
}

// UserStore keeps users.
type UserStore interface {
	CreateUser(ctx context.Context, u *User) error
	UserByID(ctx context.Context, id string) (*User, error)
	UserByEmail(ctx context.Context, email string) (*User, error)
	// UserBySubject returns the user linked to an OAuth subject.
	UserBySubject(ctx context.Context, subject string) (*User, error)
	// UpdateUser writes a user's name, subject and disabled flag; a
	// disabled user's browser sessions (WebSession) end.
	UpdateUser(ctx context.Context, u *User) error
	// ListUsers returns up to limit users after the email key after.
	ListUsers(ctx context.Context, after string, limit int) ([]*User, error)
	// EraseUser removes a person and everything that lets them act (their
	// memberships, tokens, grants, sessions), keeping their id on what
	// they did; the only active owner of a company is a ConflictError.
	EraseUser(ctx context.Context, userID string) error
}

// TenantStore keeps tenants.
type TenantStore interface {
	// CreateTenant creates a tenant and its first owner's membership at once.
	CreateTenant(ctx context.Context, ch Change, t *Tenant, owner *Membership) error
	TenantByID(ctx context.Context, id string) (*Tenant, error)
	TenantBySlug(ctx context.Context, slug string) (*Tenant, error)
	UpdateTenant(ctx context.Context, ch Change, t *Tenant) error
	// ListTenants returns up to limit tenants after the slug after.
	ListTenants(ctx context.Context, after string, limit int) ([]*Tenant, error)
}

// MembershipStore keeps memberships.
type MembershipStore interface {
	CreateMembership(ctx context.Context, ch Change, m *Membership) error
	// InviteMember invites the user with that email (not disabled) into
	// m's tenant, as m says (status invited), in one transaction whose
	// statements are the same whatever the email: whether it has a user,
	// a disabled one, one already invited or a member, so that the time
	// it takes tells nobody which emails have accounts. A user who already
	// has a membership gets none: decide is given it, and says whether
	// the invitation takes m's role; an error from decide is InviteMember's,
	// and nothing is written. The change's audit event is written with it
	// in every case.
	InviteMember(ctx context.Context, ch Change, m *Membership, email string, decide func(existing *Membership) (changeRole bool, err error)) error
	// Membership returns a user's membership in a tenant, any status, with
	// RolePermissions resolved.
	Membership(ctx context.Context, tenantID, userID string) (*Membership, error)
	// MembershipsOfUser returns the user's active memberships with their
	// tenants, ordered by tenant name.
	MembershipsOfUser(ctx context.Context, userID string) ([]TenantMembership, error)
	// InvitationsOfUser returns the user's invited memberships (not yet
	// accepted) with their tenants, ordered by tenant name.
	InvitationsOfUser(ctx context.Context, userID string) ([]TenantMembership, error)
	// ListMembers returns up to limit members of a tenant, by email, after
	// the position after; invitations are not members yet.
	ListMembers(ctx context.Context, tenantID string, after *MemberKey, limit int) ([]*Member, error)
	// UpdateMembership writes a membership's role, status and grants, and
	// DeleteMembership removes one. Both refuse, with a ConflictError, to
	// leave the tenant without an active owner, checking it in the same
	// transaction as the change.
	UpdateMembership(ctx context.Context, ch Change, m *Membership) error
	DeleteMembership(ctx context.Context, ch Change, tenantID, userID string) error
}

// RoleStore keeps custom roles; built-in roles live in the code.
type RoleStore interface {
	CreateRole(ctx context.Context, ch Change, r *Role) error
	// Role returns a custom role of the tenant, or NotFoundError.
	Role(ctx context.Context, tenantID, name string) (*Role, error)
	// Roles returns the tenant's custom roles by name.
	Roles(ctx context.Context, tenantID string) ([]*Role, error)
	UpdateRole(ctx context.Context, ch Change, r *Role) error
	// RoleHolders returns the tenant's memberships, of any status, that
	// hold the role.
	RoleHolders(ctx context.Context, tenantID, role string) ([]*Membership, error)
	// DeleteRole removes a custom role no member holds; one still held is
	// a ConflictError.
	DeleteRole(ctx context.Context, ch Change, tenantID, name string) error
}

// TokenStore keeps personal access tokens.
type TokenStore interface {
	// CreateToken stores a personal token; a user who holds
	// MaxPersonalTokens usable ones already gets a ConflictError.
	CreateToken(ctx context.Context, t *Token) error
	// TokenByPrefix returns the token whose stored prefix is prefix, with its
	// user.
	TokenByPrefix(ctx context.Context, prefix string) (*Token, *User, error)
	// TouchToken records that a token was used, at most once a minute.
	TouchToken(ctx context.Context, id string, at time.Time) error
	// TokensOfUser returns a user's personal tokens (not those issued
	// to OAuth clients), newest first.
	TokensOfUser(ctx context.Context, userID string) ([]*Token, error)
	// RevokeToken marks a token revoked; revoking it again changes nothing.
	RevokeToken(ctx context.Context, id string, at time.Time) (*Token, error)
}

// AuditStore keeps the audit log. It is append-only: nothing updates an
// event, and only the retention removes events, once older than a day.
type AuditStore interface {
	// AppendAudit stores events of any tenants in one transaction. An
	// event whose id is stored already (its call's write stored it) is
	// left as it is: one call, one event.
	AppendAudit(ctx context.Context, events []*AuditEvent) error
	// ListAudit returns a page of a tenant's events, newest first. The
	// tenant may be NoTenant.
	ListAudit(ctx context.Context, tenantID string, f AuditFilter) ([]*AuditEvent, error)
	// PruneAudit removes up to limit events older than before (and than a
	// day), of every tenant, and returns how many. busy says that another
	// instance is pruning, and that none were removed.
	PruneAudit(ctx context.Context, before time.Time, limit int) (n int64, busy bool, err error)
}

// ProductStore keeps products, and the movements of their stock: every
// write that changes a product's stock records the change.
type ProductStore interface {
	// CreateProduct stores a new product. With an idempotency key, it
	// stores the key with it in one transaction; a key already used (and
	// not expired) by this user in this tenant returns the product it
	// created instead, or, if it was used for other arguments (another
	// hash), a ConflictError.
	CreateProduct(ctx context.Context, ch Change, p *Product, key *IdempotencyKey) (*Product, error)
	ProductByID(ctx context.Context, tenantID, id string) (*Product, error)
	// ProductBySKU returns the product with a variant of that SKU.
	ProductBySKU(ctx context.Context, tenantID, sku string) (*Product, error)
	// ProductByVariant returns the product of that variant.
	ProductByVariant(ctx context.Context, tenantID, variantID string) (*Product, error)
	// ListProducts returns up to f.Limit products after f.After in f.Sort order.
	ListProducts(ctx context.Context, tenantID string, f ProductFilter) ([]*Product, error)
	// FindProducts returns the page ListProducts would, each product with
	// its key in f.Sort order, and, in the same read, the counts of the
	// facets f names under its filter.
	FindProducts(ctx context.Context, tenantID string, f ProductFilter) (*FoundProducts, error)
	// UpdateProduct changes a product atomically: it reads the product
	// under a lock that holds off every other writer, lets change modify
	// it (or refuse, with an error that aborts the update), and writes it
	// back with the next version. Concurrent updates queue; none is lost.
	UpdateProduct(ctx context.Context, ch Change, tenantID, id string, change func(*Product) error) (*Product, error)
	DeleteProduct(ctx context.Context, ch Change, tenantID, id string) error
	// ProductsBySKU returns the tenant's products with those SKUs, by SKU
	// key.
	ProductsBySKU(ctx context.Context, tenantID string, skus []string) (map[string]*Product, error)
	// ProductsByHandle returns the tenant's products with those handles.
	ProductsByHandle(ctx context.Context, tenantID string, handles []string) (map[string]*Product, error)
	// WriteProducts creates and updates many products in one transaction,
	// reporting progress after each part. An update applies only if the
	// stored version is still the one read. It returns an error per write
	// (nil, or a ConflictError for a taken SKU or a stale version); with
	// atomic, any such error rolls back every write.
	WriteProducts(ctx context.Context, ch Change, tenantID string, writes []ProductWrite, atomic bool, progress func(done int)) ([]error, error)
	// ListStockMovements returns a page of the tenant's stock movements,
	// newest first, of one product or of all.
	ListStockMovements(ctx context.Context, tenantID, productID, before string, limit int) ([]*StockMovement, error)
}

// ProductWrite is one write of WriteProducts: Create a new product, or
// Update one read at Update.Version, as Before.
type ProductWrite struct {
	Create *Product
	Update *Product
	Before *Product
}

// TaxonomyStore keeps a company's categories and attribute definitions.
type TaxonomyStore interface {
	// Categories returns the tenant's categories, parents before children,
	// each level by position.
	Categories(ctx context.Context, tenantID string) ([]*Category, error)
	// SaveCategory creates the category, or updates it (by id) when
	// update is set. A parent that would make a cycle is refused.
	SaveCategory(ctx context.Context, ch Change, c *Category, update bool) error
	// DeleteCategory removes a category that has no children; products
	// leave it.
	DeleteCategory(ctx context.Context, ch Change, tenantID, id string) error
	// Attributes returns the tenant's attribute definitions, by key.
	Attributes(ctx context.Context, tenantID string) ([]*Attribute, error)
	// SaveAttribute creates an attribute definition, or updates it (by
	// key) when update is set.
	SaveAttribute(ctx context.Context, ch Change, a *Attribute, update bool) error
	// DeleteAttribute removes a definition and every product's value of it.
	DeleteAttribute(ctx context.Context, ch Change, tenantID, key string) error
	// Synonyms returns the tenant's synonyms, of every locale.
	Synonyms(ctx context.Context, tenantID string) ([]*Synonym, error)
	// SaveSynonyms adds synonyms of one locale, each replacing the one of
	// its Key; with replace, they replace all of the locale's. The tenant
	// holds at most MaxSynonyms.
	SaveSynonyms(ctx context.Context, ch Change, tenantID, locale string, syns []*Synonym, replace bool) error
	// DeleteSynonyms removes the synonyms holding any of words (all when
	// none), of locale unless it is nil, and returns how many.
	DeleteSynonyms(ctx context.Context, ch Change, tenantID string, locale *string, words []string) (int, error)
}

// IdempotencyKey makes a create safe to retry.
type IdempotencyKey struct {
	UserID      string
	Key         string
	RequestHash string
	ExpiresAt   time.Time
}
