package catalog

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// facets counts the products of the filter (every page of it) by each
// value of each facet named, the most frequent values first. The filter's
// products are found once, by the same terms as the page (its indexes
// drive it), and each facet then reads only their rows, by product id, and
// is counted here: a facet costs what its products hold, not what the
// company holds.
func (db *Store) facets(ctx context.Context, c sqldb.Conn, pq productQuery) (*vitrine.Facets, error) {
	var q base.QueryBuilder
	db.filter(&q, pq)
	tenantID, names := pq.tenantID, pq.f.Query().Facets
	from := "products"
	if len(pq.f.Words()) > 0 {
		q.Where = append(q.Where, pq.ws.match(&q, "search", topLevel, true))
		from = pq.ws.from("search")
	}
	ids, err := sqldb.Collect(ctx, c, scanString, `SELECT id FROM `+from+` WHERE `+strings.Join(q.Where, ` AND `), q.Args...)
	if err != nil {
		return nil, err
	}
	out := &vitrine.Facets{Values: map[vitrine.FacetName][]vitrine.FacetValue{}}
	for _, name := range names {
		if name == vitrine.FacetOptions {
			out.Options = map[string][]vitrine.FacetValue{}
		} else {
			out.Values[name] = []vitrine.FacetValue{}
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	in := base.IDList(db.d)
	counts := map[string]*facetCount{} // by facet name, and "options:" + option key
	count := func(facet, key, shown, product string) {
		fc := counts[facet]
		if fc == nil {
			fc = &facetCount{shown: map[string]string{}, count: map[string]int64{}, last: map[string]string{}}
			counts[facet] = fc
		}
		fc.add(key, shown, product)
	}
	asked := func(n string) bool { return slices.Contains(names, vitrine.FacetName(n)) }
	if asked(vitrine.FacetVendor) || asked(vitrine.FacetProductType) || asked(vitrine.FacetStatus) {
		err := each(ctx, c, `SELECT id, vendor_key, vendor, type_key, product_type, status FROM products WHERE tenant_id = $1 AND id `+in+` ORDER BY id`, []any{tenantID, base.IDArg(db.d, ids)},
			func(r []string) {
				if r[1] != "" {
					count(vitrine.FacetVendor, r[1], r[2], r[0])
				}
				if r[3] != "" {
					count(vitrine.FacetProductType, r[3], r[4], r[0])
				}
				count(vitrine.FacetStatus, r[5], r[5], r[0])
			}, 6)
		if err != nil {
			return nil, err
		}
	}
	if asked(vitrine.FacetTags) {
		if err := each(ctx, c, `SELECT product_id, tag_key, tag FROM `+base.By(db.d, "product_tags", "product_tags_by_product")+` WHERE tenant_id = $1 AND product_id `+in+` ORDER BY product_id`, []any{tenantID, base.IDArg(db.d, ids)},
			func(r []string) { count(vitrine.FacetTags, r[1], r[2], r[0]) }, 3); err != nil {
			return nil, err
		}
	}
	if asked(vitrine.FacetOptions) {
		if err := each(ctx, c, `SELECT product_id, opt1_key, opt1_name, opt1, opt2_key, opt2_name, opt2, opt3_key, opt3_name, opt3
				FROM `+base.By(db.d, "variants", "variants_by_product")+` WHERE tenant_id = $1 AND product_id `+in+` ORDER BY product_id`, []any{tenantID, base.IDArg(db.d, ids)},
			func(r []string) {
				for i := 1; i < 10; i += 3 {
					if r[i] != "" {
						count("options:"+r[i], r[i+2], r[i+2], r[0])
						if fc := counts["options:"+r[i]]; fc.name == "" {
							fc.name = r[i+1]
						}
					}
				}
			}, 10); err != nil {
			return nil, err
		}
	}
	if asked(vitrine.FacetCategories) {
		// A product counts in its categories and in every one above
		// them, as the category filter keeps a category's descendants.
		type cat struct{ parent, name string }
		tree := map[string]cat{}
		if err := each(ctx, c, `SELECT id, coalesce(CAST(parent_id AS TEXT), ''), name FROM categories WHERE tenant_id = $1`, []any{tenantID},
			func(r []string) { tree[r[0]] = cat{r[1], r[2]} }, 3); err != nil {
			return nil, err
		}
		if err := each(ctx, c, `SELECT product_id, category_id FROM `+base.By(db.d, "product_categories", "product_categories_by_product")+` WHERE tenant_id = $1 AND product_id `+in+` ORDER BY product_id`, []any{tenantID, base.IDArg(db.d, ids)},
			func(r []string) {
				for id, n := r[1], 0; id != "" && n < 64; id, n = tree[id].parent, n+1 {
					if cat, ok := tree[id]; ok {
						count(vitrine.FacetCategories, id, cat.name, r[0])
					}
				}
			}, 2); err != nil {
			return nil, err
		}
	}
	for facet, fc := range counts {
		vs := fc.values(facet == vitrine.FacetCategories)
		if key, ok := strings.CutPrefix(facet, "options:"); ok {
			if asked(vitrine.FacetOptions) {
				out.Options[fc.optionName(key)] = vs
			}
			continue
		}
		if asked(facet) {
			out.Values[vitrine.FacetName(facet)] = vs
		}
	}
	return out, nil
}

// facetCount holds, for each value of a facet (by its key), the value as
// shown (as the first product holding it, by id, writes it: every facet's
// rows are read in the order of their products' ids, on both databases)
// and the number of products that have it. A product holds a
// vendor, a type, a status, a tag once; it may hold an option value on
// several variants and a category above several of its own, and those
// facets count it once by the last product seen of each value (their rows
// come a product at a time: read by the index that leads with the
// product, in the ids' order).
type facetCount struct {
	shown map[string]string
	count map[string]int64
	last  map[string]string // the last product counted, by key
	name  string            // an option's name, as its first product writes it
}

func (fc *facetCount) add(key, shown, product string) {
	if _, ok := fc.shown[key]; !ok {
		fc.shown[key] = shown
	}
	if fc.last[key] == product {
		return
	}
	fc.last[key] = product
	fc.count[key]++
}

func (fc *facetCount) optionName(string) string { return fc.name }

// values returns the most frequent values first (then by key), at most
// MaxFacetValues; a category's value is its id, with its name.
func (fc *facetCount) values(byID bool) []vitrine.FacetValue {
	keys := make([]string, 0, len(fc.count))
	for k := range fc.count {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if d := fc.count[b] - fc.count[a]; d != 0 {
			if d > 0 {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	if len(keys) > vitrine.MaxFacetValues {
		keys = keys[:vitrine.MaxFacetValues]
	}
	out := make([]vitrine.FacetValue, len(keys))
	for i, k := range keys {
		out[i] = vitrine.FacetValue{Value: fc.shown[k], Count: fc.count[k]}
		if byID {
			out[i] = vitrine.FacetValue{Value: k, Name: fc.shown[k], Count: fc.count[k]}
		}
	}
	return out
}

func scanString(r sqldb.Row) (string, error) {
	var s string
	return s, r.Scan(&s)
}

// each runs a query of n text columns and hands each row to fn as it
// is read: a facet holds its counts, never the rows.
func each(ctx context.Context, c sqldb.Conn, query string, args []any, fn func([]string), n int) error {
	rows, err := c.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	row := make([]string, n)
	dst := make([]any, n)
	for i := range row {
		dst[i] = &row[i]
	}
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			return err
		}
		fn(row)
	}
	return rows.Err()
}

// facetsBySQL counts the facets as facets does, when the company's index
// cannot (none is built yet, or it is over the memory of the indexes, or
// there is none): within the call's time but a margin (facetsBudget), so
// that a count too large for it (the lists of a company of a million
// products, whose filters match tens of thousands) answers an error that
// says so, while the call has the time to give it, rather than an
// internal error at its deadline.
func (db *Store) facetsBySQL(ctx context.Context, c sqldb.Conn, pq productQuery) (*vitrine.Facets, error) {
	fctx, cancel := withBudget(ctx)
	defer cancel()
	facets, err := db.facets(fctx, c, pq)
	if err != nil && fctx.Err() != nil && ctx.Err() == nil {
		return nil, db.facetsTooSlow(pq.tenantID)
	}
	return facets, err
}

// facetsBudget is the time a list, and within it a count of its facets by
// SQL, may take of the time left to its call: all but a quarter, and at
// most 5 s, left to the rest of the call (a variable for the tests:
// SetFacetsBudget).
var facetsBudget = func(left time.Duration) time.Duration { return left - min(left/4, 5*time.Second) }

// withBudget is ctx within facetsBudget of the time its deadline leaves
// (ctx itself, with none).
func withBudget(ctx context.Context) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, facetsBudget(time.Until(dl)))
}

// SetFacetsBudget sets the time a count of facets by SQL (and a list) may
// take of the time left to its call, and returns what restores it: for
// the tests.
func SetFacetsBudget(budget func(left time.Duration) time.Duration) (restore func()) {
	was := facetsBudget
	facetsBudget = budget
	return func() { facetsBudget = was }
}

// facetsTooSlow is the error of a faceted list whose count by SQL ran out
// of time, saying why the company's index did not count it; the operator
// is told too.
func (db *Store) facetsTooSlow(tenant string) error {
	why := "its facet index is not ready (it is being built: try again in a few minutes)"
	switch {
	case db.ix == nil:
		why = "this server keeps no facet index"
	case db.ix.overMemory(tenant):
		why = "its facet index is larger than the memory this server gives facet indexes (the operator's --facet-index-memory)"
	}
	db.log.Warn("facet index: a faceted list counted by SQL ran out of time", "tenant_id", tenant, "why", why)
	return &vitrine.Error{Type: vitrine.GenericError, Message: "The facets of this list could not be counted in time: the company's catalog is large and " + why +
		". List without facets, or with a narrower filter."}
}
