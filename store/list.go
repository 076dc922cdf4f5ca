package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// sortColumns maps a sort key to its column; created_at orders by id, which
// UUIDv7 makes time-ordered.
var sortColumns = map[string]string{"name": "name_key", "price": "price", "updated_at": "updated_at", "created_at": "", "relevance": "name_key"}

// ListProducts returns a page of the tenant's products, by keyset: the page
// starts after f.After in the sort order, on the index that leads with
// (tenant_id, sort column, id). No OFFSET. A relevance search reads its
// ranks in turn: the SKU that is the query, then matches in the name, then
// matches elsewhere. When the search's matches are few, the last two ranks
// are read in one query.
func (db *DB) ListProducts(ctx context.Context, tenantID string, f vitrine.ProductFilter) ([]*vitrine.Product, error) {
	ps, _, err := db.FindProducts(ctx, tenantID, f, nil)
	return ps, err
}

// FindProducts returns a page of the tenant's products as ListProducts
// does and, in the same read, the counts of the facets named under the
// same filter (without its page).
func (db *DB) FindProducts(ctx context.Context, tenantID string, f vitrine.ProductFilter, facets []string) ([]*vitrine.Product, *vitrine.Facets, error) {
	if !validIDs(tenantID) {
		return nil, nil, nil
	}
	var (
		out    []*vitrine.Product
		counts *vitrine.Facets
	)
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) error {
		var ws wordSearch
		if len(f.Words) > 0 {
			var err error
			if ws, err = db.search(ctx, c, tenantID, f.Words); err != nil {
				return err
			}
		}
		if f.CategoryID != "" {
			ids, err := db.categoryAndBelow(ctx, c, tenantID, f.CategoryID)
			if err != nil {
				return err
			}
			f.CategoryIDs = ids
			if len(ids) == 0 {
				f.CategoryIDs = []string{noCategory} // the filter matches nothing
			}
		}
		if len(facets) > 0 {
			var err error
			if counts, err = db.facets(ctx, c, ws, tenantID, f, facets); err != nil {
				return err
			}
		}
		if f.Sort != vitrine.SortRelevance {
			ps, err := db.listProducts(ctx, c, ws, tenantID, f, -1)
			out = ps
			return err
		}
		after := f.After
		first := 0
		if after != nil {
			first = after.Rank
		}
		for rank := first; rank <= 2 && len(out) < f.Limit; rank++ {
			g := f
			g.Limit = f.Limit - len(out)
			if rank != first {
				g.After = nil
			} else {
				g.After = after
			}
			read := rank
			if rank > 0 && ws.few {
				read = nameOrRest
			}
			ps, err := db.listProducts(ctx, c, ws, tenantID, g, read)
			if err != nil {
				return err
			}
			if read == nameOrRest {
				out = append(out, ps...)
				break
			}
			for _, p := range ps {
				p.Rank = rank
			}
			out = append(out, ps...)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list products: %w", err)
	}
	return out, counts, nil
}

// categoryAndBelow returns the category and every category under it; none
// when the category is not the tenant's (the filter then matches nothing).
func (db *DB) categoryAndBelow(ctx context.Context, c sqldb.Conn, tenantID, id string) ([]string, error) {
	if !validIDs(id) {
		return nil, nil
	}
	return sqldb.Collect(ctx, c, func(r sqldb.Row) (string, error) {
		var s string
		return s, r.Scan(&s)
	}, `WITH RECURSIVE below (id) AS (
			SELECT id FROM categories WHERE tenant_id = $1 AND id = $2
			UNION SELECT c.id FROM categories c JOIN below b ON c.parent_id = b.id WHERE c.tenant_id = $1
		) SELECT id FROM below`, tenantID, id)
}

// nameOrRest, as the rank of listProducts, reads relevance ranks 1 and 2
// in one query, each product with its rank.
const nameOrRest = 12

// filter adds to q the terms of f that do not depend on the page: every
// one but the keyset and the relevance rank.
func filter(q *queryBuilder, tenantID string, f vitrine.ProductFilter) {
	q.add(`tenant_id = `, tenantID)
	if f.Status != "" {
		q.add(`status = `, string(f.Status))
	}
	if f.Vendor != "" {
		q.add(`vendor_key = `, vitrine.Fold(f.Vendor))
	}
	if f.ProductType != "" {
		q.add(`type_key = `, vitrine.Fold(f.ProductType))
	}
	if f.UpdatedSince != nil {
		q.add(`updated_at >= `, *f.UpdatedSince)
	}
	if f.OnSale != nil {
		q.add(`on_sale = `, *f.OnSale)
	}
	for _, t := range f.Tags {
		q.where = append(q.where, `id IN (SELECT product_id FROM product_tags WHERE tenant_id = $1 AND tag_key = `+q.arg(vitrine.TagKey(t))+`)`)
	}
	if len(f.CategoryIDs) > 0 {
		in := make([]string, len(f.CategoryIDs))
		for i, id := range f.CategoryIDs {
			in[i] = q.arg(id)
		}
		q.where = append(q.where, `id IN (SELECT product_id FROM product_categories WHERE tenant_id = $1 AND category_id IN (`+strings.Join(in, ", ")+`))`)
	}
	for _, k := range sortedKeys(f.Attributes) {
		v := f.Attributes[k]
		q.where = append(q.where, `id IN (SELECT product_id FROM product_attributes WHERE tenant_id = $1 AND key = `+q.arg(k)+` AND value = `+q.arg(v)+`)`)
	}
	if f.MinPrice != nil || f.MaxPrice != nil {
		q.add(`currency = `, f.PriceCurrency)
	}
	if len(f.Options) == 0 {
		// The product's range meets the filter's: some variant is in it.
		if f.MinPrice != nil {
			q.add(`price_max >= `, *f.MinPrice)
		}
		if f.MaxPrice != nil {
			q.add(`price <= `, *f.MaxPrice)
		}
		if f.InStock != nil {
			q.where = append(q.where, map[bool]string{true: `stock > 0`, false: `stock = 0`}[*f.InStock])
		}
		return
	}
	// One variant holds every option value asked, in the price range, in
	// stock: the blue shirt in size M under 70.
	var v []string
	for _, name := range sortedKeys(f.Options) {
		key, val := q.arg(vitrine.OptionKey(name)), q.arg(f.Options[name])
		v = append(v, `((v.opt1_key = `+key+` AND v.opt1 = `+val+`) OR (v.opt2_key = `+key+` AND v.opt2 = `+val+`) OR (v.opt3_key = `+key+` AND v.opt3 = `+val+`))`)
	}
	if f.MinPrice != nil {
		v = append(v, `v.price >= `+q.arg(*f.MinPrice))
	}
	if f.MaxPrice != nil {
		v = append(v, `v.price <= `+q.arg(*f.MaxPrice))
	}
	if f.InStock != nil {
		v = append(v, map[bool]string{true: `v.stock > 0`, false: `v.stock = 0`}[*f.InStock])
	}
	q.where = append(q.where, `id IN (SELECT v.product_id FROM variants v WHERE v.tenant_id = $1 AND `+strings.Join(v, ` AND `)+`)`)
}

// skuIs is the condition that a variant of the product has the SKU key.
func skuIs(q *queryBuilder, sku string) string {
	return `id IN (SELECT product_id FROM variants WHERE tenant_id = $1 AND sku_key = ` + q.arg(sku) + `)`
}

// listProducts reads one page in one order, finding words as ws says;
// rank, unless -1, keeps only the products of that relevance rank (or, as
// nameOrRest, of ranks 1 and 2).
func (db *DB) listProducts(ctx context.Context, c sqldb.Conn, ws wordSearch, tenantID string, f vitrine.ProductFilter, rank int) ([]*vitrine.Product, error) {
	var q queryBuilder
	filter(&q, tenantID, f)
	match := func(column string, drive bool) string { return ws.match(&q, column, drive) }
	from := "products"
	switch rank {
	case -1:
		if len(f.Words) > 0 {
			q.where = append(q.where, match("search", true))
			from = ws.from("search")
		}
	case 0:
		q.where = append(q.where, skuIs(&q, f.SKU))
	case 1:
		q.where = append(q.where, match("name_words", true), `NOT `+skuIs(&q, f.SKU))
		from = ws.from("name_words")
	case 2:
		q.where = append(q.where, match("search", true), `NOT `+match("name_words", false), `NOT `+skuIs(&q, f.SKU))
		from = ws.from("search")
	case nameOrRest:
		// A name's words are among the product's: ranks 1 and 2 are the
		// products matching in search, apart from the SKU itself.
		q.where = append(q.where, match("search", true), `NOT `+skuIs(&q, f.SKU))
		from = ws.from("search")
	}
	col, ok := sortColumns[f.Sort.Key()]
	if !ok {
		return nil, fmt.Errorf("unknown sort %q", f.Sort)
	}
	dir, cmp := "ASC", ">"
	if f.Sort.Desc() {
		dir, cmp = "DESC", "<"
	}
	if f.After != nil {
		if col == "" {
			q.add(`id `+cmp+` `, f.After.ID)
		} else {
			var v any
			switch col {
			case "name_key":
				v = f.After.Name
			case "price":
				v = f.After.Price
			case "updated_at":
				v = f.After.Updated
			}
			keyset := fmt.Sprintf(`(%s, id) %s (%s, %s)`, col, cmp, q.arg(v), q.arg(f.After.ID))
			if rank == nameOrRest {
				// After a name match, the rest of them, then every other
				// match; after another match, the rest of those.
				if f.After.Rank == 1 {
					keyset = `(NOT ` + match("name_words", false) + ` OR ` + keyset + `)`
				} else {
					keyset = `NOT ` + match("name_words", false) + ` AND ` + keyset
				}
			}
			q.where = append(q.where, keyset)
		}
	}
	order := `id ` + dir
	if col != "" {
		order = col + ` ` + dir + `, ` + order
	}
	columns, scan := db.selectProduct(), scanProduct
	if rank == nameOrRest {
		columns += `, CASE WHEN ` + match("name_words", false) + ` THEN 1 ELSE 2 END AS relevance_rank`
		order = `relevance_rank, ` + order
		scan = func(r sqldb.Row) (*vitrine.Product, error) {
			var rank int
			p, err := scanProductAnd(r, &rank)
			if p != nil {
				p.Rank = rank
			}
			return p, err
		}
	}
	query := columns + ` FROM ` + from + ` WHERE ` + strings.Join(q.where, ` AND `) +
		` ORDER BY ` + order + limitTo(q.arg(f.Limit))
	return sqldb.Collect(ctx, c, scan, query, q.args...)
}

// facetColumns are the column shown and the column counted by, of the
// facets that are columns of products.
var facetColumns = map[string][2]string{
	vitrine.FacetVendor:      {"vendor", "vendor_key"},
	vitrine.FacetProductType: {"product_type", "type_key"},
	vitrine.FacetStatus:      {"status", "status"},
}

// facets counts the products of the filter (every page of it) by each
// value of each facet named, the most frequent values first.
func (db *DB) facets(ctx context.Context, c sqldb.Conn, ws wordSearch, tenantID string, f vitrine.ProductFilter, names []string) (*vitrine.Facets, error) {
	out := &vitrine.Facets{Values: map[string][]vitrine.FacetValue{}}
	for _, name := range names {
		var q queryBuilder
		filter(&q, tenantID, f)
		from := "products"
		if len(f.Words) > 0 {
			q.where = append(q.where, ws.match(&q, "search", true))
			from = ws.from("search")
		}
		matching := `SELECT id FROM ` + from + ` WHERE ` + strings.Join(q.where, ` AND `)
		limit := func() string { return limitTo(q.arg(vitrine.MaxFacetValues)) }
		var query string
		switch name {
		case vitrine.FacetVendor, vitrine.FacetProductType, vitrine.FacetStatus:
			col, key := facetColumns[name][0], facetColumns[name][1]
			query = `SELECT ` + key + `, min(` + col + `), '', count(*) FROM ` + from + ` WHERE ` + strings.Join(q.where, ` AND `) +
				` AND ` + col + ` <> '' GROUP BY ` + key + ` ORDER BY 4 DESC, 1` + limit()
		case vitrine.FacetTags:
			query = `SELECT tag_key, min(tag), '', count(*) FROM product_tags WHERE tenant_id = $1 AND product_id IN (` + matching + `)
				GROUP BY tag_key ORDER BY 4 DESC, 1` + limit()
		case vitrine.FacetCategories:
			// A product counts in its categories and in every one above
			// them, as the category filter keeps a category's descendants.
			query = `WITH RECURSIVE up (cat, anc) AS (
					SELECT id, id FROM categories WHERE tenant_id = $1
					UNION SELECT up.cat, c.parent_id FROM up JOIN categories c ON c.tenant_id = $1 AND c.id = up.anc WHERE c.parent_id IS NOT NULL
				)
				SELECT up.anc, min(n.name), '', count(DISTINCT pc.product_id) FROM product_categories pc
				JOIN up ON up.cat = pc.category_id
				JOIN categories n ON n.tenant_id = $1 AND n.id = up.anc
				WHERE pc.tenant_id = $1 AND pc.product_id IN (` + matching + `)
				GROUP BY up.anc ORDER BY 4 DESC, 1` + limit()
		case vitrine.FacetOptions:
			query = `SELECT k, min(n), v, count(DISTINCT product_id) FROM (
					SELECT product_id, opt1_key AS k, opt1_name AS n, opt1 AS v FROM variants WHERE tenant_id = $1 AND product_id IN (` + matching + `)
					UNION ALL SELECT product_id, opt2_key, opt2_name, opt2 FROM variants WHERE tenant_id = $1 AND product_id IN (` + matching + `)
					UNION ALL SELECT product_id, opt3_key, opt3_name, opt3 FROM variants WHERE tenant_id = $1 AND product_id IN (` + matching + `)
				) o WHERE k <> '' GROUP BY k, v ORDER BY 1, 4 DESC, 3`
		default:
			return nil, fmt.Errorf("unknown facet %q", name)
		}
		type row struct {
			key, name, value string
			count            int64
		}
		rows, err := sqldb.Collect(ctx, c, func(r sqldb.Row) (row, error) {
			var x row
			return x, r.Scan(&x.key, &x.name, &x.value, &x.count)
		}, query, q.args...)
		if err != nil {
			return nil, err
		}
		switch name {
		case vitrine.FacetOptions:
			out.Options = map[string][]vitrine.FacetValue{}
			names := map[string]string{}
			for _, r := range rows {
				if _, ok := names[r.key]; !ok {
					names[r.key] = r.name
				}
				n := names[r.key]
				if len(out.Options[n]) < vitrine.MaxFacetValues {
					out.Options[n] = append(out.Options[n], vitrine.FacetValue{Value: r.value, Count: r.count})
				}
			}
		case vitrine.FacetCategories:
			vs := make([]vitrine.FacetValue, 0, len(rows))
			for _, r := range rows {
				vs = append(vs, vitrine.FacetValue{Value: r.key, Name: r.name, Count: r.count})
			}
			out.Values[name] = vs
		default:
			vs := make([]vitrine.FacetValue, 0, len(rows))
			for _, r := range rows {
				vs = append(vs, vitrine.FacetValue{Value: r.name, Count: r.count})
			}
			out.Values[name] = vs
		}
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// noCategory is an id no category has: a filter by a category the tenant
// does not have matches nothing.
const noCategory = "00000000-0000-0000-0000-000000000000"
