package mcpserver

import (
	"context"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// tenantOut is a company as one caller sees it.
type tenantOut struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Slug        string    `json:"slug"`
	Role        string    `json:"role"`
	Permissions []string  `json:"permissions"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

func tenantView(t service.TenantAccess) tenantOut {
	return tenantOut{
		ID: t.Tenant.ID, Name: t.Tenant.Name, Slug: t.Tenant.Slug, Role: t.Role,
		Permissions: t.Permissions.Strings(), CreatedAt: t.Tenant.CreatedAt, UpdatedAt: t.Tenant.UpdatedAt,
	}
}

type noArgs struct{}

type userOut struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Name  string `json:"name"`
}

type tokenOut struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Prefix    string     `json:"prefix"`
	ReadOnly  bool       `json:"read_only"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

type whoamiOut struct {
	User    userOut     `json:"user"`
	Token   tokenOut    `json:"token"`
	Tenants []tenantOut `json:"tenants"`
}

type listTenantsOut struct {
	Tenants    []tenantOut `json:"tenants"`
	NextCursor string      `json:"next_cursor"`
}

type getTenantIn struct {
	TenantArg
}

type createTenantIn struct {
	Name shortText `json:"name"`
	Slug slug      `json:"slug,omitempty" jsonschema:"Lowercase letters, digits and inner hyphens, unique. Default: from the name."`
}

type updateTenantIn struct {
	TenantArg
	Name *shortText `json:"name,omitempty"`
	Slug *slug      `json:"slug,omitempty" jsonschema:"Unique across Vitrine."`
}

func tenant(t *service.TenantAccess, err error) (tenantOut, error) {
	if err != nil {
		return tenantOut{}, err
	}
	return tenantView(*t), nil
}

func tenantTools() []*Tool {
	tenants := func(ctx context.Context, svc *service.Service, c *vitrine.Caller) ([]tenantOut, error) {
		ts, err := svc.Tenants(ctx, c)
		if err != nil {
			return nil, err
		}
		out := make([]tenantOut, 0, len(ts))
		for _, t := range ts {
			out = append(out, tenantView(t))
		}
		return out, nil
	}
	return []*Tool{
		callerTool(Tool{
			Name:  "whoami",
			Title: "Who am I",
			Description: "Tell who you act for: user, token, and your companies with your role and permissions in each. " +
				"Call it first.",
			Toolset: "tenants", ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, c *vitrine.Caller, _ noArgs) (whoamiOut, error) {
			ts, err := tenants(ctx, svc, c)
			if err != nil {
				return whoamiOut{}, err
			}
			return whoamiOut{
				User:    userOut{ID: c.User.ID, Email: c.User.Email, Name: c.User.Name},
				Token:   tokenOut{ID: c.Token.ID, Name: c.Token.Name, Prefix: c.Token.Prefix, ReadOnly: c.Token.ReadOnly, ExpiresAt: c.Token.ExpiresAt},
				Tenants: ts,
			}, nil
		}),
		callerTool(Tool{
			Name:  "list_tenants",
			Title: "List my companies",
			Description: "List the companies (tenants) you can act in, with your role and permissions in each. After " +
				"\"Membership not found or inactive\", call it.",
			Toolset: "tenants", ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, c *vitrine.Caller, _ noArgs) (listTenantsOut, error) {
			ts, err := tenants(ctx, svc, c)
			return listTenantsOut{Tenants: ts}, err
		}),
		tenantTool(Tool{
			Name:        "get_tenant",
			Title:       "Get a company",
			Description: "Get a company you belong to: its name and slug, with your role and permissions there.",
			Toolset:     "tenants", Op: service.OpGetTenant, ReadOnly: true, Idempotent: true, TargetArg: "tenant_id",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, _ getTenantIn) (tenantOut, error) {
			return tenant(svc.Tenant(ctx, a))
		}),
		callerTool(Tool{
			Name:        "create_tenant",
			Title:       "Create a company",
			Description: "Create a company (tenant); you become its owner, with every permission in it.",
			Toolset:     "tenants",
		}, func(ctx context.Context, svc *service.Service, c *vitrine.Caller, in createTenantIn) (tenantOut, error) {
			return tenant(svc.CreateTenant(ctx, c, string(in.Name), string(in.Slug)))
		}),
		tenantTool(Tool{
			Name:        "update_tenant",
			Title:       "Update a company",
			Description: "Rename a company or change its slug; a slug taken is a ConflictError. Returns the company.",
			Toolset:     "tenants", Op: service.OpUpdateTenant, Idempotent: true, TargetArg: "tenant_id",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in updateTenantIn) (tenantOut, error) {
			return tenant(svc.UpdateTenant(ctx, a, (*string)(in.Name), (*string)(in.Slug)))
		}),
	}
}
