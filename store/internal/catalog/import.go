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
// keys, 500 keys at a time, each product once.
func (db *Store) productsJoined(ctx context.Context, tenantID string, keys []string) ([]*vitrine.Product, error) {
	if !base.ValidIDs(tenantID) || len(keys) == 0 {
		return nil, nil
	}
	var out []*vitrine.Product
	seen := map[string]bool{}
	err := db.d.Read(ctx, base.Tenant(tenantID), func(c sqldb.Conn) error {
		for len(keys) > 0 {
			n := min(len(keys), 500)
			var q base.QueryBuilder
			q.Add(`v.tenant_id = `, tenantID)
			in := make([]string, n)
			for i, k := range keys[:n] {
				in[i] = q.Arg(k)
			}
			ps, err := sqldb.Collect(ctx, c, scanProduct, db.selectJoinedProduct()+` FROM variants v JOIN products ON products.tenant_id = v.tenant_id AND products.id = v.product_id
				WHERE `+q.Where[0]+` AND v.sku_key IN (`+strings.Join(in, ", ")+`)`, q.Args...)
			if err != nil {
				return err
			}
			for _, p := range ps {
				if !seen[p.ID] {
					seen[p.ID] = true
					out = append(out, p)
				}
			}
			keys = keys[n:]
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("get products by SKU: %w", err)
	}
	return out, nil
}

// ProductsByHandle returns the tenant's products with those handles, by
// handle.
func (db *Store) ProductsByHandle(ctx context.Context, tenantID string, handles []string) (map[string]*vitrine.Product, error) {
	ps, err := db.productsWhere(ctx, tenantID, `handle IN (%s)`, handles)
	out := make(map[string]*vitrine.Product, len(handles))
	for _, p := range ps {
		out[p.Handle] = p
	}
	return out, err
}

// productsWhere reads the tenant's products matching cond, whose %s takes
// the values, 500 at a time.
func (db *Store) productsWhere(ctx context.Context, tenantID, cond string, values []string) ([]*vitrine.Product, error) {
	if !base.ValidIDs(tenantID) || len(values) == 0 {
		return nil, nil
	}
	var out []*vitrine.Product
	err := db.d.Read(ctx, base.Tenant(tenantID), func(c sqldb.Conn) error {
		for len(values) > 0 {
			n := min(len(values), 500)
			var q base.QueryBuilder
			q.Add(`tenant_id = `, tenantID)
			in := make([]string, n)
			for i, v := range values[:n] {
				in[i] = q.Arg(v)
			}
			ps, err := sqldb.Collect(ctx, c, scanProduct, db.selectProduct()+` FROM products WHERE `+q.Where[0]+
				` AND `+fmt.Sprintf(cond, strings.Join(in, ", ")), q.Args...)
			if err != nil {
				return err
			}
			out = append(out, ps...)
			values = values[n:]
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("get products: %w", err)
	}
	return out, nil
}

// writeBatch is the number of writes between two progress reports.
const writeBatch = 100

// WriteProducts creates and updates products in one transaction. Each
// write runs under a savepoint, so that a failed one (a taken SKU, a stale
// version) leaves the others standing; with atomic, any failure rolls
// everything back.
func (db *Store) WriteProducts(ctx context.Context, ch vitrine.Change, tenantID string, writes []vitrine.ProductWrite, atomic bool, progress func(done int)) ([]error, error) {
	results := make([]error, len(writes))
	if !base.ValidIDs(tenantID) {
		return nil, vitrine.NotFound("Tenant")
	}
	failed := errors.New("a write failed")
	err := db.write(ctx, base.Tenant(tenantID), ch, base.Is(""), func(c sqldb.Conn) error {
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
	return results, nil
}

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
			err = vitrine.Conflict("handle", "The product %q changed or was deleted while it was being imported; import it again", w.Update.Handle)
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
