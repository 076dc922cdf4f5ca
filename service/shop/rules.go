package shop

import (
	"errors"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/feed"
)

// The channels' rules are package internal/feed's (feed.Problems,
// feed.Reasons): what a feed leaves out is what check_shop reports.

// problemsOf returns what keeps p off channel, in the order of
// reasonOrder. (A variable, so that tests may stand rules in for them.)
var problemsOf = func(channel string, win *feed.Window, p *vitrine.Product) []Problem {
	if shop, pages := WithPages(win.Shop, ""); pages {
		// Linked to the window's own pages, as its feeds link them: no
		// product is left out for want of a link.
		w := *win
		w.Shop = shop
		win = &w
	}
	found := feed.Problems(channel, win, p)
	if len(found) == 0 {
		return nil
	}
	out := make([]Problem, len(found))
	for i, pr := range found {
		out[i] = Problem{Reason: string(pr.Reason), VariantID: pr.VariantID, Detail: pr.Detail}
	}
	return out
}

// reasonOrder lists the reasons in the order they are reported.
var reasonOrder = reasons()

func reasons() []string {
	out := make([]string, len(feed.Reasons))
	for i, r := range feed.Reasons {
		out[i] = string(r)
	}
	return append(out, reasonMarketPrice)
}

// reasonMarketPrice keeps a product out of a market whose price there
// cannot be computed (check_shop {market}).
const reasonMarketPrice = "market_price"

// windowReasons are the reasons of the window's own settings, which every
// product has until they are set.
var windowReasons = []string{string(feed.NoProductURL)}

// errNoRules is a check's failure without rules (a test's).
var errNoRules = errors.New("shop: no rules of the channels")
