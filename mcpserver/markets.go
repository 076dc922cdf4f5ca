package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/shop"
)

// marketTools are the tools of the company's markets and their prices,
// with shop:manage, in a toolset of their own.
func marketTools(opts Options) []*Tool {
	return []*Tool{
		shopTool(Tool{
			Name:        "save_market",
			Title:       "Save a market",
			Description: "Create or replace (by handle) a market: countries, currency, locales, exchange rate and rounding, assortment.",
			Toolset:     "markets", Op: service.OpSaveMarket, Idempotent: true,
		}, func(ctx context.Context, w *shop.Window, a *service.Access, in shapes.SaveMarketIn) (shapes.MarketOut, error) {
			m, err := w.Reserving(opts.PublicURL, opts.ShopDomain).SaveMarket(ctx, a, in.In())
			if err != nil {
				return shapes.MarketOut{}, err
			}
			return shapes.MarketView(m), nil
		}),
		shopTool(Tool{
			Name:        "list_markets",
			Title:       "List markets",
			Description: "The company's markets, with their countries, currency, rates and assortment.",
			Toolset:     "markets", Op: service.OpListMarkets, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, w *shop.Window, a *service.Access, _ shapes.TenantArg) (shapes.ListMarketsOut, error) {
			ms, err := w.Markets(ctx, a)
			if err != nil {
				return shapes.ListMarketsOut{}, err
			}
			out := shapes.ListMarketsOut{Markets: make([]shapes.MarketOut, len(ms))}
			for i, m := range ms {
				out.Markets[i] = shapes.MarketView(m)
			}
			return out, nil
		}),
		shopTool(Tool{
			Name:        "delete_market",
			Title:       "Delete a market",
			Description: "Delete a market and its prices; its window is gone.",
			Toolset:     "markets", Op: service.OpDeleteMarket, Destructive: true, Idempotent: true,
		}, func(ctx context.Context, w *shop.Window, a *service.Access, in shapes.MarketHandleIn) (shapes.DeleteMarketOut, error) {
			if err := w.DeleteMarket(ctx, a, string(in.Handle)); err != nil {
				return shapes.DeleteMarketOut{}, err
			}
			return shapes.DeleteMarketOut{Handle: string(in.Handle), Deleted: true}, nil
		}),
		shopTool(Tool{
			Name:        "set_market_prices",
			Title:       "Set market prices",
			Description: "Set or remove (price null) variants' own prices in a market, up to 250; the others convert by its rate. Each row's outcome.",
			Toolset:     "markets", Op: service.OpSetMarketPrices, Idempotent: true,
		}, func(ctx context.Context, w *shop.Window, a *service.Access, in shapes.SetMarketPricesIn) (shapes.SetMarketPricesOut, error) {
			rows, err := w.SetMarketPrices(ctx, a, string(in.Market), in.Rows())
			if err != nil {
				return shapes.SetMarketPricesOut{}, err
			}
			return shapes.SetMarketPricesView(rows, errorBodyOf), nil
		}),
	}
}
