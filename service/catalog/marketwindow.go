package catalog

import (
	"context"
	"strings"

	"github.com/vitrine/vitrine"
)

// A market's window: the company's window as one of its markets publishes
// it (its assortment, its currency, its locales), and the locale any
// window's text is read in. A Shopper made by OpenWindowBySlug or
// OpenWindowByDomain reads the company's own window, the default market;
// Market, ForContext and InLocale return a Shopper that reads the same
// company's window otherwise, and nothing else changes: every rule of what
// is shown holds, and a product outside a market's assortment is as absent
// from its window as a draft.

// maxLocaleLength bounds a locale a request names: a BCP 47 tag that
// names a language, a script and a region is far shorter, and a longer
// one is no window's.
const maxLocaleLength = 35

// windowMarket is a market as its window reads it.
type windowMarket struct {
	ID, Handle, Currency string
	Countries, Locales   []string
	// Stamp moves with every change of the market that its window shows
	// (its settings, its prices).
	Stamp string
}

// marketView is where a Shopper reads: a market (nil for the company's
// own window) and the locale its text is read in ("" for the window's
// first).
type marketView struct {
	market *windowMarket
	locale string
}

// Market returns the shopper of the window of the company's market of that
// handle; a market the company does not have, or a handle that could name
// none, is a NotFoundError, as a window nobody has is. A market's window
// holds no other market's.
func (sh *Shopper) Market(ctx context.Context, handle string) (*Shopper, error) {
	id, err := sh.tenantID()
	if err != nil {
		return nil, err
	}
	if sh.in.market != nil || !plausibleHandle(handle) {
		return nil, vitrine.NotFound("Shop")
	}
	m, err := sh.cat.windowMarketByHandle(ctx, id, handle)
	if err != nil {
		return nil, err
	}
	out := *sh
	out.in = marketView{market: m}
	return &out, nil
}

// ForContext returns the shopper of the company's market that sells to
// country (ISO 3166-1 alpha-2, any case), else of its market of currency
// when that is not the company's own, else sh itself: on the company's own
// window, UCP's context.address_country and context.currency pick the
// market an answer is given in. A market's window stays its own market's.
func (sh *Shopper) ForContext(ctx context.Context, country, currency string) (*Shopper, error) {
	id, err := sh.tenantID()
	if err != nil {
		return nil, err
	}
	if sh.in.market != nil || (country == "" && currency == "") {
		return sh, nil
	}
	if currency != "" && strings.EqualFold(currency, sh.tenant.Currency) && country == "" {
		return sh, nil
	}
	ms, err := sh.cat.windowMarkets(ctx, id)
	if err != nil || len(ms) == 0 {
		return sh, err
	}
	pick := func(m *windowMarket) *Shopper {
		out := *sh
		out.in = marketView{market: m, locale: sh.in.locale}
		out.in.locale = out.resolveLocale(sh.in.locale)
		return &out
	}
	if country != "" {
		for _, m := range ms {
			for _, c := range m.Countries {
				if strings.EqualFold(c, country) {
					return pick(m), nil
				}
			}
		}
	}
	if currency != "" && !strings.EqualFold(currency, sh.tenant.Currency) {
		for _, m := range ms {
			if strings.EqualFold(m.Currency, currency) {
				return pick(m), nil
			}
		}
	}
	return sh, nil
}

// InLocale returns the shopper that reads the window's text in locale:
// one of the window's locales (Locales), matched without regard to case,
// else one of the same language ("es-MX" reads "es"); any other, and none,
// read the window's first. Fields untranslated in it read the company's
// default locale.
func (sh *Shopper) InLocale(locale string) *Shopper {
	out := *sh
	out.in.locale = sh.resolveLocale(locale)
	return &out
}

// resolveLocale is the window's locale that a request's locale names, ""
// for the window's first.
func (sh *Shopper) resolveLocale(locale string) string {
	locale = strings.TrimSpace(locale)
	if locale == "" || len(locale) > maxLocaleLength {
		return ""
	}
	ls := sh.Locales()
	for _, l := range ls {
		if strings.EqualFold(l, locale) {
			return l
		}
	}
	lang, _, _ := strings.Cut(locale, "-")
	for _, l := range ls {
		if base, _, _ := strings.Cut(l, "-"); strings.EqualFold(base, lang) {
			return l
		}
	}
	return ""
}

// Locales are the locales the window is read in, its first the one it is
// read in by default: a market's own, or the company's.
func (sh *Shopper) Locales() []string {
	if m := sh.in.market; m != nil && len(m.Locales) > 0 {
		return m.Locales
	}
	return sh.companyLocales()
}

// companyLocales are the company's locales, its default first: none for
// a company of one locale, whose window answers as it always has.
func (sh *Shopper) companyLocales() []string {
	if sh.tenant == nil || !sh.tenant.Multilingual() {
		return nil
	}
	return sh.tenant.Languages()
}

// Locale is the locale the shopper reads text in: one of Locales, ""
// when the window has none of its own (a company of one locale).
func (sh *Shopper) Locale() string {
	if sh.in.locale != "" {
		return sh.in.locale
	}
	if ls := sh.Locales(); len(ls) > 0 {
		return ls[0]
	}
	return ""
}

// DefaultLocale reports whether the shopper reads the window's first
// locale, whose links need no locale of their own.
func (sh *Shopper) DefaultLocale() bool {
	ls := sh.Locales()
	return len(ls) == 0 || sh.Locale() == ls[0]
}

// Multilingual reports whether the window's text may be read in more than
// one locale, or is a market's: then its answers say their language. A
// company of one locale without markets answers as it always has.
func (sh *Shopper) Multilingual() bool {
	return sh.in.market != nil || len(sh.companyLocales()) > 1
}

// MarketHandle is the handle of the market the shopper reads, "" for the
// company's own window.
func (sh *Shopper) MarketHandle() string {
	if sh.in.market == nil {
		return ""
	}
	return sh.in.market.Handle
}

// Currency is the currency of the window's prices: its market's, or the
// company's.
func (sh *Shopper) Currency() string {
	if sh.in.market != nil {
		return sh.in.market.Currency
	}
	return sh.tenant.Currency
}

// plausibleHandle reports whether a URL's segment could be a market's
// handle at all: anything else is not found without a query.
func plausibleHandle(h string) bool {
	if h == "" || len(h) > 100 {
		return false
	}
	for _, r := range h {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// windowMarketByHandle reads a company's market by its handle.
func (s *Catalog) windowMarketByHandle(ctx context.Context, tenantID, handle string) (*windowMarket, error) {
	return nil, vitrine.NotFound("Shop")
}

// windowMarkets reads a company's markets.
func (s *Catalog) windowMarkets(ctx context.Context, tenantID string) ([]*windowMarket, error) {
	return nil, nil
}
