package catalog

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// sortColumns maps a sort key to its column; created_at orders by id, which
// UUIDv7 makes time-ordered.
var sortColumns = map[string]string{"name": "name_key", "price": "price", "updated_at": "updated_at", "created_at": "", "relevance": "name_key"}

// ListProducts returns the page of the tenant's products FindProducts
// would, without its keys and without counting any facet.
func (db *Store) ListProducts(ctx context.Context, tenantID string, f vitrine.ProductFilter) ([]*vitrine.Product, error) {
	found, err := db.FindProducts(ctx, tenantID, f.WithoutFacets())
	if err != nil {
		return nil, err
	}
	return found.Products, nil
}

// FindProducts returns a page of the tenant's products, each with its key
// in the sort order, and, in the same read, the counts of the facets f
// names under the same filter (without its page). The page is read by
// keyset: it starts after f.After in the sort order, on the index that
// leads with (tenant_id, sort column, id). No OFFSET. A relevance search
// reads its ranks in turn: the SKU that is the query, then, level by level
// of the words' alternatives (as written, stems, synonyms, typos),
// matches in the name, then matches elsewhere. When the search's matches
// are few, the ranks past the SKU's are read in one query.
//
// A query whose words no product holds all of reads as its largest subset
// of words that some product holds (see fewerWords): a shopper's phrase
// ("gold necklace for women") finds what most of its words name rather
// than nothing.
//
// A query's words forgive typos (withTypos), found once for every read of
// the call.
func (db *Store) FindProducts(ctx context.Context, tenantID string, f vitrine.ProductFilter) (*vitrine.FoundProducts, error) {
	// Within the call's time but a margin (the same as a count of facets
	// by SQL's): a list too large for it answers an error that says so,
	// the call still alive to give it, rather than an internal error at
	// its deadline.
	lctx, cancel := withBudget(ctx)
	defer cancel()
	out, err := db.findProductsOf(lctx, tenantID, f)
	if err != nil && lctx.Err() != nil && ctx.Err() == nil && vitrine.AsError(err) == nil {
		db.log.Warn("list products: a list ran out of time", "tenant_id", tenantID)
		return nil, &vitrine.Error{Type: vitrine.GenericError, Message: "This list could not be read in time: the company's catalog is large. " +
			"Narrow it with a filter (a vendor, a tag, a category, fewer words), or ask for fewer facets."}
	}
	return out, err
}

func (db *Store) findProductsOf(ctx context.Context, tenantID string, f vitrine.ProductFilter) (*vitrine.FoundProducts, error) {
	typos, err := db.typos(ctx, tenantID, f)
	if err != nil {
		return nil, fmt.Errorf("list products: %w", err)
	}
	out, err := db.findProducts(ctx, tenantID, f, typos)
	if err != nil || len(out.Products) > 0 || len(f.Words()) < 2 || f.Limit() <= 0 {
		return out, err
	}
	fewer, ok, err := db.fewerWords(ctx, tenantID, f, typos)
	if err != nil || !ok {
		return out, err
	}
	return db.findProducts(ctx, tenantID, fewer, typos)
}

func (db *Store) findProducts(ctx context.Context, tenantID string, f vitrine.ProductFilter, typos func(stem, written string) []string) (*vitrine.FoundProducts, error) {
	out := &vitrine.FoundProducts{}
	fq := f.Query()
	if !base.ValidIDs(tenantID) {
		return out, nil
	}
	// A faceted list reads in one snapshot, at one catalog sequence: the
	// page and its counts agree, and an index counts for that sequence.
	unit := db.d.Read
	// A list of a market's assortment, or within a market's prices, is
	// counted by SQL: the index knows no union of categories and tags, nor
	// the markets' prices. (Untranslated products are the
	// index's: it holds, by locale, those translated whole.)
	indexed := db.ix != nil && fq.Among == nil && fq.MarketPrices == nil
	if len(fq.Facets) > 0 && indexed {
		unit = db.d.Snapshot
	}
	err := unit(ctx, base.Tenant(tenantID), func(c sqldb.Conn) error {
		// The company's synonyms, in the same read: a query's words
		// match what they find (Clauses).
		if len(f.Words()) > 0 {
			th, err := db.thesaurus(ctx, c, tenantID, string(fq.Locale))
			if err != nil {
				return err
			}
			if th != nil {
				f = f.WithExpansion(th)
			}
			if typos != nil {
				f = f.WithTypos(typos)
			}
		}
		pq := productQuery{tenantID: tenantID, f: f, levels: f.Levels()}
		if fq.CategoryID != "" || len(fq.CategoryIDs) > 0 {
			ids, err := db.filterCategories(ctx, c, tenantID, fq)
			if err != nil {
				return err
			}
			pq.categories = ids
			if len(ids) == 0 {
				pq.categories = []string{noCategory} // the filter matches nothing
			}
		}
		if fq.Among != nil {
			for _, id := range fq.Among.CategoryIDs {
				ids, err := db.categoryAndBelow(ctx, c, tenantID, id)
				if err != nil {
					return err
				}
				for _, id := range ids {
					if !slices.Contains(pq.amongCategories, id) {
						pq.amongCategories = append(pq.amongCategories, id)
					}
				}
			}
		}
		// The SKU's product first, by its key: as a condition, SQLite
		// walked the company's products in name order for a SKU that is
		// no product's, and every later rank checked it on each row. (The
		// index leaves it out of the ranks after it.)
		if fq.Sort == vitrine.SortRelevance {
			var err error
			if pq.skuOf, err = db.productsOfSKU(ctx, c, tenantID, f.SKU()); err != nil {
				return err
			}
		}
		if len(fq.Facets) > 0 && indexed {
			var err error
			if out.Facets, pq.only, pq.ranks, err = db.indexFacets(ctx, c, pq); err != nil {
				return err
			}
			db.ix.count(out.Facets != nil, pq.only != nil)
		}
		if len(f.Words()) > 0 && pq.only == nil {
			var err error
			if pq.ws, err = db.search(ctx, c, tenantID, pq.levels, fq.Sort == vitrine.SortRelevance); err != nil {
				return err
			}
		}
		if len(fq.Facets) > 0 && out.Facets == nil {
			var err error
			if out.Facets, err = db.facetsBySQL(ctx, c, pq); err != nil {
				return err
			}
		}
		if fq.Sort != vitrine.SortRelevance {
			return db.listProducts(ctx, c, pq, -1, out)
		}
		after := f.After()
		first := 0
		if after != nil {
			first = after.Rank
		}
		for rank := first; rank <= maxRank && len(out.Products) < f.Limit(); rank++ {
			g := pq
			if rank != first {
				g.f = f.Page(f.Limit()-len(out.Products), nil)
			} else {
				g.f = f.Page(f.Limit()-len(out.Products), after)
			}
			if rank == 0 && len(pq.skuOf) == 0 || rank > 0 && !pq.levels.adds(levelOf(rank)) {
				continue
			}
			// The index picked the ranks past 0 (pq.ranks): each rank's
			// ids are read by key; rank 0 by the filter, its one product
			// by key.
			g.only = nil
			if pq.only != nil && rank > 0 {
				g.only = []string{}
				for i, id := range pq.only {
					if pq.ranks[i] == rank {
						g.only = append(g.only, id)
					}
				}
			}
			read := rank
			if rank > 0 && pq.ws.few && pq.only == nil {
				read = anyRank
			}
			if err := db.listProducts(ctx, c, g, read, out); err != nil {
				return err
			}
			if read == anyRank {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list products: %w", err)
	}
	// Each row's variant, from the products read: the same whether the
	// index or SQL picked them.
	out.Shown = make([]*vitrine.Variant, len(out.Products))
	for i, p := range out.Products {
		out.Shown[i] = f.ShownVariant(p)
	}
	return out, nil
}

// filterCategories returns the categories a filter keeps products of:
// CategoryID and those under it; any of CategoryIDs and those under them;
// those of both when both are set.
func (db *Store) filterCategories(ctx context.Context, c sqldb.Conn, tenantID string, f vitrine.ProductQuery) ([]string, error) {
	var one []string
	if f.CategoryID != "" {
		var err error
		if one, err = db.categoryAndBelow(ctx, c, tenantID, f.CategoryID); err != nil || len(f.CategoryIDs) == 0 {
			return one, err
		}
	}
	var kept []string
	for _, id := range f.CategoryIDs {
		ids, err := db.categoryAndBelow(ctx, c, tenantID, id)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if !slices.Contains(kept, id) && (f.CategoryID == "" || slices.Contains(one, id)) {
				kept = append(kept, id)
			}
		}
	}
	return kept, nil
}

// categoryAndBelow returns the category and every category under it; none
// when the category is not the tenant's (the filter then matches nothing).
func (db *Store) categoryAndBelow(ctx context.Context, c sqldb.Conn, tenantID, id string) ([]string, error) {
	if !base.ValidIDs(id) {
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

// The relevance ranks past the SKU's (rank 0): at each level of the
// query's alternatives (vitrine.ProductFilter.Levels: the words as
// written; their stems; with synonyms; with typos), rank 1+3×level the
// products whose name matches every clause at that level, then rank
// 2+3×level those whose name and label (vendor, type, tags) do, then rank
// 3+3×level those matching elsewhere, none matching at a level before.
const maxRank = vitrine.RankTiers * vitrine.MatchLevels

// topLevel is the last level: a product matches the search at it.
const topLevel = vitrine.MatchLevels - 1

// levelOf returns the level of a relevance rank past 0, and rankColumn
// the column its products match in.
func levelOf(rank int) int { return (rank - 1) / vitrine.RankTiers }

func rankColumn(rank int) string {
	switch (rank - 1) % vitrine.RankTiers {
	case 0:
		return "name_words"
	case 1:
		return "label_words"
	}
	return "search"
}

// anyRank, as the rank of listProducts, reads every relevance rank past
// 0 in one query, each product with its rank.
const anyRank = 100

// listProducts reads one page in one order, finding words as ws says,
// and appends its products and their keys to out; rank, unless -1, keeps
// only the products of that relevance rank (or, as nameOrRest, of ranks 1
// and 2, each product's read with it).
func (db *Store) listProducts(ctx context.Context, c sqldb.Conn, pq productQuery, rank int, out *vitrine.FoundProducts) error {
	var q base.QueryBuilder
	f, ws := pq.f, pq.ws
	from := "products"
	if pq.only != nil {
		if len(pq.only) == 0 {
			return nil
		}
		// The products by their ids: the ids drive the join, each
		// product found by its primary key, and only they are sorted (on
		// SQLite, CROSS JOIN keeps the order; on PostgreSQL, a LATERAL
		// subquery that its LIMIT keeps from being pulled up into a join,
		// which the planner, misled by the row-level security's filter,
		// made a hash join over the company's products. As a filter,
		// = ANY(ids) walked them in the sort's order, each compared to
		// every id).
		q.Add(`products.tenant_id = `, pq.tenantID)
		ids := q.Arg(base.IDArg(db.d, pq.only))
		if db.d.Name() == "postgres" {
			from = `unnest(CAST(` + ids + ` AS uuid[])) AS among (among_id) CROSS JOIN LATERAL (SELECT * FROM products
				WHERE products.tenant_id = $1 AND products.id = among.among_id LIMIT 1) AS products`
		} else {
			from = `(SELECT value AS among_id FROM json_each(` + ids + `)) AS among CROSS JOIN products ON products.id = among.among_id`
		}
	} else {
		db.filter(&q, pq)
	}
	match := func(column string, level int, drive bool) string { return ws.match(&q, column, level, drive) }
	// The words' condition goes before the filter's terms: SQLite checks
	// terms in their order, and a walk's words may be checked on its
	// index alone, before the row is read for the others.
	first := func(terms ...string) { q.Where = append(terms, q.Where...) }
	switch {
	case rank == -1:
		if len(f.Words()) > 0 && pq.only == nil {
			first(match("search", topLevel, true))
			from = ws.from("search")
		}
	case rank == 0:
		q.Where = append(q.Where, skuIs(&q, pq.skuOf, false)...)
	case rank == anyRank:
		// Every rank past 0: the products matching in search, apart from
		// the SKU itself.
		first(append([]string{match("search", topLevel, true)}, skuIs(&q, pq.skuOf, true)...)...)
		from = ws.from("search")
	case pq.only == nil:
		// One rank: matching in its column at its level, not in the
		// columns of the ranks before at its level, nowhere at the level
		// before.
		l, column := levelOf(rank), rankColumn(rank)
		first(append([]string{match(column, l, true)}, skuIs(&q, pq.skuOf, true)...)...)
		switch column {
		case "label_words":
			q.Where = append(q.Where, `NOT `+match("name_words", l, false))
		case "search":
			// The label's words hold the name's.
			q.Where = append(q.Where, `NOT `+match("label_words", l, false))
		}
		if l > 0 {
			q.Where = append(q.Where, `NOT `+match("search", l-1, false))
		}
		from = ws.from(column)
	}
	// rankOf is the rank of the product read, past 0, as SQL computes it.
	rankOf := func() string {
		var b strings.Builder
		b.WriteString(`CASE`)
		for r := 1; r < maxRank; r++ {
			if pq.levels.adds(levelOf(r)) {
				b.WriteString(` WHEN ` + match(rankColumn(r), levelOf(r), false) + ` THEN ` + strconv.Itoa(r))
			}
		}
		b.WriteString(` ELSE ` + strconv.Itoa(maxRank) + ` END`)
		return b.String()
	}
	col, ok := sortColumns[f.Query().Sort.Key()]
	if !ok {
		return fmt.Errorf("unknown sort %q", f.Query().Sort)
	}
	dir, cmp := "ASC", ">"
	if f.Query().Sort.Desc() {
		dir, cmp = "DESC", "<"
	}
	if f.After() != nil {
		if col == "" {
			q.Add(`id `+cmp+` `, f.After().ID)
		} else {
			var v any
			switch col {
			case "name_key":
				v = f.After().Name
			case "price":
				v = f.After().Price
			case "updated_at":
				v = f.After().Updated
			}
			keyset := fmt.Sprintf(`(%s, id) %s (%s, %s)`, col, cmp, q.Arg(v), q.Arg(f.After().ID))
			if rank == anyRank {
				// After a product of rank r, the rest of those of rank r,
				// then those of the ranks after.
				r := q.Arg(f.After().Rank)
				keyset = `(` + rankOf() + ` > ` + r + ` OR ` + rankOf() + ` = ` + r + ` AND ` + keyset + `)`
			}
			q.Where = append(q.Where, keyset)
		}
	}
	order := `id ` + dir
	if col != "" {
		order = col + ` ` + dir + `, ` + order
	}
	// A product's key is its sort column's and its relevance rank: the
	// rank read, or the one the whole query reads.
	type keyed struct {
		p    *vitrine.Product
		rank int
	}
	columns := db.selectProduct()
	scan := func(r sqldb.Row) (keyed, error) {
		p, err := scanProduct(r)
		return keyed{p, max(rank, 0)}, err
	}
	if rank == anyRank {
		columns += `, ` + rankOf() + ` AS relevance_rank`
		order = `relevance_rank, ` + order
		scan = func(r sqldb.Row) (keyed, error) {
			var k keyed
			var err error
			k.p, err = scanProductAnd(r, &k.rank)
			return k, err
		}
	}
	limit := base.LimitTo(q.Arg(f.Limit()))
	query := columns + ` FROM ` + from + ` WHERE ` + strings.Join(q.Where, ` AND `) + ` ORDER BY ` + order + limit
	if len(pq.only) > f.Limit() {
		// The page's ids first, sorted by their keys alone, then their
		// rows, by the key (CROSS JOIN: as id IN (...), SQLite walked the
		// company's products in the sort's order): the record and the
		// categories' names are read for the page, not for every id. (The
		// index's ids are its page, no more than the limit: each row is
		// then read once, by the join above.)
		join := `CROSS JOIN`
		if db.d.Name() == "postgres" {
			join = `JOIN` // a nested loop on the key, for the LIMIT's rows
		}
		query = columns + ` FROM (SELECT products.id AS page_id FROM ` + from + ` WHERE ` + strings.Join(q.Where, ` AND `) +
			` ORDER BY ` + order + limit + `) AS page ` + join + ` products ON products.tenant_id = $1 AND products.id = page.page_id ORDER BY ` + order
	}
	rows, err := sqldb.Collect(ctx, c, scan, query, q.Args...)
	if err != nil {
		return err
	}
	for _, r := range rows {
		k := vitrine.KeyOf(r.p, f.Query().Sort)
		if f.Query().Sort == vitrine.SortRelevance {
			k.Rank = r.rank
		}
		out.Products, out.Keys = append(out.Products, r.p), append(out.Keys, k)
	}
	return nil
}

// noCategory is an id no category has: a filter by a category the tenant
// does not have matches nothing.
const noCategory = "00000000-0000-0000-0000-000000000000"
