package catalog

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// productQuery is a filter as the queries of one read take it: the
// filter, how its words are found, and the categories its category
// stands for.
type productQuery struct {
	tenantID string
	f        vitrine.ProductFilter
	ws       wordSearch
	levels   searchLevels
	// categories are f.CategoryID and those under it; noCategory alone
	// when it is not the tenant's.
	categories []string
	// skuOf are the products (one at most) of a variant whose SKU key is
	// the relevance search's SKU: its rank 0, left out of the others.
	skuOf []string
	// only, when not nil, are the ids of the page's products, as the
	// company's facet index picked them in the same snapshot (the
	// filter's, in the sort's order, after the cursor): the page is read
	// by them, by id, rather than by the filter's terms. (The query keeps
	// its keyset, order and limit: on so few rows they cost nothing.)
	// In relevance order, only are the page's products of ranks 1 and 2,
	// ranks the rank of each.
	only  []string
	ranks []int
	// amongCategories are the categories of a market's assortment
	// (f.Among) and those under them.
	amongCategories []string
}

// filter adds to q the terms of pq's filter that do not depend on the
// page: every one but the keyset and the relevance rank.
func (db *Store) filter(q *base.QueryBuilder, pq productQuery) {
	f := pq.f.Query()
	q.Add(`tenant_id = `, pq.tenantID)
	if f.Status != "" {
		q.Add(`status = `, string(f.Status))
	}
	if f.Vendor != "" {
		q.Add(`vendor_key = `, vitrine.Fold(string(f.Vendor)))
	}
	if f.ProductType != "" {
		q.Add(`type_key = `, vitrine.Fold(string(f.ProductType)))
	}
	if pq.f.Since() != nil {
		q.Add(`updated_at >= `, *pq.f.Since())
	}
	if f.OnSale != nil {
		q.Add(`on_sale = `, *f.OnSale)
	}
	if f.Untranslated != "" {
		q.Where = append(q.Where, `id NOT IN (SELECT product_id FROM translated_products WHERE tenant_id = $1 AND locale = `+q.Arg(string(f.Untranslated))+`)`)
	}
	for _, t := range f.Tags {
		q.Where = append(q.Where, `id IN (SELECT product_id FROM product_tags WHERE tenant_id = $1 AND tag_key = `+q.Arg(vitrine.TagKey(string(t)))+`)`)
	}
	if len(pq.categories) > 0 {
		in := make([]string, len(pq.categories))
		for i, id := range pq.categories {
			in[i] = q.Arg(id)
		}
		q.Where = append(q.Where, `id IN (SELECT product_id FROM product_categories WHERE tenant_id = $1 AND category_id IN (`+strings.Join(in, ", ")+`))`)
	}
	if f.Among != nil {
		// A market's assortment: in one of its categories (or under one),
		// or holding one of its tags; nothing when it names neither that
		// the company has.
		var either []string
		if len(pq.amongCategories) > 0 {
			in := make([]string, len(pq.amongCategories))
			for i, id := range pq.amongCategories {
				in[i] = q.Arg(id)
			}
			either = append(either, `SELECT product_id FROM product_categories WHERE tenant_id = $1 AND category_id IN (`+strings.Join(in, ", ")+`)`)
		}
		if len(f.Among.Tags) > 0 {
			in := make([]string, len(f.Among.Tags))
			for i, t := range f.Among.Tags {
				in[i] = q.Arg(t)
			}
			either = append(either, `SELECT product_id FROM product_tags WHERE tenant_id = $1 AND tag_key IN (`+strings.Join(in, ", ")+`)`)
		}
		if len(either) == 0 {
			q.Where = append(q.Where, `1 = 0`)
		} else {
			q.Where = append(q.Where, `id IN (`+strings.Join(either, ` UNION `)+`)`)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(f.Attributes)) {
		v := vitrine.AttributeString(f.Attributes[k])
		arg := q.Arg(v)
		value := `value = ` + arg
		if db.d.Name() == "postgres" {
			// The index is of the value's md5 (migration 00022): a long
			// value has no btree entry of its own.
			value = `md5(value) = md5(CAST(` + arg + ` AS text)) AND ` + value
		}
		q.Where = append(q.Where, `id IN (SELECT product_id FROM product_attributes WHERE tenant_id = $1 AND key = `+q.Arg(k)+` AND `+value+`)`)
	}
	if pq.f.MinMinor() != nil || pq.f.MaxMinor() != nil {
		q.Add(`currency = `, string(f.Currency))
	}
	mp := f.MarketPrices
	if len(f.Options) == 0 && mp == nil {
		// The product's range meets the filter's: some variant is in it.
		if pq.f.MinMinor() != nil {
			q.Add(`price_max >= `, *pq.f.MinMinor())
		}
		if pq.f.MaxMinor() != nil {
			q.Add(`price <= `, *pq.f.MaxMinor())
		}
		if f.InStock != nil {
			q.Where = append(q.Where, map[bool]string{true: `stock > 0`, false: `stock = 0`}[*f.InStock])
		}
		return
	}
	// One variant holds every option value asked, in the price range, in
	// stock: the blue shirt in size M under 70.
	var v []string
	for _, name := range slices.Sorted(maps.Keys(f.Options)) {
		key, val := q.Arg(vitrine.OptionKey(name)), q.Arg(f.Options[name])
		v = append(v, `((v.opt1_key = `+key+` AND v.opt1 = `+val+`) OR (v.opt2_key = `+key+` AND v.opt2 = `+val+`) OR (v.opt3_key = `+key+` AND v.opt3 = `+val+`))`)
	}
	if pq.f.MinMinor() != nil {
		v = append(v, `v.price >= `+q.Arg(*pq.f.MinMinor()))
	}
	if pq.f.MaxMinor() != nil {
		v = append(v, `v.price <= `+q.Arg(*pq.f.MaxMinor()))
	}
	from := base.By(db.d, "variants v", "variants_by_product")
	if mp != nil {
		// The variant's price in the market: its explicit one there (the
		// company's, of that market, by its key), else its catalog price,
		// within the bounds whose conversions fall in the range.
		from += ` LEFT JOIN market_prices mp ON mp.tenant_id = $1 AND mp.market_id = ` + q.Arg(mp.MarketID) + ` AND mp.variant_id = v.id`
		explicit, converted := []string{`mp.variant_id IS NOT NULL`}, []string{`mp.variant_id IS NULL`, `products.currency = ` + q.Arg(string(mp.Currency))}
		for _, b := range []struct {
			terms *[]string
			term  string
			bound *int64
		}{{&explicit, `mp.price >= `, mp.Min}, {&explicit, `mp.price <= `, mp.Max}, {&converted, `v.price >= `, mp.CatalogMin}, {&converted, `v.price <= `, mp.CatalogMax}} {
			if b.bound != nil {
				*b.terms = append(*b.terms, b.term+q.Arg(*b.bound))
			}
		}
		v = append(v, `((`+strings.Join(explicit, ` AND `)+`) OR (`+strings.Join(converted, ` AND `)+`))`)
	}
	if f.InStock != nil {
		v = append(v, map[bool]string{true: `v.stock > 0`, false: `v.stock = 0`}[*f.InStock])
	}
	// Correlated: the product's own variants, by their index, for the
	// products the other terms (their indexes) keep.
	q.Where = append(q.Where, `EXISTS (SELECT 1 FROM `+from+` WHERE v.tenant_id = products.tenant_id AND v.product_id = products.id AND `+strings.Join(v, ` AND `)+`)`)
}

// productsOfSKU returns the products of the variants whose SKU key is
// sku: one at most, as SKU keys are unique in a company.
func (db *Store) productsOfSKU(ctx context.Context, c sqldb.Conn, tenantID, sku string) ([]string, error) {
	return sqldb.Collect(ctx, c, func(r sqldb.Row) (id string, err error) { return id, r.Scan(&id) },
		`SELECT CAST(product_id AS TEXT) FROM variants WHERE tenant_id = $1 AND sku_key = $2`, tenantID, sku)
}

// skuIs is the condition that the product is (or, with not, is not) one
// of the SKU's products; nothing to check when there are none.
func skuIs(q *base.QueryBuilder, ids []string, not bool) []string {
	if len(ids) == 0 {
		if not {
			return nil
		}
		return []string{`1 = 0`}
	}
	in := make([]string, len(ids))
	for i, id := range ids {
		in[i] = q.Arg(id)
	}
	return []string{`id ` + map[bool]string{true: `NOT `}[not] + `IN (` + strings.Join(in, `, `) + `)`}
}
