package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

const productColumns = `id, tenant_id, sku, name, description, price, currency, stock, status, version, created_at, created_by, updated_at, updated_by`

func scanProduct(r sqldb.Row) (*vitrine.Product, error) { return scanProductAnd(r) }

// scanProductAnd scans productColumns, then more.
func scanProductAnd(r sqldb.Row, more ...any) (*vitrine.Product, error) {
	var (
		p      vitrine.Product
		status string
	)
	if err := r.Scan(append([]any{&p.ID, &p.TenantID, &p.SKU, &p.Name, &p.Description, &p.Price, &p.Currency, &p.Stock, &status,
		&p.Version, &p.CreatedAt, &p.CreatedBy, &p.UpdatedAt, &p.UpdatedBy}, more...)...); err != nil {
		return nil, err
	}
	p.Status = vitrine.ProductStatus(status)
	return &p, nil
}

// words returns what a text query matches of p: the words of its name,
// and of its name, SKU and description.
func words(p *vitrine.Product) (name, all string) {
	name = strings.Join(vitrine.Words(p.Name), " ")
	return name, strings.Join(append(vitrine.Words(p.Name+" "+p.SKU), vitrine.Words(p.Description)...), " ")
}

func (db *DB) productConflict(err error, p *vitrine.Product) error {
	if name, ok := db.d.Constraint(err); ok && name == "products_sku_key" && p != nil {
		return vitrine.Conflict("sku", "A product with SKU %q already exists in this company (SKUs are compared without case)", p.SKU)
	}
	return err
}

// insertProduct stores a new product and the movement of its first stock.
func insertProduct(ctx context.Context, c sqldb.Conn, ch vitrine.Change, p *vitrine.Product) error {
	nameWords, search := words(p)
	if _, err := c.Exec(ctx, `INSERT INTO products (tenant_id, id, sku, sku_key, name, name_key, description, name_words, search,
			price, currency, stock, status, version, created_at, created_by, updated_at, updated_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
		p.TenantID, p.ID, p.SKU, vitrine.SKUKey(p.SKU), p.Name, vitrine.Fold(p.Name), p.Description, nameWords, search,
		p.Price, p.Currency, p.Stock, string(p.Status), p.Version, p.CreatedAt, p.CreatedBy, p.UpdatedAt, p.UpdatedBy); err != nil {
		return err
	}
	return recordStock(ctx, c, ch, p, p.Stock)
}

// updateProduct writes p over the stored product if its version is still
// p.Version, reporting whether it was; then p holds the next version. The
// change of stock from stockBefore is recorded as a movement.
func updateProduct(ctx context.Context, c sqldb.Conn, ch vitrine.Change, p *vitrine.Product, stockBefore int64) (bool, error) {
	nameWords, search := words(p)
	n, err := c.Exec(ctx, `UPDATE products SET sku = $1, sku_key = $2, name = $3, name_key = $4, description = $5, name_words = $6, search = $7,
			price = $8, currency = $9, stock = $10, status = $11, version = version + 1, updated_at = $12, updated_by = $13
		WHERE tenant_id = $14 AND id = $15 AND version = $16`,
		p.SKU, vitrine.SKUKey(p.SKU), p.Name, vitrine.Fold(p.Name), p.Description, nameWords, search,
		p.Price, p.Currency, p.Stock, string(p.Status), p.UpdatedAt, p.UpdatedBy,
		p.TenantID, p.ID, p.Version)
	if err != nil || n != 1 {
		return false, err
	}
	p.Version++
	return true, recordStock(ctx, c, ch, p, p.Stock-stockBefore)
}

// recordStock records a change of p's stock by delta, if there is one,
// with ch's reason and request id.
func recordStock(ctx context.Context, c sqldb.Conn, ch vitrine.Change, p *vitrine.Product, delta int64) error {
	if delta == 0 {
		return nil
	}
	return sqldb.ExecLater(ctx, c, `INSERT INTO stock_movements (tenant_id, id, product_id, delta, stock_after, reason, user_id, request_id, at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		p.TenantID, vitrine.NewID(), p.ID, delta, p.Stock, ch.Reason, p.UpdatedBy, ch.Call.RequestID, p.UpdatedAt)
}

// CreateProduct stores a new product, or finds the one its idempotency
// key made: the call's event is about the product it answers with.
func (db *DB) CreateProduct(ctx context.Context, ch vitrine.Change, p *vitrine.Product, key *vitrine.IdempotencyKey) (*vitrine.Product, error) {
	out := p
	err := db.write(ctx, tenant(p.TenantID), ch, func() string { return out.ID }, func(c sqldb.Conn) error {
		if key != nil {
			var hash, id string
			err := c.QueryRow(ctx, `SELECT request_hash, product_id FROM idempotency_keys
				WHERE tenant_id = $1 AND user_id = $2 AND key = $3 AND expires_at > $4`+db.d.ForUpdate(),
				p.TenantID, key.UserID, key.Key, p.CreatedAt).Scan(&hash, &id)
			switch {
			case err == nil && hash != key.RequestHash:
				return vitrine.Conflict("idempotency_key", "This idempotency_key was already used with other arguments; use a new key for a new product")
			case err == nil:
				found, err := scanProduct(c.QueryRow(ctx, `SELECT `+productColumns+` FROM products WHERE tenant_id = $1 AND id = $2`, p.TenantID, id))
				if errors.Is(err, sqldb.ErrNoRows) {
					return vitrine.NotFound("Product")
				}
				out = found // the retry is about the product the first call made
				return err
			case !errors.Is(err, sqldb.ErrNoRows):
				return err
			}
			// A new key, or an expired one taken over. Only an expired one is
			// removed: on PostgreSQL a concurrent call's key may have been
			// committed since the SELECT above, and must stay, so that the
			// INSERT below fails on it and the retry answers as that call did.
			if _, err := c.Exec(ctx, `DELETE FROM idempotency_keys WHERE tenant_id = $1 AND user_id = $2 AND key = $3 AND expires_at <= $4`,
				p.TenantID, key.UserID, key.Key, p.CreatedAt); err != nil {
				return err
			}
			if _, err := c.Exec(ctx, `INSERT INTO idempotency_keys (tenant_id, user_id, key, request_hash, product_id, created_at, expires_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7)`, p.TenantID, key.UserID, key.Key, key.RequestHash, p.ID, p.CreatedAt, key.ExpiresAt); err != nil {
				return err
			}
		}
		return insertProduct(ctx, c, ch, p)
	})
	if name, ok := db.d.Constraint(err); ok && name == "idempotency_keys_pkey" {
		// A concurrent retry with the same key won the race: answer as it did.
		return db.CreateProduct(ctx, ch, p, key)
	}
	if err != nil {
		if err := db.productConflict(err, p); vitrine.AsError(err) != nil {
			return nil, err
		}
		return nil, fmt.Errorf("create product: %w", err)
	}
	return out, nil
}

// ProductByID returns a product of the tenant, or NotFoundError.
func (db *DB) ProductByID(ctx context.Context, tenantID, id string) (*vitrine.Product, error) {
	if !validIDs(tenantID, id) {
		return nil, vitrine.NotFound("Product")
	}
	return db.product(ctx, tenantID, `SELECT `+productColumns+` FROM products WHERE tenant_id = $1 AND id = $2`, id)
}

// ProductBySKU returns the tenant's product with that SKU, compared without
// case, or NotFoundError.
func (db *DB) ProductBySKU(ctx context.Context, tenantID, sku string) (*vitrine.Product, error) {
	if !validIDs(tenantID) {
		return nil, vitrine.NotFound("Product")
	}
	return db.product(ctx, tenantID, `SELECT `+productColumns+` FROM products WHERE tenant_id = $1 AND sku_key = $2`, vitrine.SKUKey(sku))
}

func (db *DB) product(ctx context.Context, tenantID, query, arg string) (*vitrine.Product, error) {
	var p *vitrine.Product
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) (err error) {
		p, err = scanProduct(c.QueryRow(ctx, query, tenantID, arg))
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, vitrine.NotFound("Product")
	}
	if err != nil {
		return nil, fmt.Errorf("get product: %w", err)
	}
	return p, nil
}

// ProductsBySKU returns the tenant's products with those SKUs, by SKU key.
func (db *DB) ProductsBySKU(ctx context.Context, tenantID string, skus []string) (map[string]*vitrine.Product, error) {
	out := make(map[string]*vitrine.Product, len(skus))
	if !validIDs(tenantID) || len(skus) == 0 {
		return out, nil
	}
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) error {
		for len(skus) > 0 {
			n := min(len(skus), 500)
			var q queryBuilder
			q.add(`tenant_id = `, tenantID)
			keys := make([]string, n)
			for i, s := range skus[:n] {
				keys[i] = q.arg(vitrine.SKUKey(s))
			}
			ps, err := sqldb.Collect(ctx, c, scanProduct, `SELECT `+productColumns+` FROM products WHERE `+q.where[0]+
				` AND sku_key IN (`+strings.Join(keys, ", ")+`)`, q.args...)
			if err != nil {
				return err
			}
			for _, p := range ps {
				out[vitrine.SKUKey(p.SKU)] = p
			}
			skus = skus[n:]
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("get products by SKU: %w", err)
	}
	return out, nil
}

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
	if !validIDs(tenantID) {
		return nil, nil
	}
	var out []*vitrine.Product
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) error {
		var ws wordSearch
		if len(f.Words) > 0 {
			var err error
			if ws, err = db.search(ctx, c, tenantID, f.Words); err != nil {
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
		return nil, fmt.Errorf("list products: %w", err)
	}
	return out, nil
}

// nameOrRest, as the rank of listProducts, reads relevance ranks 1 and 2
// in one query, each product with its rank.
const nameOrRest = 12

// listProducts reads one page in one order, finding words as ws says;
// rank, unless -1, keeps only the products of that relevance rank (or, as
// nameOrRest, of ranks 1 and 2).
func (db *DB) listProducts(ctx context.Context, c sqldb.Conn, ws wordSearch, tenantID string, f vitrine.ProductFilter, rank int) ([]*vitrine.Product, error) {
	var q queryBuilder
	q.add(`tenant_id = `, tenantID)
	if f.Status != "" {
		q.add(`status = `, string(f.Status))
	}
	if f.InStock != nil {
		q.where = append(q.where, map[bool]string{true: `stock > 0`, false: `stock = 0`}[*f.InStock])
	}
	if f.MinPrice != nil || f.MaxPrice != nil {
		q.add(`currency = `, f.PriceCurrency)
	}
	if f.MinPrice != nil {
		q.add(`price >= `, *f.MinPrice)
	}
	if f.MaxPrice != nil {
		q.add(`price <= `, *f.MaxPrice)
	}
	if f.UpdatedSince != nil {
		q.add(`updated_at >= `, *f.UpdatedSince)
	}
	match := func(column string, drive bool) string { return ws.match(&q, column, drive) }
	from := "products"
	switch rank {
	case -1:
		if len(f.Words) > 0 {
			q.where = append(q.where, match("search", true))
			from = ws.from("search")
		}
	case 0:
		q.add(`sku_key = `, f.SKU)
	case 1:
		q.where = append(q.where, match("name_words", true), `sku_key <> `+q.arg(f.SKU))
		from = ws.from("name_words")
	case 2:
		q.where = append(q.where, match("search", true), `NOT `+match("name_words", false), `sku_key <> `+q.arg(f.SKU))
		from = ws.from("search")
	case nameOrRest:
		// A name's words are among the product's: ranks 1 and 2 are the
		// products matching in search, apart from the SKU itself.
		q.where = append(q.where, match("search", true), `sku_key <> `+q.arg(f.SKU))
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
	columns, scan := productColumns, scanProduct
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
	query := `SELECT ` + columns + ` FROM ` + from + ` WHERE ` + strings.Join(q.where, ` AND `) +
		` ORDER BY ` + order + limitTo(q.arg(f.Limit))
	return sqldb.Collect(ctx, c, scan, query, q.args...)
}

// UpdateProduct reads the product under a row lock (the single writer
// connection holds it on SQLite; FOR UPDATE on PostgreSQL), applies change
// and writes the result with the next version, in one transaction.
func (db *DB) UpdateProduct(ctx context.Context, ch vitrine.Change, tenantID, id string, change func(*vitrine.Product) error) (*vitrine.Product, error) {
	if !validIDs(tenantID, id) {
		return nil, vitrine.NotFound("Product")
	}
	var p *vitrine.Product
	err := db.write(ctx, tenant(tenantID), ch, is(id), func(c sqldb.Conn) (err error) {
		p, err = scanProduct(c.QueryRow(ctx, `SELECT `+productColumns+` FROM products WHERE tenant_id = $1 AND id = $2`+db.d.ForUpdate(), tenantID, id))
		if errors.Is(err, sqldb.ErrNoRows) {
			return vitrine.NotFound("Product")
		}
		if err != nil {
			return err
		}
		stock := p.Stock
		if err := change(p); err != nil {
			return err
		}
		p.TenantID, p.ID = tenantID, id
		written, err := updateProduct(ctx, c, ch, p, stock)
		if err == nil && !written {
			err = fmt.Errorf("product %s changed under its lock", id)
		}
		return err
	})
	if err != nil {
		if err := db.productConflict(err, p); vitrine.AsError(err) != nil {
			return nil, err
		}
		return nil, fmt.Errorf("update product: %w", err)
	}
	return p, nil
}

// DeleteProduct removes a product of the tenant, or answers NotFoundError.
// Its stock movements stay, as history.
func (db *DB) DeleteProduct(ctx context.Context, ch vitrine.Change, tenantID, id string) error {
	if !validIDs(tenantID, id) {
		return vitrine.NotFound("Product")
	}
	var n int64
	err := db.write(ctx, tenant(tenantID), ch, is(id), func(c sqldb.Conn) (err error) {
		n, err = c.Exec(ctx, `DELETE FROM products WHERE tenant_id = $1 AND id = $2`, tenantID, id)
		if err == nil && n == 0 {
			return vitrine.NotFound("Product")
		}
		return err
	})
	if err != nil && vitrine.AsError(err) == nil {
		return fmt.Errorf("delete product: %w", err)
	}
	return err
}

// writeBatch is the number of writes between two progress reports.
const writeBatch = 100

// WriteProducts creates and updates products in one transaction. Each
// write runs under a savepoint, so that a failed one (a taken SKU, a stale
// version) leaves the others standing; with atomic, any failure rolls
// everything back.
func (db *DB) WriteProducts(ctx context.Context, ch vitrine.Change, tenantID string, writes []vitrine.ProductWrite, atomic bool, progress func(done int)) ([]error, error) {
	results := make([]error, len(writes))
	if !validIDs(tenantID) {
		return nil, vitrine.NotFound("Tenant")
	}
	failed := errors.New("a write failed")
	err := db.write(ctx, tenant(tenantID), ch, is(""), func(c sqldb.Conn) error {
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
		return nil, fmt.Errorf("write products: %w", err)
	}
	if progress != nil {
		progress(len(writes))
	}
	return results, nil
}

// writeOne makes one write; isolate puts it under a savepoint so that its
// failure leaves the transaction usable (an atomic batch needs none: any
// failure rolls it all back).
func (db *DB) writeOne(ctx context.Context, c sqldb.Conn, ch vitrine.Change, w vitrine.ProductWrite, isolate bool) error {
	if isolate {
		if _, err := c.Exec(ctx, `SAVEPOINT product_write`); err != nil {
			return err
		}
	}
	var err error
	switch {
	case w.Create != nil:
		err = insertProduct(ctx, c, ch, w.Create)
		err = db.productConflict(err, w.Create)
	case w.Update != nil:
		var stock int64
		if err = c.QueryRow(ctx, `SELECT stock FROM products WHERE tenant_id = $1 AND id = $2`, w.Update.TenantID, w.Update.ID).Scan(&stock); err == nil {
			var written bool
			if written, err = updateProduct(ctx, c, ch, w.Update, stock); err == nil && !written {
				err = vitrine.Conflict("sku", "The product with SKU %q changed while it was being imported; import the row again", w.Update.SKU)
			}
		} else if errors.Is(err, sqldb.ErrNoRows) {
			err = vitrine.Conflict("sku", "The product with SKU %q was deleted while it was being imported; import the row again", w.Update.SKU)
		}
		err = db.productConflict(err, w.Update)
	}
	if !isolate {
		return err
	}
	if err != nil {
		if _, rerr := c.Exec(ctx, `ROLLBACK TO SAVEPOINT product_write`); rerr != nil {
			return rerr
		}
	}
	if _, rerr := c.Exec(ctx, `RELEASE SAVEPOINT product_write`); rerr != nil {
		return rerr
	}
	return err
}

// ListStockMovements returns a page of stock movements, newest first.
func (db *DB) ListStockMovements(ctx context.Context, tenantID, productID, before string, limit int) ([]*vitrine.StockMovement, error) {
	if !validIDs(tenantID) || (productID != "" && !validIDs(productID)) {
		return nil, nil
	}
	var q queryBuilder
	q.add(`tenant_id = `, tenantID)
	if productID != "" {
		q.add(`product_id = `, productID)
	}
	if before != "" {
		q.add(`id < `, before)
	}
	query := `SELECT tenant_id, id, product_id, delta, stock_after, reason, user_id, request_id, at FROM stock_movements WHERE ` +
		strings.Join(q.where, ` AND `) + ` ORDER BY id DESC` + limitTo(q.arg(limit))
	var out []*vitrine.StockMovement
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (*vitrine.StockMovement, error) {
			var m vitrine.StockMovement
			return &m, r.Scan(&m.TenantID, &m.ID, &m.ProductID, &m.Delta, &m.StockAfter, &m.Reason, &m.UserID, &m.RequestID, &m.At)
		}, query, q.args...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list stock movements: %w", err)
	}
	return out, nil
}

// queryBuilder collects WHERE terms and numbers their arguments.
type queryBuilder struct {
	where []string
	args  []any
}

func (q *queryBuilder) arg(v any) string {
	q.args = append(q.args, v)
	return "$" + strconv.Itoa(len(q.args))
}

func (q *queryBuilder) add(term string, v any) {
	q.where = append(q.where, term+q.arg(v))
}
