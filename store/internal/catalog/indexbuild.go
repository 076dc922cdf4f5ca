package catalog

// The build of a company's facet index, and the reads of what the index
// holds of its products (the build's chunks, and the products a catch-up
// brings in).

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/facetindex"
	"github.com/vitrine/vitrine/store/internal/sqldb"
	"golang.org/x/sync/errgroup"
)

// buildChunk is the number of products a build reads at a time (a
// variable for the tests: SetBuildChunk).
var buildChunk = 2000

// SetBuildChunk sets the products a build reads at a time, and returns
// what restores it: for the tests.
func SetBuildChunk(n int) (restore func()) {
	was := buildChunk
	buildChunk = n
	return func() { buildChunk = was }
}

// start starts the build of the company's index, unless one is under way.
func (ixs *Indexes) start(tenant string) {
	ixs.mu.Lock()
	defer ixs.mu.Unlock()
	if ixs.building[tenant] || ixs.ctx.Err() != nil {
		return
	}
	ixs.building[tenant] = true
	ixs.builds.Add(1)
	go func() {
		defer ixs.builds.Done()
		defer func() {
			ixs.mu.Lock()
			delete(ixs.building, tenant)
			ixs.mu.Unlock()
		}()
		defer ixs.report(tenant, -1)
		ixs.build(tenant)
	}()
}

// build reads the company's catalog in one snapshot, at its sequence,
// into an index, a chunk of products at a time (the products are never
// all in memory but as the index holds them, the next chunks read while
// one is indexed), and publishes it. Writes go
// on meanwhile: the lists after it bring it up to their snapshots.
func (ixs *Indexes) build(tenant string) {
	ctx, cancel := context.WithTimeout(ixs.ctx, 10*time.Minute)
	defer cancel()
	start := time.Now()
	db := ixs.base
	var (
		ix  *facetindex.Index
		seq uint64
	)
	err := db.d.Snapshot(ctx, base.Tenant(tenant), func(c sqldb.Conn) error {
		var err error
		if seq, _, err = readSeq(ctx, c, tenant); err != nil {
			return err
		}
		var n int
		if err := c.QueryRow(ctx, `SELECT count(*) FROM products WHERE tenant_id = $1`, tenant).Scan(&n); err != nil {
			return err
		}
		b := facetindex.NewBuilder(n)
		tree, err := db.readTree(ctx, c, tenant)
		if err != nil {
			return err
		}
		b.SetCategories(tree)
		// One goroutine reads the chunks in the snapshot, another indexes
		// them: the reads are the database's, the index's work is ours, and
		// on two cores one hides the other. At most two chunks wait.
		chunks := make(chan []*facetindex.Product, 2)
		g, gctx := errgroup.WithContext(ctx)
		g.Go(func() error {
			for chunk := range chunks {
				for _, p := range chunk {
					if err := b.Add(p); err != nil {
						return refusal{err}
					}
				}
				ixs.report(tenant, b.Bytes())
			}
			return nil
		})
		g.Go(func() error {
			defer close(chunks)
			after := noCategory // the least id: no product has it
			for {
				chunk := make([]*facetindex.Product, 0, buildChunk)
				err := db.readProducts(gctx, c, tenant, after, nil, buildChunk, func(p *facetindex.Product) error {
					chunk = append(chunk, p)
					return nil
				})
				if err != nil || len(chunk) == 0 {
					return err
				}
				select {
				case chunks <- chunk:
				case <-gctx.Done():
					return gctx.Err()
				}
				after = chunk[len(chunk)-1].ID
			}
		})
		if err := g.Wait(); err != nil {
			return err
		}
		ix = b.Finish(seq)
		return nil
	})
	var refused refusal
	switch {
	case errors.As(err, &refused):
		ixs.refuse(tenant, seq, false, refused.err)
		return
	case err != nil && ixs.ctx.Err() != nil:
		return // the store closes
	case err != nil:
		ixs.log.Error("facet index: build", "tenant_id", tenant, "error", err)
		return
	}
	if !ixs.cache.Add(tenant, ix) {
		ixs.log.Warn("facet index: the company's index exceeds the memory of the indexes; its facets are counted by SQL",
			"tenant_id", tenant, "bytes", ix.Bytes())
		ixs.refuse(tenant, seq, true, errors.New("facetindex: the index exceeds the memory given"))
		return
	}
	ixs.mu.Lock()
	ixs.stats.Builds++
	ixs.mu.Unlock()
	ixs.log.Info("facet index: built", "tenant_id", tenant, "products", ix.Len(), "bytes", ix.Bytes(), "seq", seq, "took", time.Since(start).Round(time.Millisecond))
}

// refusal is a product the index refuses (facetindex.Check).
type refusal struct{ err error }

func (r refusal) Error() string { return r.err.Error() }

// readTree reads the company's category tree.
func (db *Store) readTree(ctx context.Context, c sqldb.Conn, tenant string) ([]facetindex.Category, error) {
	return sqldb.Collect(ctx, c, func(r sqldb.Row) (facetindex.Category, error) {
		var cat facetindex.Category
		return cat, r.Scan(&cat.ID, &cat.ParentID, &cat.Name)
	}, `SELECT CAST(id AS TEXT), coalesce(CAST(parent_id AS TEXT), ''), name FROM categories WHERE tenant_id = $1`, tenant)
}

// readProducts reads what the index holds of the company's products, and
// hands each to fn, in the order of their ids: those of ids, or else up
// to limit after the id after. It reads their rows, not their records:
// what the SQL filters and facets read.
func (db *Store) readProducts(ctx context.Context, c sqldb.Conn, tenant, after string, ids []string, limit int, fn func(*facetindex.Product) error) error {
	var (
		rows sqldb.Rows
		err  error
	)
	// ORDER BY names the table's column: a bare id is the output column,
	// CAST(id AS TEXT), which PostgreSQL would sort as text, reading every
	// product after the chunk's first to sort them (a build quadratic in
	// the company's products) instead of walking the primary key.
	const cols = `SELECT CAST(id AS TEXT), name_key, status, vendor, product_type, currency, updated_at, search, name_words, coalesce(label_words, '') FROM products WHERE tenant_id = $1 AND `
	if ids != nil {
		rows, err = c.Query(ctx, cols+`id `+base.IDList(db.d)+` ORDER BY products.id`, tenant, base.IDArg(db.d, ids))
	} else {
		rows, err = c.Query(ctx, cols+`id > $2 ORDER BY products.id`+base.LimitTo("$3"), tenant, after, limit)
	}
	if err != nil {
		return err
	}
	var ps []*facetindex.Product
	byID := map[string]*facetindex.Product{}
	for rows.Next() {
		var (
			p                           facetindex.Product
			status, search, name, label string
		)
		if err := rows.Scan(&p.ID, &p.NameKey, &status, &p.Vendor, &p.ProductType, &p.Currency, &p.UpdatedAt, &search, &name, &label); err != nil {
			rows.Close()
			return err
		}
		p.ID = strings.ToLower(p.ID)
		p.Status = vitrine.ProductStatus(status)
		p.Words = strings.Fields(search)
		p.NameWords = strings.Fields(name)
		p.LabelWords = strings.Fields(label)
		ps = append(ps, &p)
		byID[p.ID] = &p
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ps) == 0 {
		return err
	}
	// The rows beside them: of the ids', or, for a chunk of the company's
	// products in order, of the range of ids it spans (a range of each
	// table's index by product, rather than a probe an id).
	list := make([]string, len(ps))
	for i, p := range ps {
		list[i] = p.ID
	}
	in, args := `product_id `+base.IDList(db.d), []any{tenant, base.IDArg(db.d, list)}
	if ids == nil {
		in, args = `product_id > $2 AND product_id <= $3`, []any{tenant, after, list[len(list)-1]}
	}
	get := func(id string) *facetindex.Product { return byID[strings.ToLower(id)] }
	err = each(ctx, c, `SELECT CAST(product_id AS TEXT), opt1_key, opt1_name, opt1, opt2_key, opt2_name, opt2, opt3_key, opt3_name, opt3,
			CAST(price AS TEXT), coalesce(CAST(compare_at_price AS TEXT), ''), CAST(stock AS TEXT)
			FROM `+base.By(db.d, "variants", "variants_by_product")+` WHERE tenant_id = $1 AND `+in+` ORDER BY variants.product_id, position`,
		args, func(r []string) {
			p := get(r[0])
			if p == nil {
				return
			}
			if len(p.Variants) == 0 {
				// The product's options, as its first variant names them.
				n := 0
				for s := range 3 {
					if r[1+3*s] != "" {
						n = s + 1
					}
				}
				for s := range n {
					p.Options = append(p.Options, r[2+3*s])
				}
			}
			v := facetindex.Variant{Values: make([]string, len(p.Options))}
			for s := range p.Options {
				v.Values[s] = r[3+3*s]
			}
			v.Price, _ = strconv.ParseInt(r[10], 10, 64)
			v.Stock, _ = strconv.ParseInt(r[12], 10, 64)
			if r[11] != "" {
				cmp, _ := strconv.ParseInt(r[11], 10, 64)
				v.CompareAtPrice = &cmp
			}
			p.Variants = append(p.Variants, v)
		}, 13)
	if err != nil {
		return err
	}
	err = each(ctx, c, `SELECT CAST(product_id AS TEXT), tag FROM `+base.By(db.d, "product_tags", "product_tags_by_product")+` WHERE tenant_id = $1 AND `+in,
		args, func(r []string) {
			if p := get(r[0]); p != nil {
				p.Tags = append(p.Tags, r[1])
			}
		}, 2)
	if err != nil {
		return err
	}
	err = each(ctx, c, `SELECT CAST(product_id AS TEXT), CAST(category_id AS TEXT) FROM `+base.By(db.d, "product_categories", "product_categories_by_product")+` WHERE tenant_id = $1 AND `+in,
		args, func(r []string) {
			if p := get(r[0]); p != nil {
				p.Categories = append(p.Categories, strings.ToLower(r[1]))
			}
		}, 2)
	if err != nil {
		return err
	}
	err = each(ctx, c, `SELECT CAST(product_id AS TEXT), locale FROM `+base.By(db.d, "translated_products", "translated_products_by_product")+` WHERE tenant_id = $1 AND `+in,
		args, func(r []string) {
			if p := get(r[0]); p != nil {
				p.Translated = append(p.Translated, r[1])
			}
		}, 2)
	if err != nil {
		return err
	}
	err = each(ctx, c, `SELECT CAST(product_id AS TEXT), key, value FROM product_attributes WHERE tenant_id = $1 AND `+in,
		args, func(r []string) {
			if p := get(r[0]); p != nil {
				if p.Attributes == nil {
					p.Attributes = map[string]string{}
				}
				p.Attributes[r[1]] = r[2]
			}
		}, 3)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if err := fn(p); err != nil {
			return err
		}
	}
	return nil
}
