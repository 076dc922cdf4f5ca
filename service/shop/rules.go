package shop

import (
	"errors"

	"github.com/vitrine/vitrine"
)

// The channels' rules are package shopwindow/feed's (feed.Problems,
// feed.Reasons): what a feed leaves out is what check_shop reports.
// Until that package is on this branch's main, no rules are wired, and a
// check fails rather than report nothing wrong.

// problemsOf returns what keeps p off channel, in the order of
// reasonOrder; nil when no rules are wired.
var problemsOf func(channel string, s *vitrine.Shop, p *vitrine.Product) []Problem

// reasonOrder lists the reasons in the order they are reported
// (feed.Reasons).
var reasonOrder = []string{"no_product_url", "no_country", "no_description", "no_image", "no_brand", "price_zero", "title_too_long", "no_gtin_or_mpn"}

// errNoRules is a check's failure while no rules are wired.
var errNoRules = errors.New("shop: the channels' rules (shopwindow/feed) are not wired")
