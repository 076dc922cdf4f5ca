package shapes

import (
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// TenantOut is a company as one caller sees it.
type TenantOut struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Slug        string    `json:"slug"`
	Currency    string    `json:"currency"`
	Role        string    `json:"role"`
	Permissions []string  `json:"permissions"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	// DeletesAt marks a company scheduled for deletion: closed until then,
	// restorable by its owner.
	DeletesAt *time.Time `json:"deletes_at,omitempty" jsonschema:"Scheduled for deletion then; restore_tenant undoes it."`
}

func TenantView(t service.TenantAccess) TenantOut {
	out := TenantOut{
		ID: t.Tenant.ID, Name: t.Tenant.Name, Slug: t.Tenant.Slug, Currency: t.Tenant.Currency, Role: t.Role,
		Permissions: t.Permissions.Strings(), CreatedAt: t.Tenant.CreatedAt, UpdatedAt: t.Tenant.UpdatedAt,
	}
	if !t.Tenant.DeletesAt.IsZero() {
		at := t.Tenant.DeletesAt
		out.DeletesAt = &at
	}
	return out
}

type DeleteTenantIn struct {
	TenantArg
}

type DeleteTenantOut struct {
	ID        string     `json:"id"`
	DeletesAt *time.Time `json:"deletes_at,omitempty"`
	Message   string     `json:"message,omitempty"`
}

type NoArgs struct{}

type UserOut struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Name  string `json:"name"`
}

type TokenOut struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Prefix    string     `json:"prefix"`
	ReadOnly  bool       `json:"read_only"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

type WhoamiOut struct {
	User    UserOut     `json:"user"`
	Token   TokenOut    `json:"token"`
	Tenants []TenantOut `json:"tenants"`
}

type ListTenantsOut struct {
	Tenants    []TenantOut `json:"tenants"`
	NextCursor string      `json:"next_cursor"`
}

type GetTenantIn struct {
	TenantArg
}

type CreateTenantIn struct {
	Name shortText `json:"name"`
	Slug slug      `json:"slug,omitempty" jsonschema:"Unique. Default: from the name."`
	// Currency is the company's: of its new products, imports and price
	// filters.
	Currency vitrine.CurrencyCode `json:"currency,omitempty" jsonschema:"Of new products, imports, price filters."`
}

type UpdateTenantIn struct {
	TenantArg
	Name     *shortText            `json:"name,omitempty"`
	Slug     *slug                 `json:"slug,omitempty"`
	Currency *vitrine.CurrencyCode `json:"currency,omitempty" jsonschema:"Products keep theirs."`
}

func TenantOf(t *service.TenantAccess, err error) (TenantOut, error) {
	if err != nil {
		return TenantOut{}, err
	}
	return TenantView(*t), nil
}
