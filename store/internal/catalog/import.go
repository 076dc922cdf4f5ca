package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// ProductsBySKU returns the tenant's products with variants of those SKUs,
// by SKU key.
func (db *Store) ProductsBySKU(ctx context.Context, tenantID string, skus []string) (map[string]*vitrine.Product, error) {
	keys := make([]string, len(skus))
	for i, s := range skus {
		keys[i] = vitrine.SKUKey(s)
	}
	// Joined from the variants' SKU index: as a subquery (id IN (SELECT
	// ...)), PostgreSQL's generic plan of the prepared statement read the
	// company's products one by one against it, minutes a batch of an
	// import in a catalog of 100,000.
	ps, err := db.productsJoined(ctx, tenantID, keys)
	out := make(map[string]*vitrine.Product, len(skus))
	for _, p := range ps {
		for _, v := range p.Variants {
			if v.SKU != "" {
				out[vitrine.SKUKey(v.SKU)] = p
			}
		}
	}
	return out, err
}

// productsJoined reads the tenant's products with variants of those SKU
// keys, each product once.
func (db *Store) productsJoined(ctx context.Context, tenantID string, keys []string) ([]*vitrine.Product, error) {
	var out []*vitrine.Product
	seen := map[string]bool{}
	err := db.lookUp(ctx, tenantID, keys, keyQuery{
		postgres: db.selectJoinedProduct() + ` FROM unnest($2::text[]) AS k(key), LATERAL (SELECT products.* FROM variants v
			JOIN products ON products.tenant_id = v.tenant_id AND products.id = v.product_id
			WHERE v.tenant_id = $1 AND v.sku_key = k.key LIMIT 1) products`,
		// Joined from the variants' SKU index: as a subquery (id IN
		// (SELECT ...)), the products were read one by one against it.
		sqlite: db.selectJoinedProduct() + ` FROM variants v JOIN products ON products.tenant_id = v.tenant_id AND products.id = v.product_id
			WHERE v.tenant_id = $1 AND v.sku_key IN (%s)`,
	}, func(p *vitrine.Product) {
		if !seen[p.ID] {
			seen[p.ID] = true
			out = append(out, p)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("get products by SKU: %w", err)
	}
	return out, nil
}

// ProductsByHandle returns the tenant's products with those handles, by
// handle.
func (db *Store) ProductsByHandle(ctx context.Context, tenantID string, handles []string) (map[string]*vitrine.Product, error) {
	out := make(map[string]*vitrine.Product, len(handles))
	err := db.lookUp(ctx, tenantID, handles, keyQuery{
		postgres: db.selectProduct() + ` FROM unnest($2::text[]) AS k(key), LATERAL (SELECT * FROM products
			WHERE tenant_id = $1 AND handle = k.key LIMIT 1) products`,
		sqlite: db.selectProduct() + ` FROM products WHERE tenant_id = $1 AND handle IN (%s)`,
	}, func(p *vitrine.Product) { out[p.Handle] = p })
	if err != nil {
		return out, fmt.Errorf("get products: %w", err)
	}
	return out, nil
}

// keyQuery is a lookup of products by the keys of a unique index of the
// tenant ($1), on each database.
type keyQuery struct {
	// postgres reads the keys, an array ($2), as a table k(key), probing
	// the index once a key in a LATERAL subquery that ends at its first
	// row: PostgreSQL cannot turn that into a scan of the company's rows,
	// whatever its statistics say. (An import fills tables faster than
	// autovacuum analyzes them; with an IN list of parameters, the
	// generic plan of the prepared statement, made on the statistics of
	// an almost empty table, read every variant of the company for each
	// batch of an import and compared it with each key one by one: a
	// batch cost what the import had written before it.)
	postgres string
	// sqlite takes the keys, 500 at a time, in an IN list (%s), which
	// SQLite reads by the index.
	sqlite string
}

// lookUp reads the tenant's products that q finds for keys, each once a
// key it matches.
func (db *Store) lookUp(ctx context.Context, tenantID string, keys []string, q keyQuery, found func(*vitrine.Product)) error {
	if !base.ValidIDs(tenantID) || len(keys) == 0 {
		return nil
	}
	return db.d.Read(ctx, base.Tenant(tenantID), func(c sqldb.Conn) error {
		if db.d.Name() == "postgres" {
			ps, err := sqldb.Collect(ctx, c, scanProduct, q.postgres, tenantID, keys)
			for _, p := range ps {
				found(p)
			}
			return err
		}
		for len(keys) > 0 {
			n := min(len(keys), 500)
			var b base.QueryBuilder
			b.Arg(tenantID)
			in := make([]string, n)
			for i, k := range keys[:n] {
				in[i] = b.Arg(k)
			}
			ps, err := sqldb.Collect(ctx, c, scanProduct, fmt.Sprintf(q.sqlite, strings.Join(in, ", ")), b.Args...)
			if err != nil {
				return err
			}
			for _, p := range ps {
				found(p)
			}
			keys = keys[n:]
		}
		return nil
	})
}

// writeBatch is the number of writes between two progress reports.
const writeBatch = 100

// WriteProducts creates and updates products in one transaction. A failed
// write (a taken SKU, a stale version) leaves the others standing: on
// SQLite each write runs under a savepoint; on PostgreSQL the writes go
// pipelined, a chunk of them in one round trip under one savepoint
// (pipelined). With atomic, any failure rolls everything back.
func (db *Store) WriteProducts(ctx context.Context, ch vitrine.Change, tenantID string, writes []vitrine.ProductWrite, atomic bool, progress func(done int)) ([]error, error) {
	results := make([]error, len(writes))
	if !base.ValidIDs(tenantID) {
		return nil, vitrine.NotFound("Tenant")
	}
	failed := errors.New("a write failed")
	written := func() changes {
		var ch changes
		for _, w := range writes {
			switch {
			case w.Create != nil:
				ch.products = append(ch.products, w.Create.ID)
			case w.Update != nil:
				ch.products = append(ch.products, w.Update.ID)
			}
		}
		return ch
	}
	err := db.write(ctx, base.Tenant(tenantID), ch, base.Is(""), written, func(c sqldb.Conn) error {
		if p, ok := sqldb.AsPipeliner(c); ok {
			pw := &pipelined{db: db, c: c, p: p, ch: ch, writes: writes, results: results, atomic: atomic, progress: progress, failed: failed}
			return pw.writeRange(ctx, 0, len(writes))
		}
		for i, w := range writes {
			results[i] = db.writeOne(ctx, c, ch, w, !atomic)
			if results[i] != nil && vitrine.AsError(results[i]) == nil {
				return results[i] // the database failed, not the row
			}
			if results[i] != nil && atomic {
				return failed // the rest would be rolled back anyway
			}
			if (i+1)%writeBatch == 0 && progress != nil {
				progress(i + 1)
			}
		}
		return nil
	})
	if err != nil && err != failed {
		if err := db.productConflict(ctx, err, nil); vitrine.AsError(err) != nil {
			return nil, err
		}
		return nil, fmt.Errorf("write products: %w", err)
	}
	if progress != nil {
		progress(len(writes))
	}
	if len(writes) >= pipelineChunk {
		// An import's batch: once the import has grown the tables by
		// half (past sqldb.AnalyzeAfter rows), the planner learns what
		// they now hold. The writes are committed: a failure here is
		// the statistics', which autovacuum brings later.
		if _, err := db.d.AnalyzeFilled(ctx, int64(len(writes)), filledTables...); err != nil {
			db.log.Warn("analyze the tables an import filled", "err", err)
		}
	}
	return results, nil
}

// filledTables are the tables an import fills, products first (whose
// growth AnalyzeFilled measures).
var filledTables = []string{"products", "variants", "product_tags", "product_categories", "product_attributes", "product_words", "stock_movements", "catalog_changes"}

// writeOne makes one write under a savepoint, so that its failure leaves
// the transaction usable. Its statements run at once (not ExecLater), so
// that a failure is the row's, under its savepoint.
func (db *Store) writeOne(ctx context.Context, c sqldb.Conn, ch vitrine.Change, w vitrine.ProductWrite, isolate bool) error {
	if isolate {
		if _, err := c.Exec(ctx, `SAVEPOINT product_write`); err != nil {
			return err
		}
	}
	now := immediate{c}
	var (
		err error
		p   = w.Create
	)
	switch {
	case w.Create != nil:
		err = insertProduct(ctx, now, ch, w.Create)
	case w.Update != nil:
		p = w.Update
		var written bool
		if written, err = updateProduct(ctx, now, ch, w.Update, w.Before); err == nil && !written {
			err = changedMeanwhile(w.Update)
		}
	}
	if err != nil {
		if isolate {
			if _, rerr := c.Exec(ctx, `ROLLBACK TO SAVEPOINT product_write`); rerr != nil {
				return rerr
			}
		}
		err = db.constraintOfWrite(err, p)
	}
	if isolate {
		if _, rerr := c.Exec(ctx, `RELEASE SAVEPOINT product_write`); rerr != nil {
			return rerr
		}
	}
	return err
}

// changedMeanwhile is the error of an update whose product is no longer
// the version it was read at.
func changedMeanwhile(p *vitrine.Product) error {
	return vitrine.Conflict("handle", "The product %q changed or was deleted while it was being imported; import it again", p.Handle)
}

// constraintOfWrite is productConflict inside a batch, where the SKU taken
// cannot be read from another transaction before the batch ends.
func (db *Store) constraintOfWrite(err error, p *vitrine.Product) error {
	name, ok := db.d.Constraint(err)
	if !ok || p == nil {
		return err
	}
	switch name {
	case "products_handle":
		return vitrine.Conflict("handle", "A product with handle %q already exists in this company", p.Handle)
	case "variants_sku_key", "variants_pkey":
		var skus []string
		for _, v := range p.Variants {
			if v.SKU != "" {
				skus = append(skus, v.SKU)
			}
		}
		if len(skus) == 1 {
			return vitrine.Conflict("sku", "A product with SKU %q already exists in this company (SKUs are compared without case)", skus[0])
		}
		return vitrine.Conflict("sku", "One of the SKUs %s is taken by another product of this company", strings.Join(skus, ", "))
	}
	return err
}

// immediate runs ExecLater's statements at once.
type immediate struct{ sqldb.Conn }

func (c immediate) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return c.Conn.Exec(ctx, query, args...)
}
