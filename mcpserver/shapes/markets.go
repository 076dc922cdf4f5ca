package shapes

import (
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service/shop"
)

type (
	marketLocale string
	rounding     string
)

// MarketIncludeIn is a market's assortment.
type MarketIncludeIn struct {
	CategoryIDs []string            `json:"category_ids,omitempty" jsonschema:"With their subcategories."`
	Tags        []vitrine.QueryText `json:"tags,omitempty"`
}

type SaveMarketIn struct {
	TenantArg
	Handle       handle               `json:"handle" jsonschema:"Its window: /markets/{handle}/. Saving it again replaces it."`
	Name         shortText            `json:"name"`
	Countries    []countryCode        `json:"countries" jsonschema:"ISO 3166-1 alpha-2; each in one market at most."`
	Currency     vitrine.CurrencyCode `json:"currency"`
	Locales      []marketLocale       `json:"locales" jsonschema:"The company's locales, the first the market's default."`
	ExchangeRate vitrine.Decimal      `json:"exchange_rate" jsonschema:"Units of currency per unit of the catalog's: \"0.18\"."`
	Rounding     rounding             `json:"rounding" jsonschema:"Converted prices go up to the next .99, .90 or whole unit; none: nearest cent."`
	Include      *MarketIncludeIn     `json:"include,omitempty" jsonschema:"Active products in any of these categories or with any of these tags. Default: all."`
	Domain       *domainName          `json:"domain,omitempty" jsonschema:"A host serving its window."`
}

// In is the service's reading of the arguments.
func (in SaveMarketIn) In() shop.MarketIn {
	out := shop.MarketIn{Handle: string(in.Handle), Name: string(in.Name), Currency: string(in.Currency), ExchangeRate: string(in.ExchangeRate),
		Rounding: string(in.Rounding)}
	for _, c := range in.Countries {
		out.Countries = append(out.Countries, string(c))
	}
	for _, l := range in.Locales {
		out.Locales = append(out.Locales, string(l))
	}
	if in.Include != nil {
		out.Include.CategoryIDs = in.Include.CategoryIDs
		for _, t := range in.Include.Tags {
			out.Include.Tags = append(out.Include.Tags, string(t))
		}
	}
	if in.Domain != nil {
		out.Domain = string(*in.Domain)
	}
	return out
}

// MarketOut is a market as the market tools show it.
type MarketOut struct {
	ID           string                 `json:"id"`
	Handle       string                 `json:"handle"`
	Name         string                 `json:"name"`
	Countries    []string               `json:"countries"`
	Currency     string                 `json:"currency"`
	Locales      []string               `json:"locales"`
	ExchangeRate string                 `json:"exchange_rate"`
	Rounding     string                 `json:"rounding"`
	Include      *vitrine.MarketInclude `json:"include,omitempty"`
	Domain       string                 `json:"domain,omitempty"`
	Version      int64                  `json:"version"`
	UpdatedAt    time.Time              `json:"updated_at"`
}

// MarketView is m as the tools show it.
func MarketView(m *vitrine.Market) MarketOut {
	out := MarketOut{ID: m.ID, Handle: m.Handle, Name: m.Name, Countries: m.Countries, Currency: m.Currency, Locales: m.Locales,
		ExchangeRate: string(m.ExchangeRate), Rounding: string(m.Rounding), Domain: m.Domain, Version: m.Version, UpdatedAt: m.UpdatedAt}
	if !m.Include.Empty() {
		in := m.Include
		out.Include = &in
	}
	return out
}

type ListMarketsOut struct {
	Markets []MarketOut `json:"markets"`
}

type MarketHandleIn struct {
	TenantArg
	Handle handle `json:"handle"`
}

type DeleteMarketOut struct {
	Handle  string `json:"handle"`
	Deleted bool   `json:"deleted"`
}

// MarketPriceIn is a variant's price in a market.
type MarketPriceIn struct {
	VariantID      string           `json:"variant_id,omitempty"`
	SKU            sku              `json:"sku,omitempty"`
	Price          *vitrine.Decimal `json:"price,omitempty" jsonschema:"In the market's currency; \"\", null or none removes it."`
	CompareAtPrice *vitrine.Decimal `json:"compare_at_price,omitempty"`
}

type SetMarketPricesIn struct {
	TenantArg
	Market handle          `json:"market" jsonschema:"Its handle."`
	Prices []MarketPriceIn `json:"prices" jsonschema:"Each by variant_id or sku."`
}

// Rows are the service's reading of the prices.
func (in SetMarketPricesIn) Rows() []shop.PriceRow {
	out := make([]shop.PriceRow, len(in.Prices))
	for i, p := range in.Prices {
		out[i] = shop.PriceRow{VariantID: p.VariantID, SKU: string(p.SKU), Price: (*string)(p.Price), CompareAtPrice: (*string)(p.CompareAtPrice)}
	}
	return out
}

type MarketPriceRowOut struct {
	Index     int        `json:"index"`
	VariantID string     `json:"variant_id,omitempty"`
	SKU       string     `json:"sku,omitempty"`
	Status    string     `json:"status" jsonschema:"set, removed or error."`
	Error     *ErrorBody `json:"error,omitempty"`
}

type SetMarketPricesOut struct {
	Set     int                 `json:"set"`
	Removed int                 `json:"removed"`
	Failed  int                 `json:"failed"`
	Rows    []MarketPriceRowOut `json:"rows"`
}

// SetMarketPricesView is the outcome of each row; bodyOf a row's error as
// a tool's error.
func SetMarketPricesView(rows []shop.PriceOutcome, bodyOf func(error, string) ErrorBody) SetMarketPricesOut {
	out := SetMarketPricesOut{Rows: make([]MarketPriceRowOut, len(rows))}
	for i, r := range rows {
		o := MarketPriceRowOut{Index: r.Index, VariantID: r.VariantID, SKU: r.SKU, Status: r.Status}
		switch r.Status {
		case shop.PriceSet:
			out.Set++
		case shop.PriceRemoved:
			out.Removed++
		default:
			out.Failed++
			b := bodyOf(r.Err, "")
			o.Error = &b
		}
		out.Rows[i] = o
	}
	return out
}
