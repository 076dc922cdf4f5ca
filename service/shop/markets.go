package shop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// A company's markets (issue 47): each a publication of its catalog to
// some countries, in a currency and locales, at prices converted from the
// catalog's (or set per variant), of an assortment, with a window of its
// own. Saved, listed and deleted with shop:manage, every write audited in
// its own transaction (the store's).

// MarketIn are save_market's arguments, as given.
type MarketIn struct {
	Handle, Name string
	Countries    []string
	Currency     string
	Locales      []string
	ExchangeRate string
	Rounding     string
	Include      vitrine.MarketInclude
	Domain       string
}

// maxMarketHandle bounds a market's handle: a segment of its window's
// path.
const maxMarketHandle = 100

// Markets returns the company's markets by handle.
func (w *Window) Markets(ctx context.Context, a *service.Access) ([]*vitrine.Market, error) {
	if err := a.Allow(service.OpListMarkets); err != nil {
		return nil, err
	}
	return w.store.Markets(ctx, a.TenantID)
}

// SaveMarket creates the company's market of in's handle, or replaces it
// whole. Each argument is checked in the order the tool lists them: a
// currency, a country or a locale that is not one, a category the company
// does not have, are ValidationErrors that name the field; a country of
// another of its markets, or a domain another window serves, a
// ConflictError.
func (w *Window) SaveMarket(ctx context.Context, a *service.Access, in MarketIn) (*vitrine.Market, error) {
	if err := a.Allow(service.OpSaveMarket); err != nil {
		return nil, err
	}
	t, err := w.store.TenantByID(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	m := &vitrine.Market{TenantID: a.TenantID}
	if m.Handle, err = vitrine.ValidateHandle("handle", in.Handle); err != nil {
		return nil, err
	}
	if len(m.Handle) > maxMarketHandle {
		return nil, vitrine.Invalid("handle", "handle is %d characters long; the limit is %d", len(m.Handle), maxMarketHandle)
	}
	if m.Name, err = vitrine.ValidateName("name", in.Name, 200); err != nil {
		return nil, err
	}
	if m.Countries, err = vitrine.ValidateMarketCountries("countries", in.Countries); err != nil {
		return nil, err
	}
	if m.Currency, _, err = vitrine.NormalizeCurrency("currency", strings.ToUpper(strings.TrimSpace(in.Currency))); err != nil {
		return nil, err
	}
	if m.Locales, err = vitrine.ValidateMarketLocales("locales", in.Locales, t); err != nil {
		return nil, err
	}
	if m.ExchangeRate, err = vitrine.ParseExchangeRate("exchange_rate", in.ExchangeRate); err != nil {
		return nil, err
	}
	if m.Rounding, err = vitrine.ParseRounding("rounding", in.Rounding); err != nil {
		return nil, err
	}
	if m.Include, err = w.checkInclude(ctx, a.TenantID, in.Include); err != nil {
		return nil, err
	}
	if m.Domain, err = vitrine.ValidateDomain("domain", in.Domain); err != nil {
		return nil, err
	}
	if err := w.checkHost(m.Domain); err != nil {
		return nil, err
	}
	ms, err := w.store.Markets(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	if len(ms) >= vitrine.MaxMarkets && !slices.ContainsFunc(ms, func(o *vitrine.Market) bool { return o.Handle == m.Handle }) {
		return nil, vitrine.Invalid("handle", "a company has at most %d markets; delete one first", vitrine.MaxMarkets)
	}
	ch := a.Change()
	m.UpdatedAt, m.UpdatedBy = w.now(), ch.UserID
	if err := w.store.SaveMarket(ctx, ch, m); err != nil {
		return nil, err
	}
	return m, nil
}

// checkInclude checks an assortment: categories of the company's, each
// once; tags as products hold them.
func (w *Window) checkInclude(ctx context.Context, tenantID string, in vitrine.MarketInclude) (vitrine.MarketInclude, error) {
	var out vitrine.MarketInclude
	if len(in.CategoryIDs) > vitrine.MaxFilterCategories {
		return out, vitrine.Invalid("include.category_ids", "include.category_ids names at most %d categories; got %d", vitrine.MaxFilterCategories, len(in.CategoryIDs))
	}
	if len(in.CategoryIDs) > 0 {
		cats, err := w.store.Categories(ctx, tenantID)
		if err != nil {
			return out, err
		}
		for i, id := range in.CategoryIDs {
			id = strings.TrimSpace(id)
			if !slices.ContainsFunc(cats, func(c *vitrine.Category) bool { return c.ID == id }) {
				return out, vitrine.Invalid(fmt.Sprintf("include.category_ids[%d]", i), "%q is not one of the company's categories (list_categories lists them)", id)
			}
			if !slices.Contains(out.CategoryIDs, id) {
				out.CategoryIDs = append(out.CategoryIDs, id)
			}
		}
	}
	tags, err := vitrine.NormalizeTags("include.tags", in.Tags)
	if err != nil {
		return out, err
	}
	if len(tags) > vitrine.MaxFilterTags {
		return out, vitrine.Invalid("include.tags", "include.tags names at most %d tags; got %d", vitrine.MaxFilterTags, len(tags))
	}
	if len(tags) > 0 {
		out.Tags = tags
	}
	return out, nil
}

// DeleteMarket removes the company's market of that handle, with its
// prices.
func (w *Window) DeleteMarket(ctx context.Context, a *service.Access, handle string) error {
	if err := a.Allow(service.OpDeleteMarket); err != nil {
		return err
	}
	return w.store.DeleteMarket(ctx, a.Change(), a.TenantID, strings.TrimSpace(handle))
}

// PriceRow is a row of set_market_prices: a variant, by id or SKU, and
// its price in the market's currency; a nil or "" Price removes the
// variant's price there.
type PriceRow struct {
	VariantID, SKU string
	Price          *string
	CompareAtPrice *string
}

// PriceOutcome is what became of a row: "set", "removed" or "error" (Err
// says why).
type PriceOutcome struct {
	Index          int
	VariantID, SKU string
	Status         string
	Err            error
}

// The outcomes of a price row.
const (
	PriceSet     = "set"
	PriceRemoved = "removed"
	PriceError   = "error"
)

// SetMarketPrices sets or removes the explicit prices of some variants in
// the company's market of that handle, each row on its own: a row that
// fails (a variant the company does not have, a price its currency cannot
// hold) is reported, the others are written together, in one write.
func (w *Window) SetMarketPrices(ctx context.Context, a *service.Access, market string, rows []PriceRow) ([]PriceOutcome, error) {
	if err := a.Allow(service.OpSetMarketPrices); err != nil {
		return nil, err
	}
	if len(rows) == 0 || len(rows) > vitrine.MaxMarketPriceBatch {
		return nil, vitrine.Invalid("prices", "prices holds 1 to %d rows; got %d", vitrine.MaxMarketPriceBatch, len(rows))
	}
	m, err := w.store.MarketByHandle(ctx, a.TenantID, strings.TrimSpace(market))
	if err != nil {
		return nil, err
	}
	_, scale, _ := vitrine.NormalizeCurrency("currency", m.Currency)
	var skus []string
	for _, r := range rows {
		if r.VariantID == "" && r.SKU != "" {
			skus = append(skus, r.SKU)
		}
	}
	bySKU := map[string]*vitrine.Product{}
	if len(skus) > 0 {
		if bySKU, err = w.store.ProductsBySKU(ctx, a.TenantID, skus); err != nil {
			return nil, err
		}
	}
	out := make([]PriceOutcome, len(rows))
	var (
		set    []vitrine.MarketPrice
		remove []string
		seen   = map[string]bool{}
	)
	for i, r := range rows {
		o := &out[i]
		o.Index, o.VariantID, o.SKU = i, r.VariantID, r.SKU
		id, err := w.variantOf(ctx, a.TenantID, i, r, bySKU)
		if err == nil && seen[id] {
			err = vitrine.Invalid(fmt.Sprintf("prices[%d]", i), "the variant of prices[%d] is given twice", i)
		}
		var p vitrine.MarketPrice
		if err == nil {
			seen[id], o.VariantID = true, id
			p, err = priceOf(i, id, r, scale)
		}
		switch {
		case err != nil:
			o.Status, o.Err = PriceError, err
		case r.Price == nil || *r.Price == "":
			o.Status = PriceRemoved
			remove = append(remove, id)
		default:
			o.Status = PriceSet
			set = append(set, p)
		}
	}
	if len(set)+len(remove) == 0 {
		return out, nil
	}
	if err := w.store.SetMarketPrices(ctx, a.Change(), a.TenantID, m.ID, set, remove); err != nil {
		return nil, err
	}
	return out, nil
}

// variantOf is the id of the company's variant a row names: by its id, or
// its SKU.
func (w *Window) variantOf(ctx context.Context, tenantID string, i int, r PriceRow, bySKU map[string]*vitrine.Product) (string, error) {
	field := fmt.Sprintf("prices[%d]", i)
	switch {
	case r.VariantID != "" && r.SKU != "":
		return "", vitrine.Invalid(field, "%s names a variant by variant_id or by sku, not both", field)
	case r.VariantID != "":
		if !vitrine.ValidID(r.VariantID) {
			return "", vitrine.NotFound("Variant")
		}
		if _, err := w.store.ProductByVariant(ctx, tenantID, r.VariantID); err != nil {
			if vitrine.TypeOf(err) == vitrine.NotFoundError {
				return "", vitrine.NotFound("Variant")
			}
			return "", err
		}
		return r.VariantID, nil
	case r.SKU != "":
		if p := bySKU[vitrine.SKUKey(r.SKU)]; p != nil {
			for _, v := range p.Variants {
				if vitrine.SKUKey(v.SKU) == vitrine.SKUKey(r.SKU) {
					return v.ID, nil
				}
			}
		}
		return "", vitrine.NotFound("Variant")
	}
	return "", vitrine.Invalid(field, "%s must name a variant by variant_id or sku", field)
}

// priceOf reads a row's prices in minor units of a currency of scale
// decimals.
func priceOf(i int, variantID string, r PriceRow, scale int) (vitrine.MarketPrice, error) {
	p := vitrine.MarketPrice{VariantID: variantID}
	if r.Price == nil || *r.Price == "" {
		return p, nil
	}
	var err error
	if p.Price, err = vitrine.ParsePrice(fmt.Sprintf("prices[%d].price", i), strings.TrimSpace(*r.Price), scale); err != nil {
		return p, err
	}
	if r.CompareAtPrice != nil && *r.CompareAtPrice != "" {
		c, err := vitrine.ParsePrice(fmt.Sprintf("prices[%d].compare_at_price", i), strings.TrimSpace(*r.CompareAtPrice), scale)
		if err != nil {
			return p, err
		}
		p.CompareAtPrice = &c
	}
	return p, nil
}
