package shapes

import (
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// TenantOut is a company as one caller sees it (get_tenant): with its
// locales when it has more than one.
type TenantOut struct {
	TenantRow
	Locales []string `json:"locales,omitempty" jsonschema:"When more than one; the first the default."`
}

// TenantRow is a company in a list (list_tenants, whoami): its locales
// are get_tenant's.
type TenantRow struct {
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
	DeletesAt *time.Time `json:"deletes_at,omitempty" jsonschema:"Deleted then; restore_tenant undoes it."`
}

func TenantView(t service.TenantAccess) TenantOut {
	return TenantOut{TenantRow: TenantRowView(t), Locales: multilingual(&t.Tenant)}
}

func TenantRowView(t service.TenantAccess) TenantRow {
	out := TenantRow{
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

// multilingual is the company's locales when it has more than one: a
// company of one locale answers as it always has.
func multilingual(t *vitrine.Tenant) []string {
	if !t.Multilingual() {
		return nil
	}
	return t.Locales
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
	Tenants []TenantRow `json:"tenants"`
}

type ListTenantsOut struct {
	Tenants    []TenantRow `json:"tenants"`
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
	Locales  []vitrine.LocaleTag   `json:"locales,omitempty" jsonschema:"BCP 47, the first the default."`
}

func TenantOf(t *service.TenantAccess, err error) (TenantOut, error) {
	if err != nil {
		return TenantOut{}, err
	}
	return TenantView(*t), nil
}

// LocaleStrings are tags as the service takes them (nil stays nil).
func LocaleStrings(in []vitrine.LocaleTag) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, l := range in {
		out[i] = string(l)
	}
	return out
}
