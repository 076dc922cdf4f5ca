package vitrine

// MarketView is a market as its window, its feeds and check_shop read it:
// which products are in its assortment, and each product's prices in its
// currency. One type, so that what a window shows of a market and what
// check_shop says of it cannot differ.
type MarketView struct {
	Market *Market
	// categories are its assortment's categories and those under them,
	// tags its tags' keys; both nil for every active product.
	categories, tags map[string]bool
	conv             *Converter
}

// NewMarketView returns m as its window reads it, with the company's
// categories (its assortment's categories and those under them).
func NewMarketView(m *Market, cats []*Category) (*MarketView, error) {
	_, scale, err := NormalizeCurrency("currency", m.Currency)
	if err != nil {
		return nil, err
	}
	conv, err := NewConverter(m.ExchangeRate, m.Rounding, scale)
	if err != nil {
		return nil, err
	}
	v := &MarketView{Market: m, conv: conv}
	if m.Include.Empty() {
		return v, nil
	}
	v.categories, v.tags = map[string]bool{}, map[string]bool{}
	for _, id := range m.Include.CategoryIDs {
		v.categories[id] = true
	}
	// Under them: each category whose parent is in, until none is added.
	for grew := true; grew; {
		grew = false
		for _, c := range cats {
			if !v.categories[c.ID] && c.ParentID != "" && v.categories[c.ParentID] {
				v.categories[c.ID], grew = true, true
			}
		}
	}
	for _, t := range m.Include.Tags {
		v.tags[TagKey(t)] = true
	}
	return v, nil
}

// Includes reports whether p is in the market's assortment (its status
// aside: only active products are in any window).
func (v *MarketView) Includes(p *Product) bool {
	if v.Market.Include.Empty() {
		return true
	}
	for _, c := range p.Categories {
		if v.categories[c.ID] {
			return true
		}
	}
	for _, t := range p.Tags {
		if v.tags[TagKey(t)] {
			return true
		}
	}
	return false
}

// Convert is a price of the catalog, in minor units of a currency of
// fromScale decimals, in the market's currency; false when it cannot be
// converted (Converter.Convert).
func (v *MarketView) Convert(minor int64, fromScale int) (int64, bool) {
	return v.conv.Convert(minor, fromScale)
}

// Price returns a copy of p in the market's currency: each variant at its
// explicit price there (explicit, by variant id), else at its price
// converted by the market's rate and rounding, compare-at alike; false
// when a price cannot be converted, and then the product is not sold
// there.
func (v *MarketView) Price(p *Product, explicit map[string]MarketPrice) (*Product, bool) {
	c := *p
	c.Currency = v.Market.Currency
	from := CurrencyScale(p.Currency)
	c.Variants = make([]*Variant, len(p.Variants))
	for i, pv := range p.Variants {
		cv := *pv
		if e, ok := explicit[pv.ID]; ok {
			cv.Price, cv.CompareAtPrice = e.Price, nil
			if e.CompareAtPrice != nil {
				x := *e.CompareAtPrice
				cv.CompareAtPrice = &x
			}
		} else {
			var ok bool
			if cv.Price, ok = v.conv.Convert(pv.Price, from); !ok {
				return nil, false
			}
			if pv.CompareAtPrice != nil {
				x, ok := v.conv.Convert(*pv.CompareAtPrice, from)
				if !ok {
					return nil, false
				}
				cv.CompareAtPrice = &x
			}
		}
		c.Variants[i] = &cv
	}
	c.Summarize()
	return &c, true
}

// CatalogBounds is Converter.CatalogBounds of the market's converter.
func (v *MarketView) CatalogBounds(min, max *int64, fromScale int) (lo, hi *int64) {
	return v.conv.CatalogBounds(min, max, fromScale)
}
