package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	segjson "github.com/segmentio/encoding/json"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/sanitize"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// A product's row holds its record whole in doc (productDoc, JSON), so
// that a read is one statement; the tables beside it (variants,
// product_tags, product_categories, product_attributes) index what lookups
// and filters need, written with the row in its transaction.
const productColumns = `id, tenant_id, handle, name, description, vendor, product_type, status, currency, doc, version, created_at, created_by, updated_at, updated_by`

// productDoc is what a product's doc column holds.
type productDoc struct {
	Tags       []string           `json:"tags,omitempty"`
	Options    []vitrine.Option   `json:"options,omitempty"`
	Variants   []*vitrine.Variant `json:"variants"`
	Media      []vitrine.Media    `json:"media,omitempty"`
	Categories []string           `json:"categories,omitempty"`
	Attributes map[string]any     `json:"attributes,omitempty"`
	SEO        vitrine.SEO        `json:"seo,omitzero"`
}

func docOf(p *vitrine.Product) (string, error) {
	d := productDoc{Tags: p.Tags, Options: p.Options, Variants: p.Variants, Media: p.Media, Attributes: p.Attributes, SEO: p.SEO}
	for _, c := range p.Categories {
		d.Categories = append(d.Categories, c.ID)
	}
	b, err := json.Marshal(d)
	return string(b), err
}

// categoryNames is the expression, beside productColumns, that reads the
// names of a product's categories: "id name" pairs, separated by a record
// separator (names hold no control character).
func (db *Store) categoryNames() string {
	if db.d.Name() == "postgres" {
		return `(SELECT string_agg(c.id::text || ' ' || c.name, chr(30)) FROM product_categories pc
			JOIN categories c ON c.tenant_id = pc.tenant_id AND c.id = pc.category_id
			WHERE pc.tenant_id = products.tenant_id AND pc.product_id = products.id)`
	}
	return `(SELECT group_concat(c.id || ' ' || c.name, char(30)) FROM product_categories pc
		JOIN categories c ON c.tenant_id = pc.tenant_id AND c.id = pc.category_id
		WHERE pc.tenant_id = products.tenant_id AND pc.product_id = products.id)`
}

// selectProduct is the SELECT list of a product read.
func (db *Store) selectProduct() string {
	return `SELECT ` + productColumns + `, ` + db.categoryNames()
}

// selectJoinedProduct is selectProduct's list with each column of
// products named by its table, for a read that joins another.
func (db *Store) selectJoinedProduct() string {
	cols := strings.Split(productColumns, ", ")
	for i, c := range cols {
		cols[i] = "products." + c
	}
	return `SELECT ` + strings.Join(cols, ", ") + `, ` + db.categoryNames()
}

func scanProduct(r sqldb.Row) (*vitrine.Product, error) { return scanProductAnd(r) }

// scanProductAnd scans selectProduct's columns, then more.
func scanProductAnd(r sqldb.Row, more ...any) (*vitrine.Product, error) {
	var (
		p           vitrine.Product
		status, doc string
		names       *string
	)
	if err := r.Scan(append([]any{&p.ID, &p.TenantID, &p.Handle, &p.Name, &p.Description, &p.Vendor, &p.ProductType, &status, &p.Currency, &doc,
		&p.Version, &p.CreatedAt, &p.CreatedBy, &p.UpdatedAt, &p.UpdatedBy, &names}, more...)...); err != nil {
		return nil, err
	}
	p.Status = vitrine.ProductStatus(status)
	// The stored record is read by segmentio's decoder, as the arguments
	// are (mcpserver/args): 2 to 2.5 times as fast as encoding/json's on a
	// record of 10 variants (BenchmarkDocDecode), the same values
	// (TestDocDecodersAgree).
	var d productDoc
	if err := segjson.Unmarshal([]byte(doc), &d); err != nil {
		return nil, fmt.Errorf("product %s: its record: %w", p.ID, err)
	}
	p.Tags, p.Options, p.Variants, p.Media, p.Attributes, p.SEO = d.Tags, d.Options, d.Variants, d.Media, d.Attributes, d.SEO
	for _, v := range p.Variants {
		if v.Options == nil {
			v.Options = map[string]string{}
		}
	}
	if len(d.Categories) > 0 {
		byID := map[string]string{}
		if names != nil {
			for _, pair := range strings.Split(*names, "\x1e") {
				if id, name, ok := strings.Cut(pair, " "); ok {
					byID[id] = name
				}
			}
		}
		for _, id := range d.Categories {
			if name, ok := byID[id]; ok {
				p.Categories = append(p.Categories, vitrine.ProductCategory{ID: id, Name: name})
			}
		}
	}
	p.Summarize()
	return &p, nil
}

// words returns what a text query matches of p: the words of its name,
// and of everything search covers (name, SKUs, description's text,
// barcodes, tags, vendor, type, option values).
func words(p *vitrine.Product) (name, all string) {
	name = strings.Join(vitrine.Words(p.Name), " ")
	var b strings.Builder
	b.WriteString(p.Name)
	for _, s := range []string{p.Vendor, p.ProductType} {
		b.WriteString(" " + s)
	}
	for _, t := range p.Tags {
		b.WriteString(" " + t)
	}
	for _, o := range p.Options {
		for _, v := range o.Values {
			b.WriteString(" " + v)
		}
	}
	for _, v := range p.Variants {
		b.WriteString(" " + v.SKU + " " + v.Barcode)
	}
	ws := append(vitrine.Words(b.String()), vitrine.Words(sanitize.Text(p.Description))...)
	seen := make(map[string]bool, len(ws))
	out := ws[:0]
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return name, strings.Join(out, " ")
}

// labelWords returns the words that label p, space-separated: of its
// vendor, type and tags (vitrine.Words of each), each once. A relevance
// page ranks a match in them (or in the name) after a match in the name
// alone, before a match elsewhere.
func labelWords(p *vitrine.Product) string {
	var b strings.Builder
	b.WriteString(p.Vendor + " " + p.ProductType)
	for _, t := range p.Tags {
		b.WriteString(" " + t)
	}
	ws := vitrine.Words(b.String())
	slices.Sort(ws)
	return strings.Join(slices.Compact(ws), " ")
}

// productConflict turns the violation of a product's uniqueness into the
// ConflictError that names what is taken.
func (db *Store) productConflict(ctx context.Context, err error, p *vitrine.Product) error {
	name, ok := db.d.Constraint(err)
	if !ok || p == nil {
		return err
	}
	switch name {
	case "products_handle":
		return vitrine.Conflict("handle", "A product with handle %q already exists in this company", p.Handle)
	case "variants_sku_key", "variants_pkey":
		if sku := db.takenSKU(ctx, p); sku != "" {
			return vitrine.Conflict("sku", "A product with SKU %q already exists in this company (SKUs are compared without case)", sku)
		}
		return vitrine.Conflict("sku", "One of the product's SKUs is taken by another product of this company")
	}
	return err
}

// takenSKU returns the first of p's SKUs that another product of its
// company has, after a write failed on one.
func (db *Store) takenSKU(ctx context.Context, p *vitrine.Product) string {
	var keys []string
	for _, v := range p.Variants {
		if v.SKU != "" {
			keys = append(keys, vitrine.SKUKey(v.SKU))
		}
	}
	if len(keys) == 0 {
		return ""
	}
	var taken string
	_ = db.d.Read(ctx, base.Tenant(p.TenantID), func(c sqldb.Conn) error {
		var q base.QueryBuilder
		q.Add(`tenant_id = `, p.TenantID)
		q.Add(`product_id <> `, p.ID)
		in := make([]string, len(keys))
		for i, k := range keys {
			in[i] = q.Arg(k)
		}
		rows, err := sqldb.Collect(ctx, c, func(r sqldb.Row) (string, error) {
			var k string
			return k, r.Scan(&k)
		}, `SELECT sku_key FROM variants WHERE `+strings.Join(q.Where, ` AND `)+` AND sku_key IN (`+strings.Join(in, ", ")+`)`, q.Args...)
		for _, v := range p.Variants {
			if v.SKU != "" && slices.Contains(rows, vitrine.SKUKey(v.SKU)) {
				taken = v.SKU
				break
			}
		}
		return err
	})
	return taken
}

func onSale(p *vitrine.Product) bool { return p.OnSale() }

// insertProduct stores a new product, its index rows and the movements of
// its first stock.
func insertProduct(ctx context.Context, c sqldb.Conn, ch vitrine.Change, p *vitrine.Product) error {
	nameWords, search := words(p)
	doc, err := docOf(p)
	if err != nil {
		return err
	}
	if err := sqldb.ExecLater(ctx, c, `INSERT INTO products (tenant_id, id, handle, sku, sku_key, name, name_key, description, vendor, vendor_key,
			product_type, type_key, name_words, search, price, price_max, on_sale, variant_count, currency, stock, status, doc,
			version, created_at, created_by, updated_at, updated_by, label_words)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28)`,
		p.TenantID, p.ID, p.Handle, p.SKU, vitrine.SKUKey(p.SKU), p.Name, vitrine.Fold(p.Name), p.Description, p.Vendor, vitrine.Fold(p.Vendor),
		p.ProductType, vitrine.Fold(p.ProductType), nameWords, search, p.Price, p.PriceMax, onSale(p), len(p.Variants), p.Currency, p.Stock, string(p.Status), doc,
		p.Version, p.CreatedAt, p.CreatedBy, p.UpdatedAt, p.UpdatedBy, labelWords(p)); err != nil {
		return err
	}
	for _, v := range p.Variants {
		if err := insertVariant(ctx, c, p, v); err != nil {
			return err
		}
		if err := recordStock(ctx, c, ch, p, v, v.Stock); err != nil {
			return err
		}
	}
	return writeIndexes(ctx, c, p, nil)
}

// writeIndexes writes the tag, category and attribute rows of p, replacing
// those of before (nil for a new product) where they differ.
func writeIndexes(ctx context.Context, c sqldb.Conn, p, before *vitrine.Product) error {
	if before != nil && !sameSources(p, before) {
		if err := sqldb.ExecLater(ctx, c, `DELETE FROM translated_products WHERE tenant_id = $1 AND product_id = $2`, p.TenantID, p.ID); err != nil {
			return err
		}
	}
	if before == nil || !slices.Equal(tagKeys(p), tagKeys(before)) {
		if before != nil {
			if err := sqldb.ExecLater(ctx, c, `DELETE FROM product_tags WHERE tenant_id = $1 AND product_id = $2`, p.TenantID, p.ID); err != nil {
				return err
			}
		}
		for _, t := range p.Tags {
			if err := sqldb.ExecLater(ctx, c, `INSERT INTO product_tags (tenant_id, tag_key, product_id, tag) VALUES ($1, $2, $3, $4)`,
				p.TenantID, vitrine.TagKey(t), p.ID, t); err != nil {
				return err
			}
		}
	}
	if before == nil || !slices.Equal(categoryIDs(p), categoryIDs(before)) {
		if before != nil {
			if err := sqldb.ExecLater(ctx, c, `DELETE FROM product_categories WHERE tenant_id = $1 AND product_id = $2`, p.TenantID, p.ID); err != nil {
				return err
			}
		}
		for i, id := range categoryIDs(p) {
			if err := sqldb.ExecLater(ctx, c, `INSERT INTO product_categories (tenant_id, category_id, product_id, position) VALUES ($1, $2, $3, $4)`,
				p.TenantID, id, p.ID, i+1); err != nil {
				return err
			}
		}
	}
	if before == nil || !slices.Equal(attributePairs(p), attributePairs(before)) {
		if before != nil {
			if err := sqldb.ExecLater(ctx, c, `DELETE FROM product_attributes WHERE tenant_id = $1 AND product_id = $2`, p.TenantID, p.ID); err != nil {
				return err
			}
		}
		for _, kv := range attributePairs(p) {
			k, v, _ := strings.Cut(kv, "\x00")
			if err := sqldb.ExecLater(ctx, c, `INSERT INTO product_attributes (tenant_id, key, value, product_id) VALUES ($1, $2, $3, $4)`,
				p.TenantID, k, v, p.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

func tagKeys(p *vitrine.Product) []string {
	out := make([]string, len(p.Tags))
	for i, t := range p.Tags {
		out[i] = vitrine.TagKey(t)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func categoryIDs(p *vitrine.Product) []string {
	out := make([]string, len(p.Categories))
	for i, c := range p.Categories {
		out[i] = c.ID
	}
	return out
}

func attributePairs(p *vitrine.Product) []string {
	out := make([]string, 0, len(p.Attributes))
	for k, v := range p.Attributes {
		out = append(out, k+"\x00"+vitrine.AttributeString(v))
	}
	slices.Sort(out)
	return out
}

// updateProduct writes p over the stored product if its version is still
// p.Version, reporting whether it was; then p holds the next version. The
// variants and index rows follow the difference from before, the product
// as it was read, and each variant's change of stock is recorded as a
// movement.
func updateProduct(ctx context.Context, c sqldb.Conn, ch vitrine.Change, p, before *vitrine.Product) (bool, error) {
	nameWords, search := words(p)
	doc, err := docOf(p)
	if err != nil {
		return false, err
	}
	n, err := c.Exec(ctx, `UPDATE products SET handle = $1, sku = $2, sku_key = $3, name = $4, name_key = $5, description = $6,
			vendor = $7, vendor_key = $8, product_type = $9, type_key = $10,
			name_words = $11 || translated_name_words, search = $12 || translated_words,
			price = $13, price_max = $14, on_sale = $15, variant_count = $16, currency = $17, stock = $18, status = $19, doc = $20,
			version = version + 1, updated_at = $21, updated_by = $22, label_words = $26 || translated_label_words
		WHERE tenant_id = $23 AND id = $24 AND version = $25`,
		p.Handle, p.SKU, vitrine.SKUKey(p.SKU), p.Name, vitrine.Fold(p.Name), p.Description,
		p.Vendor, vitrine.Fold(p.Vendor), p.ProductType, vitrine.Fold(p.ProductType), nameWords, search,
		p.Price, p.PriceMax, onSale(p), len(p.Variants), p.Currency, p.Stock, string(p.Status), doc,
		p.UpdatedAt, p.UpdatedBy, p.TenantID, p.ID, p.Version, labelWords(p))
	if err != nil || n != 1 {
		return false, err
	}
	p.Version++
	if err := writeVariants(ctx, c, ch, p, before); err != nil {
		return false, err
	}
	return true, writeIndexes(ctx, c, p, before)
}

// CreateProduct stores a new product, or finds the one its idempotency
// key made: the call's event is about the product it answers with.
func (db *Store) CreateProduct(ctx context.Context, ch vitrine.Change, p *vitrine.Product, key *vitrine.IdempotencyKey) (*vitrine.Product, error) {
	out := p
	err := db.write(ctx, base.Tenant(p.TenantID), ch, func() string { return out.ID }, func() changes { return products(out.ID) }, func(c sqldb.Conn) error {
		if key != nil {
			var hash, id string
			err := c.QueryRow(ctx, `SELECT request_hash, product_id FROM idempotency_keys
				WHERE tenant_id = $1 AND user_id = $2 AND key = $3 AND expires_at > $4`+db.d.ForUpdate(),
				p.TenantID, key.UserID, key.Key, p.CreatedAt).Scan(&hash, &id)
			switch {
			case err == nil && hash != key.RequestHash:
				return vitrine.Conflict("idempotency_key", "This idempotency_key was already used with other arguments; use a new key for a new product")
			case err == nil:
				found, err := scanProduct(c.QueryRow(ctx, db.selectProduct()+` FROM products WHERE tenant_id = $1 AND id = $2`, p.TenantID, id))
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
			if err := sqldb.ExecLater(ctx, c, `INSERT INTO idempotency_keys (tenant_id, user_id, key, request_hash, product_id, created_at, expires_at)
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
		if err := db.productConflict(ctx, err, p); vitrine.AsError(err) != nil {
			return nil, err
		}
		return nil, fmt.Errorf("create product: %w", err)
	}
	return out, nil
}

// ProductByID returns a product of the tenant, or NotFoundError.
func (db *Store) ProductByID(ctx context.Context, tenantID, id string) (*vitrine.Product, error) {
	if !base.ValidIDs(tenantID, id) {
		return nil, vitrine.NotFound("Product")
	}
	return db.product(ctx, tenantID, db.selectProduct()+` FROM products WHERE tenant_id = $1 AND id = $2`, id)
}

// ProductBySKU returns the tenant's product with a variant of that SKU,
// compared without case, or NotFoundError.
func (db *Store) ProductBySKU(ctx context.Context, tenantID, sku string) (*vitrine.Product, error) {
	if !base.ValidIDs(tenantID) {
		return nil, vitrine.NotFound("Product")
	}
	return db.product(ctx, tenantID, db.selectProduct()+` FROM products WHERE tenant_id = $1 AND id =
		(SELECT product_id FROM variants WHERE tenant_id = $1 AND sku_key = $2)`, vitrine.SKUKey(sku))
}

// ProductByVariant returns the tenant's product with that variant, or
// NotFoundError.
func (db *Store) ProductByVariant(ctx context.Context, tenantID, variantID string) (*vitrine.Product, error) {
	if !base.ValidIDs(tenantID, variantID) {
		return nil, vitrine.NotFound("Variant")
	}
	p, err := db.product(ctx, tenantID, db.selectProduct()+` FROM products WHERE tenant_id = $1 AND id =
		(SELECT product_id FROM variants WHERE tenant_id = $1 AND id = $2)`, variantID)
	if vitrine.AsError(err) != nil {
		return nil, vitrine.NotFound("Variant")
	}
	return p, err
}

func (db *Store) product(ctx context.Context, tenantID, query, arg string) (*vitrine.Product, error) {
	var p *vitrine.Product
	err := db.d.Read(ctx, base.Tenant(tenantID), func(c sqldb.Conn) (err error) {
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

// UpdateProduct reads the product under a row lock (the single writer
// connection holds it on SQLite; FOR UPDATE on PostgreSQL), applies change
// and writes the result with the next version, in one transaction.
func (db *Store) UpdateProduct(ctx context.Context, ch vitrine.Change, tenantID, id string, change func(*vitrine.Product) error) (*vitrine.Product, error) {
	if !base.ValidIDs(tenantID, id) {
		return nil, vitrine.NotFound("Product")
	}
	var p *vitrine.Product
	err := db.write(ctx, base.Tenant(tenantID), ch, base.Is(id), func() changes { return products(id) }, func(c sqldb.Conn) error {
		before, err := scanProduct(c.QueryRow(ctx, db.selectProduct()+` FROM products WHERE tenant_id = $1 AND id = $2`+db.d.ForUpdate(), tenantID, id))
		if errors.Is(err, sqldb.ErrNoRows) {
			return vitrine.NotFound("Product")
		}
		if err != nil {
			return err
		}
		p = before.Clone()
		if err := change(p); err != nil {
			return err
		}
		p.TenantID, p.ID, p.Version = tenantID, id, before.Version
		written, err := updateProduct(ctx, c, ch, p, before)
		if err == nil && !written {
			err = fmt.Errorf("product %s changed under its lock", id)
		}
		return err
	})
	if err != nil {
		if err := db.productConflict(ctx, err, p); vitrine.AsError(err) != nil {
			return nil, err
		}
		return nil, fmt.Errorf("update product: %w", err)
	}
	return p, nil
}

// DeleteProduct removes a product of the tenant, or answers NotFoundError.
// Its stock movements stay, as history; its variants and index rows go
// with it.
func (db *Store) DeleteProduct(ctx context.Context, ch vitrine.Change, tenantID, id string) error {
	if !base.ValidIDs(tenantID, id) {
		return vitrine.NotFound("Product")
	}
	var n int64
	err := db.write(ctx, base.Tenant(tenantID), ch, base.Is(id), func() changes { return products(id) }, func(c sqldb.Conn) (err error) {
		n, err = c.Exec(ctx, `DELETE FROM products WHERE tenant_id = $1 AND id = $2`, tenantID, id)
		if err == nil && n == 0 {
			return vitrine.NotFound("Product")
		}
		if err != nil {
			return err
		}
		return deleteTranslations(ctx, c, tenantID, vitrine.TranslateProduct, id)
	})
	if err != nil && vitrine.AsError(err) == nil {
		return fmt.Errorf("delete product: %w", err)
	}
	return err
}
