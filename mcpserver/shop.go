package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/shop"
)

// shopTools are the tools of the company's shop window (issue 34): its
// settings and URLs, read by whoever reads products, changed with
// shop:manage; and what keeps products from being published.
func shopTools(opts Options) []*Tool {
	view := func(st *shop.Settings, err error) (shapes.ShopOut, error) {
		if err != nil {
			return shapes.ShopOut{}, err
		}
		return shapes.ShopView(st, shop.Where(opts.PublicURL, opts.ShopDomain, st.Tenant.Slug, st.Shop)), nil
	}
	return []*Tool{
		shopTool(Tool{
			Name:        "get_shop",
			Title:       "Get the shop window",
			Description: "The company's shop window: open or not, its settings, the option mapping in effect, its public URLs (UCP profile, MCP, REST, feeds).",
			Toolset:     "shop", Op: service.OpGetShop, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, w *shop.Window, a *service.Access, _ shapes.TenantArg) (shapes.ShopOut, error) {
			return view(w.Get(ctx, a))
		}),
		shopTool(Tool{
			Name:        "update_shop",
			Title:       "Update the shop window",
			Description: "Open or close the company's shop window, or change the settings given; a domain another company holds is a ConflictError.",
			Toolset:     "shop", Op: service.OpUpdateShop, Idempotent: true, ResultAs: "get_shop",
		}, func(ctx context.Context, w *shop.Window, a *service.Access, in shapes.UpdateShopIn) (shapes.ShopOut, error) {
			return view(w.Update(ctx, a, in.Changes()))
		}),
	}
}

// shopTool makes a tool that acts on one tenant's window, as tenantTool
// does, its fn given the window's operations on the call's service.
func shopTool[In, Out any](t Tool, fn func(context.Context, *shop.Window, *service.Access, In) (Out, error)) *Tool {
	return tenantTool(t, func(ctx context.Context, svc *service.Service, a *service.Access, in In) (Out, error) {
		return fn(ctx, shop.New(svc), a, in)
	})
}
