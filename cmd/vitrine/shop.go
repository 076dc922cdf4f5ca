package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/shop"
)

// ShopCmd groups the commands of a company's shop window.
type ShopCmd struct {
	Show  ShopShowCmd  `cmd:"" help:"Show a company's shop window: open or closed, its settings, the option mapping in effect, its URLs."`
	Open  ShopOpenCmd  `cmd:"" help:"Open a company's shop window, with the settings given."`
	Close ShopCloseCmd `cmd:"" help:"Close a company's shop window (every public URL answers 404), with the settings given."`
	Check ShopCheckCmd `cmd:"" help:"List, per channel, the active products that cannot be published there and why."`
}

// shopWhere are the flags that say where the window is served, as vitrine
// serve's do.
type shopWhere struct {
	PublicURL  string `name:"public-url" placeholder:"URL" help:"The base URL the server is reached at (as vitrine serve --public-url), to print the window's URLs under it."`
	ShopDomain string `name:"shop-domain" placeholder:"DOMAIN" help:"As vitrine serve --shop-domain: the window is served at the root of SLUG.DOMAIN too."`
	JSON       bool   `name:"json" help:"Print the window as one JSON object, as get_shop answers."`
}

// shopSettings are the settings open and close change, those given.
type shopSettings struct {
	ProductURL *string           `name:"product-url" placeholder:"URL" help:"The product page URL template, its handle in place of {handle}: https://shop.example/products/{handle}; \"\" clears it."`
	Country    *string           `placeholder:"CC" help:"The ISO 3166-1 alpha-2 code of the country it sells to (BR, US); \"\" clears it."`
	Stock      *string           `placeholder:"availability|exact" help:"What the public sees of stock: availability (in stock, out of stock, backorder) or exact quantities."`
	Domain     *string           `placeholder:"HOST" help:"The company's own host name, at whose root the window is served too (point its DNS and TLS at the server); \"\" clears it."`
	Option     map[string]string `placeholder:"NAME=ATTR" help:"Map an option name, or the key of a public attribute, to the feed attribute it fills (size, color, material, pattern, gender, age_group, mpn; empty for none), over the defaults; repeat it. The feeds send an MPN only from what is mapped to mpn. Given, it replaces the company's mapping."`
}

func (s shopSettings) changes(open bool) shop.Changes {
	ch := shop.Changes{Open: &open, ProductURL: s.ProductURL, Country: s.Country, Stock: s.Stock, Domain: s.Domain}
	if s.Option != nil {
		m := maps.Clone(s.Option)
		ch.Options = &m
	}
	return ch
}

// shopAccess acts in the company as its member (--as, default its first
// owner), whose permissions apply; a write is audited as a call of the
// command, in its own transaction.
func (c catalogActor) shopAccess(e *env, what string) (func() error, *shop.Window, *service.Access, error) {
	db, svc, err := e.open(nil)
	if err != nil {
		return nil, nil, nil, err
	}
	reason := "vitrine " + what
	a, err := operatorActor(e, svc, c.Tenant, c.As, reason, "")
	if err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	a.Caller.Call.Target = a.TenantID
	return db.Close, shop.New(svc), a, nil
}

// ShopShowCmd prints the window.
type ShopShowCmd struct {
	catalogActor
	shopWhere
}

// Run prints the company's window.
func (c *ShopShowCmd) Run(e *env) error {
	done, w, a, err := c.shopAccess(e, "shop show")
	if err != nil {
		return err
	}
	defer done()
	st, err := w.Get(e.ctx, a)
	if err != nil {
		return err
	}
	return c.print(e, st)
}

// ShopOpenCmd opens the window.
type ShopOpenCmd struct {
	catalogActor
	shopSettings
	shopWhere
}

// Run opens the window with the settings given, and prints it.
func (c *ShopOpenCmd) Run(e *env) error {
	return setShop(e, c.catalogActor, c.shopWhere, "shop open", c.changes(true))
}

// ShopCloseCmd closes the window.
type ShopCloseCmd struct {
	catalogActor
	shopSettings
	shopWhere
}

// Run closes the window with the settings given, and prints it.
func (c *ShopCloseCmd) Run(e *env) error {
	return setShop(e, c.catalogActor, c.shopWhere, "shop close", c.changes(false))
}

func setShop(e *env, actor catalogActor, where shopWhere, what string, ch shop.Changes) error {
	done, w, a, err := actor.shopAccess(e, what)
	if err != nil {
		return err
	}
	defer done()
	st, err := w.Reserving(where.PublicURL, where.ShopDomain).Update(e.ctx, a, ch)
	if err != nil {
		return err
	}
	return where.print(e, st)
}

// print writes the window as get_shop answers it (--json), or as lines.
func (w shopWhere) print(e *env, st *shop.Settings) error {
	out := shapes.ShopView(st, shop.Where(w.PublicURL, w.ShopDomain, st.Tenant.Slug, st.Shop))
	if w.JSON {
		return e.print(true, out, "")
	}
	state := "closed"
	if out.Open {
		state = "open"
	}
	lines := []string{fmt.Sprintf("Shop window of %s (%s): %s, version %d", st.Tenant.Name, st.Tenant.Slug, state, out.Version)}
	add := func(name, value string) {
		if value == "" {
			value = "-"
		}
		lines = append(lines, fmt.Sprintf("  %-12s %s", name+":", value))
	}
	add("product URL", out.ProductURL)
	add("country", out.Country)
	add("stock", out.Stock)
	add("domain", out.Domain)
	names := slices.Sorted(maps.Keys(out.Options))
	pairs := make([]string, len(names))
	for i, n := range names {
		pairs[i] = n + "=" + out.Options[n]
	}
	add("options", strings.Join(pairs, ", "))
	u := out.URLs
	for _, l := range [][2]string{{"window", u.Window}, {"UCP profile", u.Profile}, {"UCP MCP", u.MCP}, {"UCP REST", u.REST},
		{"Google feed", u.GoogleFeed}, {"OpenAI feed", u.OpenAIFeed}} {
		if l[1] != "" {
			add(l[0], l[1])
		}
	}
	for _, h := range u.Hosts {
		add("also at", h)
	}
	if u.Window == "" {
		lines = append(lines, "  (--public-url prints the window's URLs under the server)")
	}
	_, err := fmt.Fprintln(e.stdout, strings.Join(lines, "\n"))
	return err
}

// ShopCheckCmd reports what keeps products off the channels.
type ShopCheckCmd struct {
	catalogActor
	Market  string `placeholder:"HANDLE" help:"Check one market's window: its assortment, prices and locales."`
	Channel string `placeholder:"ucp|google|openai" help:"One channel; default: every one."`
	Reason  string `placeholder:"REASON" help:"With --channel: list every product of that reason (no_image, no_brand...), not three."`
	JSON    bool   `name:"json" help:"Print the report as one JSON object, as check_shop answers."`
}

// Run prints the report: per channel, per reason, the count and the
// products (three of each, or every one of --reason).
func (c *ShopCheckCmd) Run(e *env) error {
	done, w, a, err := c.shopAccess(e, "shop check")
	if err != nil {
		return err
	}
	defer done()
	q := shop.CheckQuery{Market: c.Market, Channel: c.Channel, Reason: c.Reason}
	if c.Reason != "" {
		q.Limit = vitrine.MaxPageLimit
	}
	r, err := w.Check(e.ctx, a, q)
	if err != nil {
		return err
	}
	// Every page of the reason asked for, for a report whole.
	for c.Reason != "" && len(r.Channels) == 1 && len(r.Channels[0].Reasons) == 1 && r.Channels[0].Reasons[0].NextCursor != "" {
		rr := &r.Channels[0].Reasons[0]
		q.Cursor = rr.NextCursor
		next, err := w.Check(e.ctx, a, q)
		if err != nil {
			return err
		}
		more := next.Channels[0].Reasons[0]
		rr.Page, rr.NextCursor, rr.More = append(rr.Page, more.Page...), more.NextCursor, more.More
	}
	if c.JSON {
		return e.print(true, shapes.CheckShopView(r), "")
	}
	state := "closed"
	if r.Open {
		state = "open"
	}
	fmt.Fprintf(e.stdout, "%d active products; the window is %s.\n", r.Products, state)
	for _, ch := range r.Channels {
		fmt.Fprintf(e.stdout, "%s: %d ready, %d blocked\n", ch.Channel, ch.Ready, ch.Blocked)
		for _, rr := range ch.Reasons {
			fmt.Fprintf(e.stdout, "  %s: %d products\n", rr.Reason, rr.Products)
			if rr.Fix != "" {
				fmt.Fprintf(e.stdout, "    %s\n", rr.Fix)
			}
			for _, b := range rr.Page {
				fmt.Fprintf(e.stdout, "    %s  %s: %s\n", b.ID, b.Handle, b.Detail)
			}
			if rr.More && c.Reason == "" {
				fmt.Fprintf(e.stdout, "    ... --channel %s --reason %s lists them all\n", ch.Channel, rr.Reason)
			}
		}
	}
	return nil
}
