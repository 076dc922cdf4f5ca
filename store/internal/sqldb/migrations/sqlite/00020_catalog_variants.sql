-- +goose Up
-- The catalog of issue 25: a product has variants (what is sold and
-- stocked), options, media, tags, a vendor and a type, categories,
-- attributes, SEO, and may be a draft. The product's row keeps its whole
-- record in doc (JSON: what get_product reads in one statement) and the
-- summary of its variants in columns (sku: the first variant's; price: the
-- lowest; price_max; stock: the total), which list pages read. The tables
-- beside it are indexes for lookups and filters, kept in step by the
-- store in the product's own transaction.
--
-- SQLite cannot drop a constraint: the products table is made again
-- without the SKU's uniqueness (now the variants'), with the draft status,
-- keeping every row's rowid, which the full-text index refers to.
DROP TRIGGER products_fts_insert;
DROP TRIGGER products_fts_delete;
DROP TRIGGER products_fts_update;
CREATE TABLE products_v2 (
    tenant_id     TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id            TEXT NOT NULL,
    handle        TEXT NOT NULL,
    sku           TEXT NOT NULL,
    sku_key       TEXT NOT NULL,
    name          TEXT NOT NULL,
    name_key      TEXT NOT NULL,
    description   TEXT NOT NULL DEFAULT '',
    vendor        TEXT NOT NULL DEFAULT '',
    vendor_key    TEXT NOT NULL DEFAULT '',
    product_type  TEXT NOT NULL DEFAULT '',
    type_key      TEXT NOT NULL DEFAULT '',
    -- The words a text query matches (vitrine.Words), separated by spaces:
    -- of the name alone, and of everything search covers.
    name_words    TEXT NOT NULL DEFAULT '',
    search        TEXT NOT NULL DEFAULT '',
    price         INTEGER NOT NULL CONSTRAINT products_price_nonnegative CHECK (price >= 0),
    price_max     INTEGER NOT NULL DEFAULT 0,
    on_sale       INTEGER NOT NULL DEFAULT 0,
    variant_count INTEGER NOT NULL DEFAULT 1,
    currency      TEXT NOT NULL,
    stock         INTEGER NOT NULL CONSTRAINT products_stock_nonnegative CHECK (stock >= 0),
    status        TEXT NOT NULL CONSTRAINT products_status CHECK (status IN ('draft', 'active', 'archived')),
    doc           TEXT NOT NULL DEFAULT '',
    version       INTEGER NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    created_by    TEXT NOT NULL,
    updated_at    TIMESTAMP NOT NULL,
    updated_by    TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
-- Every product so far becomes one product with one variant, which keeps
-- the product's id; its handle is made from its SKU (the last twelve
-- digits of its id added where two SKUs make one handle).
INSERT INTO products_v2 (rowid, tenant_id, id, handle, sku, sku_key, name, name_key, description, name_words, search,
        price, price_max, currency, stock, status, doc, version, created_at, created_by, updated_at, updated_by)
SELECT rowid, tenant_id, id,
    CASE WHEN count(*) OVER (PARTITION BY tenant_id, slug) > 1 THEN slug || '-' || substr(id, 25, 12) ELSE slug END,
    sku, sku_key, name, name_key, description, name_words, search, price, price, currency, stock, status,
    json_object('variants', json_array(json_object('id', id, 'sku', sku, 'options', json_object(), 'price', price,
        'stock', stock, 'inventory_policy', 'deny', 'requires_shipping', json('true'), 'taxable', json('true'), 'position', 1))),
    version, created_at, created_by, updated_at, updated_by
FROM (SELECT *, rowid,
    replace(replace(replace(replace(replace(replace(lower(sku), '.', '-'), '_', '-'), '/', '-'), '--', '-'), '--', '-'), '--', '-') AS slug
    FROM products);
DROP TABLE products_fts;
DROP TABLE products;
ALTER TABLE products_v2 RENAME TO products;
CREATE UNIQUE INDEX products_handle ON products (tenant_id, handle);
CREATE INDEX products_by_name ON products (tenant_id, name_key, id);
CREATE INDEX products_by_price ON products (tenant_id, price, id);
CREATE INDEX products_by_updated ON products (tenant_id, updated_at, id);
CREATE INDEX products_by_vendor ON products (tenant_id, vendor_key, id);
CREATE INDEX products_by_type ON products (tenant_id, type_key, id);

CREATE VIRTUAL TABLE products_fts USING fts5(
    name_words, search, content = 'products', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 0'
);
INSERT INTO products_fts (products_fts) VALUES ('rebuild');
-- +goose StatementBegin
CREATE TRIGGER products_fts_insert AFTER INSERT ON products BEGIN
    INSERT INTO products_fts (rowid, name_words, search) VALUES (new.rowid, new.name_words, new.search);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER products_fts_delete AFTER DELETE ON products BEGIN
    INSERT INTO products_fts (products_fts, rowid, name_words, search) VALUES ('delete', old.rowid, old.name_words, old.search);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER products_fts_update AFTER UPDATE OF name_words, search ON products BEGIN
    INSERT INTO products_fts (products_fts, rowid, name_words, search) VALUES ('delete', old.rowid, old.name_words, old.search);
    INSERT INTO products_fts (rowid, name_words, search) VALUES (new.rowid, new.name_words, new.search);
END;
-- +goose StatementEnd

-- Every variant of every product: its SKU (unique in the company when
-- given, without regard to case), its option values with their option's name (and its folded name),
-- its price and stock.
CREATE TABLE variants (
    tenant_id        TEXT NOT NULL,
    id               TEXT NOT NULL,
    product_id       TEXT NOT NULL,
    position         INTEGER NOT NULL,
    sku_key          TEXT,
    opt1_key         TEXT NOT NULL DEFAULT '',
    opt1_name        TEXT NOT NULL DEFAULT '',
    opt1             TEXT NOT NULL DEFAULT '',
    opt2_key         TEXT NOT NULL DEFAULT '',
    opt2_name        TEXT NOT NULL DEFAULT '',
    opt2             TEXT NOT NULL DEFAULT '',
    opt3_key         TEXT NOT NULL DEFAULT '',
    opt3_name        TEXT NOT NULL DEFAULT '',
    opt3             TEXT NOT NULL DEFAULT '',
    price            INTEGER NOT NULL CONSTRAINT variants_price_nonnegative CHECK (price >= 0),
    compare_at_price INTEGER,
    stock            INTEGER NOT NULL CONSTRAINT variants_stock_nonnegative CHECK (stock >= 0),
    PRIMARY KEY (tenant_id, id),
    CONSTRAINT variants_sku_key UNIQUE (tenant_id, sku_key),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX variants_by_product ON variants (tenant_id, product_id);
INSERT INTO variants (tenant_id, id, product_id, position, sku_key, price, stock)
SELECT tenant_id, id, id, 1, sku_key, price, stock FROM products;

-- Tags, by folded tag.
CREATE TABLE product_tags (
    tenant_id  TEXT NOT NULL,
    tag_key    TEXT NOT NULL,
    product_id TEXT NOT NULL,
    tag        TEXT NOT NULL,
    PRIMARY KEY (tenant_id, tag_key, product_id),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX product_tags_by_product ON product_tags (tenant_id, product_id);

-- A company's tree of categories.
CREATE TABLE categories (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id         TEXT NOT NULL,
    parent_id  TEXT,
    name       TEXT NOT NULL,
    handle     TEXT NOT NULL,
    position   INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, id),
    CONSTRAINT categories_handle UNIQUE (tenant_id, handle),
    FOREIGN KEY (tenant_id, parent_id) REFERENCES categories (tenant_id, id)
) WITHOUT ROWID;
CREATE INDEX categories_by_parent ON categories (tenant_id, parent_id, position);

CREATE TABLE product_categories (
    tenant_id   TEXT NOT NULL,
    category_id TEXT NOT NULL,
    product_id  TEXT NOT NULL,
    position    INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, category_id, product_id),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, category_id) REFERENCES categories (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX product_categories_by_product ON product_categories (tenant_id, product_id);

-- A company's definitions of its own product fields.
CREATE TABLE attributes (
    tenant_id   TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    key         TEXT NOT NULL,
    name        TEXT NOT NULL,
    type        TEXT NOT NULL CHECK (type IN ('text', 'number', 'boolean', 'enum')),
    enum_values TEXT NOT NULL DEFAULT '[]',
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, key)
) WITHOUT ROWID;

-- The attribute values of products, in their canonical text.
CREATE TABLE product_attributes (
    tenant_id  TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    product_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, key, value, product_id),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, key) REFERENCES attributes (tenant_id, key) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX product_attributes_by_product ON product_attributes (tenant_id, product_id);

ALTER TABLE stock_movements ADD COLUMN variant_id TEXT;
UPDATE stock_movements SET variant_id = product_id;

-- +goose Down
SELECT 'the catalog of issue 25 cannot be undone on SQLite: restore the backup made before the upgrade';
