package vitrine

import (
	"context"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"strings"
	"time"

	"golang.org/x/text/language"
)

// Market is a named publication of a company's catalog: to some countries,
// in a currency and locales, at prices converted from the catalog's by an
// exchange rate and a rounding rule (or set per variant), of an assortment
// (every active product, or those in some categories or with some tags),
// with a window of its own. The company itself is the default market; a
// Market is one of its others.
type Market struct {
	TenantID, ID string
	// Handle names it in its window's path (/markets/{handle}/) and in the
	// tools; unique in the company.
	Handle, Name string
	// Countries are ISO 3166-1 alpha-2 codes, upper case; a country is in
	// one market of a company at most.
	Countries []string
	// Currency is an ISO 4217 code, upper case.
	Currency string
	// Locales are BCP 47 tags, the first the market's default.
	Locales []string
	// ExchangeRate converts a price of the catalog into the market's
	// currency: one unit of the catalog's is ExchangeRate units of the
	// market's. An exact decimal in its one form ("0.18").
	ExchangeRate Decimal
	Rounding     Rounding
	Include      MarketInclude
	// Domain is a host name at whose root the market's window is served,
	// "" for none.
	Domain    string
	Version   int64
	CreatedAt time.Time
	UpdatedAt time.Time
	UpdatedBy string
}

// MarketInclude is a market's assortment: the active products in one of
// CategoryIDs or under one of them, or holding one of Tags; every active
// product when both are empty.
type MarketInclude struct {
	CategoryIDs []string `json:"category_ids,omitempty"`
	Tags        []string `json:"tags,omitempty"`
}

// Empty reports whether the assortment is the whole catalog.
func (in MarketInclude) Empty() bool { return len(in.CategoryIDs) == 0 && len(in.Tags) == 0 }

// MarketPrice is a variant's explicit price in a market, in minor units of
// the market's currency: it overrides the converted one.
type MarketPrice struct {
	VariantID      string
	Price          int64
	CompareAtPrice *int64
}

// Bounds of a market.
const (
	MaxMarkets          = 50
	MaxMarketCountries  = 250
	MaxMarketPriceBatch = 250
	maxRateDigits       = 12
)

// Rounding is how a converted price is rounded, in the market's currency.
type Rounding string

// The rounding rules. Each gives the smallest price of its form that is at
// least the converted amount (its exact value, never a float): "0.99" a
// price ending in .99 (10.00 → 10.99, 10.99 → 10.99, 11.01 → 11.99),
// "0.90" one ending in .90, "1.00" a whole unit (10.01 → 11.00); "none"
// rounds to the currency's minor unit, half up (10.005 → 10.01). In a
// currency without cents (JPY) "0.99" and "0.90" round as "1.00". A price
// of 0 stays 0 under every rule.
const (
	Rounding99   Rounding = "0.99"
	Rounding90   Rounding = "0.90"
	RoundingUnit Rounding = "1.00"
	RoundingNone Rounding = "none"
)

// Roundings are the rules, in the order they are listed.
var Roundings = []Rounding{Rounding99, Rounding90, RoundingUnit, RoundingNone}

// ParseRounding checks a rounding rule.
func ParseRounding(field, s string) (Rounding, error) {
	r := Rounding(strings.TrimSpace(s))
	if slices.Contains(Roundings, r) {
		return r, nil
	}
	return "", Invalid(field, "%s must be one of \"0.99\", \"0.90\", \"1.00\" or \"none\"; got %q", field, s)
}

// ParseExchangeRate checks an exchange rate: a decimal above zero, such as
// "0.18" or "5", at most 12 digits after the point and 9 before. It
// returns its one form (no leading or trailing zeros beyond one).
func ParseExchangeRate(field, s string) (Decimal, error) {
	bad := func(why string) error {
		return Invalid(field, "%s must be a decimal above 0 such as \"0.18\"%s; got %q", field, why, s)
	}
	whole, frac, dot := strings.Cut(strings.TrimSpace(s), ".")
	if whole == "" || !allDigits(whole) || (dot && (frac == "" || !allDigits(frac))) {
		return "", bad("")
	}
	whole = strings.TrimLeft(whole, "0")
	frac = strings.TrimRight(frac, "0")
	if len(frac) > maxRateDigits || len(whole) > 9 {
		return "", bad(" (at most 9 digits before the point and 12 after)")
	}
	if whole == "" && frac == "" {
		return "", bad("")
	}
	if whole == "" {
		whole = "0"
	}
	if frac == "" {
		return Decimal(whole), nil
	}
	return Decimal(whole + "." + frac), nil
}

// ValidateMarketCountries checks ISO 3166-1 alpha-2 codes, known ones: it
// returns them in upper case, each once.
func ValidateMarketCountries(field string, cs []string) ([]string, error) {
	if len(cs) == 0 {
		return nil, Invalid(field, "%s must name at least one country, such as [\"US\"]", field)
	}
	if len(cs) > MaxMarketCountries {
		return nil, Invalid(field, "%s names at most %d countries; got %d", field, MaxMarketCountries, len(cs))
	}
	out := make([]string, 0, len(cs))
	for i, c := range cs {
		f := fmt.Sprintf("%s[%d]", field, i)
		c, err := ValidateCountry(f, c)
		if err != nil {
			return nil, err
		}
		if r, perr := language.ParseRegion(c); c == "" || perr != nil || !r.IsCountry() || r.String() != c {
			return nil, Invalid(f, "%s is not a country of ISO 3166-1: %q", f, c)
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// ValidateMarketLocales checks a market's locales: BCP 47 tags, each one
// of the company's (t.Languages), returned as the company writes them,
// each once, in order.
func ValidateMarketLocales(field string, ls []string, t *Tenant) ([]string, error) {
	if len(ls) == 0 {
		return nil, Invalid(field, "%s must name at least one of the company's locales (%s)", field, strings.Join(t.Languages(), ", "))
	}
	if len(ls) > MaxLocales {
		return nil, Invalid(field, "%s names at most %d locales; got %d", field, MaxLocales, len(ls))
	}
	out := make([]string, 0, len(ls))
	for i, l := range ls {
		f := fmt.Sprintf("%s[%d]", field, i)
		if strings.TrimSpace(l) == "" {
			return nil, Invalid(f, "%s is empty; name one of the company's locales (%s)", f, strings.Join(t.Languages(), ", "))
		}
		l, err := t.ReadLocale(f, l)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out, nil
}

// Converter turns prices of the catalog into a market's: its exchange
// rate, exact, and its rounding, in its currency's minor unit.
type Converter struct {
	num, den *big.Int // the rate as num/den
	scale    int      // decimals of the market's currency
	rounding Rounding
	// The rate's num and den as machine words, when they fit one (a rate
	// of up to 19 digits; it may have 21): Convert's arithmetic in words,
	// exact, for every price whose products fit too, big integers only
	// beyond.
	num64, den64 uint64
	fits         bool
}

// NewConverter returns the converter of a rate in its one form
// (ParseExchangeRate), a rounding, and the decimals of the market's
// currency.
func NewConverter(rate Decimal, rounding Rounding, scale int) (*Converter, error) {
	r, err := ParseExchangeRate("exchange_rate", string(rate))
	if err != nil {
		return nil, err
	}
	whole, frac, _ := strings.Cut(string(r), ".")
	num, _ := new(big.Int).SetString(whole+frac, 10)
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	if _, err := ParseRounding("rounding", string(rounding)); err != nil {
		return nil, err
	}
	cv := &Converter{num: num, den: den, scale: scale, rounding: rounding}
	if num.IsUint64() && den.IsUint64() && scale < len(pow10s) {
		cv.num64, cv.den64, cv.fits = num.Uint64(), den.Uint64(), true
	}
	return cv, nil
}

// pow10s are the powers of ten a uint64 holds.
var pow10s = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// maxConverted bounds a converted price in minor units: 10^17, far from
// int64's limit.
var maxConverted = big.NewInt(100_000_000_000_000_000)

// Convert returns the price of minor units of a currency of fromScale
// decimals in the market's currency, in its minor units, by the rate and
// the rounding; false when the result is beyond any price (a rate and a
// price both absurd).
func (cv *Converter) Convert(minor int64, fromScale int) (int64, bool) {
	if minor <= 0 {
		return 0, minor == 0
	}
	if q, ok, done := cv.convert64(uint64(minor), fromScale); done {
		return int64(q), ok
	}
	// exact = minor × rate × 10^scale / 10^fromScale, in the market's
	// minor units, as num/den.
	num := new(big.Int).Mul(big.NewInt(minor), cv.num)
	num.Mul(num, pow10(cv.scale))
	den := new(big.Int).Mul(cv.den, pow10(fromScale))
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	// unit is a whole unit of the market's currency in minor units; end
	// the remainder a price of the rule's form leaves of one.
	unit := pow10(cv.scale)
	var end *big.Int
	switch {
	case cv.rounding == RoundingNone:
		// Half up: twice the remainder reaches the divisor.
		if new(big.Int).Lsh(r, 1).Cmp(den) >= 0 {
			q.Add(q, big.NewInt(1))
		}
	case cv.rounding == RoundingUnit || cv.scale < 2:
		end = big.NewInt(0)
	case cv.rounding == Rounding99:
		end = new(big.Int).Sub(unit, pow10(cv.scale-2))
	case cv.rounding == Rounding90:
		end = new(big.Int).Sub(unit, pow10(cv.scale-1))
	}
	if end != nil {
		if r.Sign() > 0 {
			q.Add(q, big.NewInt(1)) // the ceiling, in minor units
		}
		// The smallest price ≥ q whose remainder of a unit is end.
		whole := new(big.Int).Div(q, unit)
		p := new(big.Int).Add(new(big.Int).Mul(whole, unit), end)
		if p.Cmp(q) < 0 {
			p.Add(p, unit)
		}
		q = p
	}
	if q.Cmp(maxConverted) > 0 {
		return 0, false
	}
	return q.Int64(), true
}

// convert64 is Convert in machine words, the same arithmetic step by
// step: done false when a product of it would not fit one (then the big
// integers decide). Written by hand because math/big allocates each of a
// conversion's ten or so numbers, a cost every variant of a market's feed
// and window paid.
func (cv *Converter) convert64(minor uint64, fromScale int) (q uint64, ok, done bool) {
	if !cv.fits || fromScale < 0 || fromScale >= len(pow10s) {
		return 0, false, false
	}
	hi, num := bits.Mul64(minor, cv.num64)
	if hi != 0 {
		return 0, false, false
	}
	unit := pow10s[cv.scale]
	if hi, num = bits.Mul64(num, unit); hi != 0 {
		return 0, false, false
	}
	hi, den := bits.Mul64(cv.den64, pow10s[fromScale])
	if hi != 0 {
		return 0, false, false
	}
	q, r := num/den, num%den
	const most = 100_000_000_000_000_000 // maxConverted
	if q > most {
		return 0, false, true // rounding never lowers a price
	}
	var end uint64
	switch {
	case cv.rounding == RoundingNone:
		if r >= den-r { // half up: twice the remainder reaches the divisor
			q++
		}
		if q > most {
			return 0, false, true
		}
		return q, true, true
	case cv.rounding == RoundingUnit || cv.scale < 2:
		end = 0
	case cv.rounding == Rounding99:
		end = unit - pow10s[cv.scale-2]
	case cv.rounding == Rounding90:
		end = unit - pow10s[cv.scale-1]
	default:
		return 0, false, false
	}
	if r > 0 {
		q++ // the ceiling, in minor units
	}
	p := q/unit*unit + end
	if p < q {
		p += unit
	}
	if p > most {
		return 0, false, true
	}
	return p, true, true
}

// CatalogBounds returns the bounds of the catalog's prices, in minor
// units of a currency of fromScale decimals, whose conversions fall within
// min and max (minor units of the market's currency; nil for none): the
// conversion never decreases as the price grows, so the prices that
// convert into [min, max] are those in [lo, hi]. lo is nil when min is;
// hi nil when max is. A price whose conversion fails counts as above any
// bound.
func (cv *Converter) CatalogBounds(min, max *int64, fromScale int) (lo, hi *int64) {
	// above reports whether p converts to more than bound (or fails).
	above := func(p, bound int64) bool {
		c, ok := cv.Convert(p, fromScale)
		return !ok || c > bound
	}
	const top = int64(1) << 62
	if min != nil {
		// The least p whose conversion reaches min: the first p not
		// below it, in [0, top].
		l, h := int64(0), top
		for l < h {
			m := l + (h-l)/2
			if c, ok := cv.Convert(m, fromScale); !ok || c >= *min {
				h = m
			} else {
				l = m + 1
			}
		}
		lo = &l
	}
	if max != nil {
		// The greatest p whose conversion stays within max: one below
		// the first p above it.
		l, h := int64(0), top
		for l < h {
			m := l + (h-l)/2
			if above(m, *max) {
				h = m
			} else {
				l = m + 1
			}
		}
		x := l - 1
		hi = &x
	}
	return lo, hi
}

// MarketPriceRange is a range of a market's prices, as a product filter
// takes it (ProductQuery.MarketPrices): a variant is within it when its
// explicit price in the market is within Min and Max, or, without one,
// when its catalog price is within CatalogMin and CatalogMax, the prices
// whose conversion falls within Min and Max (Converter.CatalogBounds).
// Each bound nil for none; CatalogMin above CatalogMax when no catalog
// price converts into the range. Only the company's products in Currency,
// the catalog's, convert (as a price filter keeps those alone).
type MarketPriceRange struct {
	MarketID               string
	Min, Max               *int64
	Currency               CurrencyCode
	CatalogMin, CatalogMax *int64
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// MarketStore keeps a company's markets and their prices.
type MarketStore interface {
	// Markets returns the tenant's markets by handle.
	Markets(ctx context.Context, tenantID string) ([]*Market, error)
	// MarketByHandle returns the tenant's market of that handle, or
	// NotFoundError.
	MarketByHandle(ctx context.Context, tenantID, handle string) (*Market, error)
	// SaveMarket creates the market, or replaces the tenant's market of
	// its handle (its id and creation kept); then m holds what was
	// stored. A country of another of the tenant's markets, or a domain
	// another window serves, is a ConflictError.
	SaveMarket(ctx context.Context, ch Change, m *Market) error
	// DeleteMarket removes the tenant's market of that handle, and its
	// prices; NotFoundError when there is none.
	DeleteMarket(ctx context.Context, ch Change, tenantID, handle string) error
	// MarketPrices returns the market's explicit prices of those variants
	// that have one, by variant id.
	MarketPrices(ctx context.Context, tenantID, marketID string, variantIDs []string) (map[string]MarketPrice, error)
	// MarketHasPrices reports whether the market has an explicit price of
	// any variant.
	MarketHasPrices(ctx context.Context, tenantID, marketID string) (bool, error)
	// SetMarketPrices writes the market's explicit prices of set and
	// removes those of remove, in one write that moves the market's
	// version.
	SetMarketPrices(ctx context.Context, ch Change, tenantID, marketID string, set []MarketPrice, remove []string) error
	// OpenMarketByDomain returns the market served at that host name, with
	// its company and window, when the window is open; NotFoundError
	// otherwise.
	OpenMarketByDomain(ctx context.Context, domain string) (*Tenant, *Shop, *Market, error)
}
