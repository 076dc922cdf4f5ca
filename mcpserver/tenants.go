package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
)

func tenantTools() []*Tool {
	tenants := func(ctx context.Context, svc *service.Service, c *vitrine.Caller) ([]shapes.TenantRow, error) {
		ts, err := svc.Tenants(ctx, c)
		if err != nil {
			return nil, err
		}
		out := make([]shapes.TenantRow, 0, len(ts))
		for _, t := range ts {
			out = append(out, shapes.TenantRowView(t))
		}
		return out, nil
	}
	return []*Tool{
		callerTool(Tool{
			Name:  "whoami",
			Title: "Who am I",
			Description: "Who you act for: user, token, your companies with your role and permissions in each. " +
				"Call it first.",
			Toolset: "tenants", ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, c *vitrine.Caller, _ shapes.NoArgs) (shapes.WhoamiOut, error) {
			ts, err := tenants(ctx, svc, c)
			if err != nil {
				return shapes.WhoamiOut{}, err
			}
			return shapes.WhoamiOut{
				User:    shapes.UserOut{ID: c.User.ID, Email: c.User.Email, Name: c.User.Name},
				Token:   shapes.TokenOut{ID: c.Token.ID, Name: c.Token.Name, Prefix: c.Token.Prefix, ReadOnly: c.Token.ReadOnly, ExpiresAt: c.Token.ExpiresAt},
				Tenants: ts,
			}, nil
		}),
		callerTool(Tool{
			Name:  "list_tenants",
			Title: "List my companies",
			Description: "List the companies (tenants) you can act in, with your role and permissions in each. After " +
				"\"Membership not found or inactive\", call it.",
			Toolset: "tenants", ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, c *vitrine.Caller, _ shapes.NoArgs) (shapes.ListTenantsOut, error) {
			ts, err := tenants(ctx, svc, c)
			return shapes.ListTenantsOut{Tenants: ts}, err
		}),
		tenantTool(Tool{
			Name:        "get_tenant",
			Title:       "Get a company",
			Description: "Get a company you belong to: name, slug, your role and permissions there.",
			Toolset:     "tenants", Op: service.OpGetTenant, ReadOnly: true, Idempotent: true, TargetArg: "tenant_id",
			Localized: fieldNames{results: []string{"locales"}},
		}, func(ctx context.Context, svc *service.Service, a *service.Access, _ shapes.GetTenantIn) (shapes.TenantOut, error) {
			return shapes.TenantOf(svc.Tenant(ctx, a))
		}),
		callerTool(Tool{
			Name:        "create_tenant",
			Title:       "Create a company",
			Description: "Create a company (tenant); you become its owner, with every permission.",
			Toolset:     "tenants", ResultAs: "get_tenant",
		}, func(ctx context.Context, svc *service.Service, c *vitrine.Caller, in shapes.CreateTenantIn) (shapes.TenantOut, error) {
			return shapes.TenantOf(svc.CreateTenant(ctx, c, string(in.Name), string(in.Slug), string(in.Currency)))
		}),
		tenantTool(Tool{
			Name:        "update_tenant",
			Title:       "Update a company",
			Description: "Change a company's name, slug or currency; a slug taken is a ConflictError. Returns the company.",
			Toolset:     "tenants", Op: service.OpUpdateTenant, Idempotent: true, TargetArg: "tenant_id", ResultAs: "get_tenant",
			Localized: fieldNames{args: []string{"locales"}},
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in shapes.UpdateTenantIn) (shapes.TenantOut, error) {
			return shapes.TenantOf(svc.UpdateTenant(ctx, a, (*string)(in.Name), (*string)(in.Slug), (*string)(in.Currency), shapes.LocaleStrings(in.Locales)))
		}),
	}
}
