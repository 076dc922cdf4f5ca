package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/shop"
)

// shopTools are the tools of the company's shop window: its
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
			Description: "The company's shop window: open or not, its settings, option mapping and public URLs.",
			Toolset:     "shop", Op: service.OpGetShop, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, w *shop.Window, a *service.Access, _ shapes.TenantArg) (shapes.ShopOut, error) {
			return view(w.Get(ctx, a))
		}),
		shopTool(Tool{
			Name:        "update_shop",
			Title:       "Update the shop window",
			Description: "Open or close the company's shop window, or change the settings given.",
			Toolset:     "shop", Op: service.OpUpdateShop, Idempotent: true, ResultAs: "get_shop",
		}, func(ctx context.Context, w *shop.Window, a *service.Access, in shapes.UpdateShopIn) (shapes.ShopOut, error) {
			return view(w.Reserving(opts.PublicURL, opts.ShopDomain).Update(ctx, a, in.Changes()))
		}),
		shopTool(Tool{
			Name:        "check_shop",
			Title:       "Check the shop window",
			Description: "Per channel, the active products that cannot be published and why: counts by reason, a few of each. Fix them, then check again.",
			Toolset:     "shop", Op: service.OpCheckShop, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, w *shop.Window, a *service.Access, in shapes.CheckShopIn) (shapes.CheckShopOut, error) {
			r, err := w.Check(ctx, a, shop.CheckQuery{Market: string(in.Market), Channel: string(in.Channel), Reason: string(in.Reason), Limit: int(in.PageSize), Cursor: string(in.Cursor)})
			if err != nil {
				return shapes.CheckShopOut{}, err
			}
			return shapes.CheckShopView(r), nil
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
