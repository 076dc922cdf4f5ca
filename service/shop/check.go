package shop

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/feed"
	"github.com/vitrine/vitrine/service"
)

// Problem is why a product, or one variant of it, cannot be published on
// a channel, as package internal/feed's rules (rules.go) say.
type Problem struct {
	Reason string
	// VariantID is the variant it is of; "" for the whole product.
	VariantID string
	// Detail says what to fix.
	Detail string
}

// CheckQuery is check_shop's arguments.
type CheckQuery struct {
	// Channel is one of vitrine.ShopChannels; "" for every one.
	Channel string
	// Market is the handle of one of the company's markets, whose
	// assortment, prices and locales are checked; "" for the company's
	// own window.
	Market string
	// Reason, with Channel, lists the products of that reason alone, a
	// page of Limit after Cursor.
	Reason string
	Limit  int
	Cursor string
}

// Report is what keeps a company's active products off each channel.
type Report struct {
	Open bool
	// Products are the active products checked: only they are published.
	Products int
	Channels []ChannelReport
	// Locales are the company's locales other than the default, each
	// with its translation gaps; none for a company of one locale, or a
	// page of one reason.
	Locales []LocaleReport
}

// ChannelReport is one channel's part of a Report.
type ChannelReport struct {
	Channel string
	// Ready products have nothing keeping them, or any variant, off it.
	Ready int
	// Blocked products are left out whole, or some of their variants.
	Blocked int
	Reasons []ReasonReport
}

// ReasonReport counts the products of one reason, and shows some.
type ReasonReport struct {
	Reason   string
	Products int
	// Fix, for a reason of the window's own settings (every product has
	// it), says what to change; Page then lists no products.
	Fix  string
	Page []Blocked
	// More says that more products than Page have it: check_shop with
	// the channel and the reason pages through them (NextCursor, when it
	// was asked for alone).
	More       bool
	NextCursor string
}

// Blocked is one product a reason keeps off a channel.
type Blocked struct {
	ID, Handle, Name string
	// Variants is how many of its variants the reason is of; 0 when it is
	// the whole product's.
	Variants int
	// Detail is the first problem's, of this reason.
	Detail string
}

// Bounds of a check's answer: products shown per reason when every reason
// is asked for; a reason's page is limit's (service.PageSize).
const previewPerReason = 3

// checkBatch is how many products a check reads at a time.
const checkBatch = 500

// checkCursor is the position of a page of a reason's products: the id of
// the last one shown (products are read in the order of their ids).
type checkCursor struct {
	ID string `json:"i"`
}

func (c checkCursor) ValidCursor() bool { return vitrine.ValidID(c.ID) }

// Check reads every active product of the company once and reports, per
// channel, the products its rules keep off it, counted by reason, with a
// few of each (or, for one channel and reason, a page of them).
func (w *Window) Check(ctx context.Context, a *service.Access, q CheckQuery) (*Report, error) {
	if err := a.Allow(service.OpCheckShop); err != nil {
		return nil, err
	}
	channels := vitrine.ShopChannels
	if q.Channel != "" {
		if !slices.Contains(vitrine.ShopChannels, q.Channel) {
			return nil, vitrine.Invalid("channel", "channel must be one of %s; got %q", vitrine.Quoted(vitrine.ShopChannels), q.Channel)
		}
		channels = []string{q.Channel}
	}
	var pg *service.Page[checkCursor]
	if q.Reason != "" {
		if q.Channel == "" {
			return nil, vitrine.Invalid("reason", "reason pages the products of one channel: give channel too")
		}
		if !slices.Contains(reasonOrder, q.Reason) {
			return nil, vitrine.Invalid("reason", "reason must be one of %s; got %q", vitrine.Quoted(reasonOrder), q.Reason)
		}
		var err error
		if pg, err = service.OpenPage[checkCursor](ctx, w.svc, a.TenantID+"\x00check_shop\x00"+q.Market+"\x00"+q.Channel+"\x00"+q.Reason, q.Limit, q.Cursor); err != nil {
			return nil, err
		}
	} else if q.Limit != 0 || q.Cursor != "" {
		return nil, vitrine.Invalid("cursor", "limit and cursor page the products of one reason: give channel and reason too")
	}
	if problemsOf == nil {
		return nil, errNoRules
	}
	win, err := w.feedWindow(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	var market *vitrine.MarketView
	if q.Market != "" {
		if market, err = w.marketView(ctx, a.TenantID, q.Market, win); err != nil {
			return nil, err
		}
	}
	shown := previewPerReason + 1 // one beyond, to know there are more
	if pg != nil {
		shown = pg.Fetch()
	}
	tally := make([]*channelTally, len(channels))
	for i := range channels {
		tally[i] = &channelTally{reasons: map[string]*reasonTally{}}
	}
	report := &Report{Open: win.Shop.Open}
	pq := vitrine.ProductQuery{Status: vitrine.ProductActive, Sort: vitrine.SortCreated}
	if market != nil && !market.Market.Include.Empty() {
		pq.Among = &market.Market.Include
	}
	f, err := vitrine.NewProductFilter(pq)
	if err != nil {
		return nil, err
	}
	f = f.Page(checkBatch, nil)
	var locales *localeTally
	if pg == nil {
		if locales, err = w.newLocaleTally(ctx, a.TenantID, market); err != nil {
			return nil, err
		}
	}
	for {
		ps, err := w.store.ListProducts(ctx, a.TenantID, f)
		if err != nil {
			return nil, err
		}
		if err := locales.add(ctx, w, a.TenantID, ps); err != nil {
			return nil, err
		}
		priced, err := w.inMarket(ctx, a.TenantID, market, ps)
		if err != nil {
			return nil, err
		}
		for j, p := range ps {
			report.Products++
			for i, ch := range channels {
				var problems []Problem
				if priced[j] != nil {
					problems = problemsOf(ch, win, priced[j])
				} else {
					problems = unpriced(market)
				}
				tally[i].add(p, problems, q.Reason, pg, shown)
			}
		}
		if len(ps) < checkBatch {
			break
		}
		f = f.Page(checkBatch, &vitrine.ProductKey{ID: ps[len(ps)-1].ID})
	}
	for i, ch := range channels {
		report.Channels = append(report.Channels, tally[i].report(ch, report.Products, q.Reason, pg))
	}
	report.Locales = locales.report()
	return report, nil
}

// marketView reads the company's market of that handle as its window
// does; a market it does not have is a NotFoundError.
func (w *Window) marketView(ctx context.Context, tenantID, handle string, win *feed.Window) (*vitrine.MarketView, error) {
	m, err := w.store.MarketByHandle(ctx, tenantID, handle)
	if err != nil {
		return nil, err
	}
	return vitrine.NewMarketView(m, slices.Collect(maps.Values(win.Categories)))
}

// inMarket returns the products as the market sells them (its prices, in
// its currency), nil for one whose price cannot be computed; ps as they
// are without a market.
func (w *Window) inMarket(ctx context.Context, tenantID string, market *vitrine.MarketView, ps []*vitrine.Product) ([]*vitrine.Product, error) {
	if market == nil {
		return ps, nil
	}
	var ids []string
	for _, p := range ps {
		for _, v := range p.Variants {
			ids = append(ids, v.ID)
		}
	}
	explicit, err := w.store.MarketPrices(ctx, tenantID, market.Market.ID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*vitrine.Product, len(ps))
	for i, p := range ps {
		if c, ok := market.Price(p, explicit); ok {
			out[i] = c
		}
	}
	return out, nil
}

// unpriced is the problem of a product whose price in the market cannot
// be computed: it is in no window nor feed of the market.
func unpriced(market *vitrine.MarketView) []Problem {
	return []Problem{{Reason: reasonMarketPrice, Detail: fmt.Sprintf("a price converted into %s by the market's exchange rate passes any price; "+
		"set_market_prices {market: %q, prices: [{variant_id, price}]} gives each variant its own", market.Market.Currency, market.Market.Handle)}}
}

// feedWindow is what the channels' rules read of the company: its window,
// its attribute definitions (a public one may fill a feed attribute) and
// its categories (their paths say what a product is).
func (w *Window) feedWindow(ctx context.Context, tenantID string) (*feed.Window, error) {
	s, err := w.store.Shop(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	defs, err := w.store.Attributes(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	cats, err := w.store.Categories(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	return feed.NewWindow(s, defs, cats), nil
}

type channelTally struct {
	blocked int
	reasons map[string]*reasonTally
}

type reasonTally struct {
	products int
	detail   string // the first product's
	page     []Blocked
}

func (t *channelTally) add(p *vitrine.Product, problems []Problem, only string, pg *service.Page[checkCursor], shown int) {
	if len(problems) == 0 {
		return
	}
	t.blocked++
	var seen []string
	for _, pr := range problems {
		if slices.Contains(seen, pr.Reason) {
			continue
		}
		seen = append(seen, pr.Reason)
		r := t.reasons[pr.Reason]
		if r == nil {
			r = &reasonTally{detail: pr.Detail}
			t.reasons[pr.Reason] = r
		}
		r.products++
		if (only != "" && pr.Reason != only) || slices.Contains(windowReasons, pr.Reason) || len(r.page) >= shown {
			continue
		}
		if pg != nil && pg.After != nil && p.ID <= pg.After.ID {
			continue
		}
		b := Blocked{ID: p.ID, Handle: p.Handle, Name: p.Name, Detail: pr.Detail}
		for _, other := range problems {
			if other.Reason == pr.Reason && other.VariantID != "" {
				b.Variants++
			}
		}
		r.page = append(r.page, b)
	}
}

func (t *channelTally) report(channel string, products int, only string, pg *service.Page[checkCursor]) ChannelReport {
	out := ChannelReport{Channel: channel, Blocked: t.blocked, Ready: products - t.blocked, Reasons: []ReasonReport{}}
	for _, reason := range reasonOrder {
		r := t.reasons[reason]
		if r == nil || (only != "" && reason != only) {
			continue
		}
		rr := ReasonReport{Reason: reason, Products: r.products}
		switch {
		case slices.Contains(windowReasons, reason):
			rr.Fix = r.detail
		case pg != nil:
			rr.Page, rr.NextCursor = service.ClosePage(pg, r.page, func(i int) checkCursor { return checkCursor{ID: r.page[i].ID} })
			rr.More = rr.NextCursor != ""
		default:
			rr.Page = r.page
			if len(rr.Page) > previewPerReason {
				rr.Page = rr.Page[:previewPerReason]
			}
			rr.More = r.products > len(rr.Page)
		}
		out.Reasons = append(out.Reasons, rr)
	}
	return out
}
