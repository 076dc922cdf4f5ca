package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/vitrine/vitrine"
)

const productColumns = `id, tenant_id, sku, name, description, price, currency, stock, status, version, created_at, created_by, updated_at, updated_by`

func scanProduct(r row) (*vitrine.Product, error) {
	var (
		p      vitrine.Product
		status string
	)
	if err := r.Scan(&p.ID, &p.TenantID, &p.SKU, &p.Name, &p.Description, &p.Price, &p.Currency, &p.Stock, &status,
		&p.Version, &p.CreatedAt, &p.CreatedBy, &p.UpdatedAt, &p.UpdatedBy); err != nil {
		return nil, err
	}
	p.Status = vitrine.ProductStatus(status)
	return &p, nil
}

// searchText is what a text query matches: the folded name and SKU.
func searchText(p *vitrine.Product) string {
	return vitrine.Fold(p.Name + " " + p.SKU)
}

func (db *DB) productConflict(err error, p *vitrine.Product) error {
	if name, ok := db.d.constraint(err); ok && name == "products_sku_key" {
		return vitrine.Conflict("sku", "A product with SKU %q already exists in this company (SKUs are compared without case)", p.SKU)
	}
	return err
}

// CreateProduct stores a new product. A SKU already taken in the tenant,
// in any case, is a ConflictError.
func (db *DB) CreateProduct(ctx context.Context, p *vitrine.Product) error {
	err := db.write(ctx, tenant(p.TenantID), func(c conn) error {
		_, err := c.Exec(ctx, `INSERT INTO products (tenant_id, id, sku, sku_key, name, name_key, description, search,
				price, currency, stock, status, version, created_at, created_by, updated_at, updated_by)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
			p.TenantID, p.ID, p.SKU, vitrine.SKUKey(p.SKU), p.Name, vitrine.Fold(p.Name), p.Description, searchText(p),
			p.Price, p.Currency, p.Stock, string(p.Status), p.Version, p.CreatedAt, p.CreatedBy, p.UpdatedAt, p.UpdatedBy)
		return err
	})
	if err != nil {
		if err := db.productConflict(err, p); vitrine.AsError(err) != nil {
			return err
		}
		return fmt.Errorf("create product: %w", err)
	}
	return nil
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
	err := db.d.read(ctx, tenant(tenantID), func(c conn) (err error) {
		p, err = scanProduct(c.QueryRow(ctx, query, tenantID, arg))
		return err
	})
	if errors.Is(err, errNoRows) {
		return nil, vitrine.NotFound("Product")
	}
	if err != nil {
		return nil, fmt.Errorf("get product: %w", err)
	}
	return p, nil
}

// sortColumns maps a sort key to its column; created_at orders by id, which
// UUIDv7 makes time-ordered.
var sortColumns = map[string]string{"name": "name_key", "price": "price", "updated_at": "updated_at", "created_at": ""}

// ListProducts returns a page of the tenant's products, by keyset: the page
// starts after f.After in the sort order, using the index that leads with
// (tenant_id, sort column, id). No OFFSET.
func (db *DB) ListProducts(ctx context.Context, tenantID string, f vitrine.ProductFilter) ([]*vitrine.Product, error) {
	var q queryBuilder
	q.add(`tenant_id = `, tenantID)
	if f.Status != "" {
		q.add(`status = `, string(f.Status))
	}
	if f.Query != "" {
		q.add(`search LIKE `, "%"+escapeLike(vitrine.Fold(f.Query))+"%")
		q.where[len(q.where)-1] += ` ESCAPE '\'`
	}
	col, ok := sortColumns[f.Sort.Key()]
	if !ok {
		return nil, fmt.Errorf("list products: unknown sort %q", f.Sort)
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
			q.where = append(q.where, fmt.Sprintf(`(%s, id) %s (%s, %s)`, col, cmp, q.arg(v), q.arg(f.After.ID)))
		}
	}
	order := `id ` + dir
	if col != "" {
		order = col + ` ` + dir + `, ` + order
	}
	query := `SELECT ` + productColumns + ` FROM products WHERE ` + strings.Join(q.where, ` AND `) +
		` ORDER BY ` + order + ` LIMIT ` + q.arg(f.Limit)
	var out []*vitrine.Product
	err := db.d.read(ctx, tenant(tenantID), func(c conn) (err error) {
		out, err = collect(ctx, c, scanProduct, query, q.args...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list products: %w", err)
	}
	return out, nil
}

// UpdateProduct reads the product under a row lock (the single writer
// connection holds it on SQLite; FOR UPDATE on PostgreSQL), applies change
// and writes the result with the next version, in one transaction.
func (db *DB) UpdateProduct(ctx context.Context, tenantID, id string, change func(*vitrine.Product) error) (*vitrine.Product, error) {
	if !validIDs(tenantID, id) {
		return nil, vitrine.NotFound("Product")
	}
	var p *vitrine.Product
	err := db.write(ctx, tenant(tenantID), func(c conn) (err error) {
		p, err = scanProduct(c.QueryRow(ctx, `SELECT `+productColumns+` FROM products WHERE tenant_id = $1 AND id = $2`+db.d.forUpdate(), tenantID, id))
		if errors.Is(err, errNoRows) {
			return vitrine.NotFound("Product")
		}
		if err != nil {
			return err
		}
		if err := change(p); err != nil {
			return err
		}
		p.TenantID, p.ID = tenantID, id
		n, err := c.Exec(ctx, `UPDATE products SET sku = $1, sku_key = $2, name = $3, name_key = $4, description = $5, search = $6,
				price = $7, currency = $8, stock = $9, status = $10, version = version + 1, updated_at = $11, updated_by = $12
			WHERE tenant_id = $13 AND id = $14 AND version = $15`,
			p.SKU, vitrine.SKUKey(p.SKU), p.Name, vitrine.Fold(p.Name), p.Description, searchText(p),
			p.Price, p.Currency, p.Stock, string(p.Status), p.UpdatedAt, p.UpdatedBy,
			tenantID, id, p.Version)
		if err == nil && n != 1 {
			err = fmt.Errorf("product %s changed under its lock", id)
		}
		p.Version++
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
func (db *DB) DeleteProduct(ctx context.Context, tenantID, id string) error {
	if !validIDs(tenantID, id) {
		return vitrine.NotFound("Product")
	}
	var n int64
	err := db.write(ctx, tenant(tenantID), func(c conn) (err error) {
		n, err = c.Exec(ctx, `DELETE FROM products WHERE tenant_id = $1 AND id = $2`, tenantID, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete product: %w", err)
	}
	if n == 0 {
		return vitrine.NotFound("Product")
	}
	return nil
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

// escapeLike escapes LIKE's wildcards so that a query matches literally.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
