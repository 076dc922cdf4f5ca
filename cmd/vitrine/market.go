package main

import (
	"fmt"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service/shop"
)

// MarketCmd groups the commands of a company's markets.
type MarketCmd struct {
	Save   MarketSaveCmd   `cmd:"" help:"Create a market, or replace the company's market of that handle whole."`
	List   MarketListCmd   `cmd:"" help:"List a company's markets."`
	Delete MarketDeleteCmd `cmd:"" help:"Delete a market and its prices; its window is gone."`
}

// MarketSaveCmd saves a market.
type MarketSaveCmd struct {
	catalogActor
	Handle       string   `arg:"" help:"The market's handle: lower-case letters, digits and hyphens; its window is at /markets/HANDLE/."`
	Name         string   `required:"" help:"The market's name."`
	Countries    []string `required:"" placeholder:"CC" help:"ISO 3166-1 alpha-2 codes of the countries it sells to (US,CA); a country is in one market at most."`
	Currency     string   `required:"" placeholder:"CODE" help:"The ISO 4217 currency of its prices (USD)."`
	Locales      []string `required:"" placeholder:"TAG" help:"Its locales, among the company's, the first its default (en,es)."`
	ExchangeRate string   `name:"exchange-rate" required:"" placeholder:"DECIMAL" help:"Units of its currency per unit of the catalog's (0.18)."`
	Rounding     string   `required:"" placeholder:"0.99|0.90|1.00|none" help:"Converted prices go up to the next price ending in .99 or .90, or to the next whole unit; none rounds to the nearest minor unit (half up)."`
	Category     []string `placeholder:"ID" help:"Sell the active products in this category or under it; repeat it. With --tag, either suffices. Neither: every active product."`
	Tag          []string `placeholder:"TAG" help:"Sell the active products with this tag; repeat it."`
	Domain       string   `placeholder:"HOST" help:"A host name at whose root the market's window is served too."`
	PublicURL    string   `name:"public-url" placeholder:"URL" help:"As vitrine serve --public-url: refused as a market's domain."`
	ShopDomain   string   `name:"shop-domain" placeholder:"DOMAIN" help:"As vitrine serve --shop-domain: refused, with every host under it, as a market's domain."`
	JSON         bool     `name:"json" help:"Print the market as one JSON object, as save_market answers."`
}

// Run saves the market and prints it.
func (c *MarketSaveCmd) Run(e *env) error {
	done, w, a, err := c.shopAccess(e, "market save")
	if err != nil {
		return err
	}
	defer done()
	m, err := w.Reserving(c.PublicURL, c.ShopDomain).SaveMarket(e.ctx, a, shop.MarketIn{Handle: c.Handle, Name: c.Name, Countries: c.Countries,
		Currency: c.Currency, Locales: c.Locales, ExchangeRate: c.ExchangeRate, Rounding: c.Rounding,
		Include: vitrine.MarketInclude{CategoryIDs: c.Category, Tags: c.Tag}, Domain: c.Domain})
	if err != nil {
		return err
	}
	return printMarkets(e, c.JSON, []*vitrine.Market{m}, false)
}

// MarketListCmd lists the markets.
type MarketListCmd struct {
	catalogActor
	JSON bool `name:"json" help:"Print the markets as one JSON object, as list_markets answers."`
}

// Run prints the company's markets.
func (c *MarketListCmd) Run(e *env) error {
	done, w, a, err := c.shopAccess(e, "market list")
	if err != nil {
		return err
	}
	defer done()
	ms, err := w.Markets(e.ctx, a)
	if err != nil {
		return err
	}
	return printMarkets(e, c.JSON, ms, true)
}

// MarketDeleteCmd deletes a market.
type MarketDeleteCmd struct {
	catalogActor
	Handle string `arg:"" help:"The market's handle."`
}

// Run deletes the market.
func (c *MarketDeleteCmd) Run(e *env) error {
	done, w, a, err := c.shopAccess(e, "market delete")
	if err != nil {
		return err
	}
	defer done()
	if err := w.DeleteMarket(e.ctx, a, c.Handle); err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "Deleted market %s\n", c.Handle)
	return err
}

// printMarkets writes markets as the tools answer (asJSON: one object, a
// list's when list), or a line each.
func printMarkets(e *env, asJSON bool, ms []*vitrine.Market, list bool) error {
	views := make([]shapes.MarketOut, len(ms))
	for i, m := range ms {
		views[i] = shapes.MarketView(m)
	}
	if asJSON {
		if list {
			return e.print(true, shapes.ListMarketsOut{Markets: views}, "")
		}
		return e.print(true, views[0], "")
	}
	if len(ms) == 0 {
		_, err := fmt.Fprintln(e.stdout, "No markets (the company sells as its own window alone).")
		return err
	}
	var lines []string
	for _, m := range views {
		line := fmt.Sprintf("%s  %s: %s, %s, rate %s, rounding %s, locales %s, version %d", m.Handle, m.Name, strings.Join(m.Countries, ","),
			m.Currency, m.ExchangeRate, m.Rounding, strings.Join(m.Locales, ","), m.Version)
		if m.Include != nil {
			line += fmt.Sprintf(", categories %s, tags %s", strings.Join(m.Include.CategoryIDs, ","), strings.Join(m.Include.Tags, ","))
		}
		if m.Domain != "" {
			line += ", at " + m.Domain
		}
		lines = append(lines, line)
	}
	_, err := fmt.Fprintln(e.stdout, strings.Join(lines, "\n"))
	return err
}
