package catalog

import (
	"context"
	"strconv"
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
	// among is its assortment as the store's filter takes it, nil for
	// every active product.
	among *vitrine.MarketInclude
	// view checks a product against the assortment and prices it.
	view *vitrine.MarketView
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
	m, err := s.store.MarketByHandle(ctx, tenantID, handle)
	if vitrine.TypeOf(err) == vitrine.NotFoundError {
		return nil, vitrine.NotFound("Shop")
	}
	if err != nil {
		return nil, err
	}
	cats, err := s.store.Categories(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	return newWindowMarket(m, cats)
}

// windowMarkets reads a company's markets.
func (s *Catalog) windowMarkets(ctx context.Context, tenantID string) ([]*windowMarket, error) {
	ms, err := s.store.Markets(ctx, tenantID)
	if err != nil || len(ms) == 0 {
		return nil, err
	}
	cats, err := s.store.Categories(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	out := make([]*windowMarket, 0, len(ms))
	for _, m := range ms {
		wm, err := newWindowMarket(m, cats)
		if err != nil {
			return nil, err
		}
		out = append(out, wm)
	}
	return out, nil
}

// newWindowMarket is m as its window reads it, with the company's
// categories: its assortment's categories and those under them.
func newWindowMarket(m *vitrine.Market, cats []*vitrine.Category) (*windowMarket, error) {
	view, err := vitrine.NewMarketView(m, cats)
	if err != nil {
		return nil, err
	}
	wm := &windowMarket{ID: m.ID, Handle: m.Handle, Currency: m.Currency, Countries: m.Countries, Locales: m.Locales,
		Stamp: strconv.FormatInt(m.Version, 36), view: view}
	if !m.Include.Empty() {
		wm.among = &vitrine.MarketInclude{CategoryIDs: m.Include.CategoryIDs, Tags: m.Include.Tags}
	}
	return wm, nil
}

// inMarket reports whether a product is in the assortment of the market
// the shopper reads: every product is in the company's own window's.
func (sh *Shopper) inMarket(p *vitrine.Product) bool {
	return sh.in.market == nil || sh.in.market.view.Includes(p)
}

// among is the assortment a store filter of the shopper's keeps: nil for
// every product.
func (sh *Shopper) among() *vitrine.MarketInclude {
	if sh.in.market == nil {
		return nil
	}
	return sh.in.market.among
}

// priced returns the products as the market the shopper reads sells them:
// copies in its currency, each variant at its explicit price there, else
// at its price converted by the market's rate and rounding (compare-at
// alike); a product a price of which cannot be converted is left out. The
// company's own window returns ps as they are. shown, when given, are the
// variants list rows show (ProductPage.Shown), returned as the copies'.
func (sh *Shopper) priced(ctx context.Context, ps []*vitrine.Product, shown []*vitrine.Variant) ([]*vitrine.Product, []*vitrine.Variant, error) {
	m := sh.in.market
	if m == nil || len(ps) == 0 {
		return ps, shown, nil
	}
	var ids []string
	for _, p := range ps {
		for _, v := range p.Variants {
			ids = append(ids, v.ID)
		}
	}
	explicit, err := sh.cat.store.MarketPrices(ctx, sh.tenant.ID, m.ID, ids)
	if err != nil {
		return nil, nil, err
	}
	out := make([]*vitrine.Product, 0, len(ps))
	var outShown []*vitrine.Variant
	if shown != nil {
		outShown = make([]*vitrine.Variant, 0, len(ps))
	}
	for i, p := range ps {
		c, ok := m.price(p, explicit)
		if !ok {
			continue
		}
		out = append(out, c)
		if shown != nil {
			var sv *vitrine.Variant
			for j, v := range p.Variants {
				if v == shown[i] {
					sv = c.Variants[j]
				}
			}
			outShown = append(outShown, sv)
		}
	}
	return out, outShown, nil
}

// price is a copy of p in the market's currency at its prices; false when
// a price cannot be converted.
func (m *windowMarket) price(p *vitrine.Product, explicit map[string]vitrine.MarketPrice) (*vitrine.Product, bool) {
	return m.view.Price(p, explicit)
}

// CatalogPriceBounds returns the bounds, in minor units of the company's
// currency, of the catalog's prices that the window sells within min and
// max (minor units of the window's currency; nil for none): on the
// company's own window, min and max; in a market, the prices whose
// conversion falls within them. In a market with prices of its own
// (own), no bound of the catalog's prices says which variants fall within
// the range: a search asks by the market's prices instead
// (ProductQuery.MarketPrices, which Search completes).
func (sh *Shopper) CatalogPriceBounds(ctx context.Context, min, max *int64) (lo, hi *int64, own bool, err error) {
	m := sh.in.market
	if m == nil {
		return min, max, false, nil
	}
	explicit, err := sh.cat.store.MarketHasPrices(ctx, sh.tenant.ID, m.ID)
	if err != nil || explicit {
		return nil, nil, explicit, err
	}
	lo, hi = m.view.CatalogBounds(min, max, vitrine.CurrencyScale(sh.tenant.Currency))
	return lo, hi, false, nil
}

// marketPrices completes a search's range of the market's prices: its
// market, and the catalog's prices that convert into it. A range outside
// a market's window is a ValidationError.
func (sh *Shopper) marketPrices(r *vitrine.MarketPriceRange) (*vitrine.MarketPriceRange, error) {
	m := sh.in.market
	if m == nil {
		return nil, vitrine.Invalid("price", "a range of a market's prices is searched in the market's window")
	}
	out := &vitrine.MarketPriceRange{MarketID: m.ID, Min: r.Min, Max: r.Max, Currency: vitrine.CurrencyCode(sh.tenant.Currency)}
	out.CatalogMin, out.CatalogMax = m.view.CatalogBounds(r.Min, r.Max, vitrine.CurrencyScale(sh.tenant.Currency))
	return out, nil
}
