-- +goose Up
-- The catalog of issue 25: a product has variants (what is sold and
-- stocked), options, media, tags, a vendor and a type, categories,
-- attributes, SEO, and may be a draft. The product's row keeps its whole
-- record in doc (JSON: what get_product reads in one statement) and the
-- summary of its variants in columns (sku: the first variant's; price: the
-- lowest; price_max; stock: the total), which list pages read. The tables
-- beside it are indexes for lookups and filters, kept in step by the
-- store in the product's own transaction.
ALTER TABLE products DROP CONSTRAINT products_sku_key;
ALTER TABLE products DROP CONSTRAINT products_status_check;
ALTER TABLE products ADD CONSTRAINT products_status CHECK (status IN ('draft', 'active', 'archived'));
ALTER TABLE products
    ADD COLUMN handle       text NOT NULL DEFAULT '',
    ADD COLUMN vendor       text NOT NULL DEFAULT '',
    ADD COLUMN vendor_key   text COLLATE "C" NOT NULL DEFAULT '',
    ADD COLUMN product_type text NOT NULL DEFAULT '',
    ADD COLUMN type_key     text COLLATE "C" NOT NULL DEFAULT '',
    ADD COLUMN price_max    bigint NOT NULL DEFAULT 0,
    ADD COLUMN on_sale      boolean NOT NULL DEFAULT false,
    ADD COLUMN variant_count integer NOT NULL DEFAULT 1,
    ADD COLUMN doc          text NOT NULL DEFAULT '';

-- Every variant of every product: its SKU (unique in the company when
-- given, without regard to case), its option values with their option's name (and its folded name),
-- its price and stock.
CREATE TABLE variants (
    tenant_id        uuid NOT NULL,
    id               uuid NOT NULL,
    product_id       uuid NOT NULL,
    position         integer NOT NULL,
    sku_key          text,
    opt1_key         text NOT NULL DEFAULT '',
    opt1_name        text NOT NULL DEFAULT '',
    opt1             text NOT NULL DEFAULT '',
    opt2_key         text NOT NULL DEFAULT '',
    opt2_name        text NOT NULL DEFAULT '',
    opt2             text NOT NULL DEFAULT '',
    opt3_key         text NOT NULL DEFAULT '',
    opt3_name        text NOT NULL DEFAULT '',
    opt3             text NOT NULL DEFAULT '',
    price            bigint NOT NULL CONSTRAINT variants_price_nonnegative CHECK (price >= 0),
    compare_at_price bigint,
    stock            bigint NOT NULL CONSTRAINT variants_stock_nonnegative CHECK (stock >= 0),
    PRIMARY KEY (tenant_id, id),
    CONSTRAINT variants_sku_key UNIQUE (tenant_id, sku_key),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX variants_by_product ON variants (tenant_id, product_id);

-- Tags, by folded tag.
CREATE TABLE product_tags (
    tenant_id  uuid NOT NULL,
    tag_key    text COLLATE "C" NOT NULL,
    product_id uuid NOT NULL,
    tag        text NOT NULL,
    PRIMARY KEY (tenant_id, tag_key, product_id),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX product_tags_by_product ON product_tags (tenant_id, product_id);

-- A company's tree of categories.
CREATE TABLE categories (
    tenant_id  uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id         uuid NOT NULL,
    parent_id  uuid,
    name       text NOT NULL,
    handle     text NOT NULL,
    position   integer NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id),
    CONSTRAINT categories_handle UNIQUE (tenant_id, handle),
    FOREIGN KEY (tenant_id, parent_id) REFERENCES categories (tenant_id, id)
);
CREATE INDEX categories_by_parent ON categories (tenant_id, parent_id, position);

CREATE TABLE product_categories (
    tenant_id   uuid NOT NULL,
    category_id uuid NOT NULL,
    product_id  uuid NOT NULL,
    position    integer NOT NULL,
    PRIMARY KEY (tenant_id, category_id, product_id),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, category_id) REFERENCES categories (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX product_categories_by_product ON product_categories (tenant_id, product_id);

-- A company's definitions of its own product fields.
CREATE TABLE attributes (
    tenant_id  uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    key        text NOT NULL,
    name       text NOT NULL,
    type       text NOT NULL CHECK (type IN ('text', 'number', 'boolean', 'enum')),
    enum_values text NOT NULL DEFAULT '[]',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, key)
);

-- The attribute values of products, in their canonical text.
CREATE TABLE product_attributes (
    tenant_id  uuid NOT NULL,
    key        text COLLATE "C" NOT NULL,
    value      text COLLATE "C" NOT NULL,
    product_id uuid NOT NULL,
    PRIMARY KEY (tenant_id, key, value, product_id),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, key) REFERENCES attributes (tenant_id, key) ON DELETE CASCADE
);
CREATE INDEX product_attributes_by_product ON product_attributes (tenant_id, product_id);

ALTER TABLE stock_movements ADD COLUMN variant_id uuid;

CREATE INDEX products_by_vendor ON products (tenant_id, vendor_key, id);
CREATE INDEX products_by_type ON products (tenant_id, type_key, id);

ALTER TABLE variants ENABLE ROW LEVEL SECURITY;
ALTER TABLE variants FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON variants USING (app_all_tenants() OR tenant_id = app_tenant());
ALTER TABLE product_tags ENABLE ROW LEVEL SECURITY;
ALTER TABLE product_tags FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON product_tags USING (app_all_tenants() OR tenant_id = app_tenant());
ALTER TABLE categories ENABLE ROW LEVEL SECURITY;
ALTER TABLE categories FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON categories USING (app_all_tenants() OR tenant_id = app_tenant());
ALTER TABLE product_categories ENABLE ROW LEVEL SECURITY;
ALTER TABLE product_categories FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON product_categories USING (app_all_tenants() OR tenant_id = app_tenant());
ALTER TABLE attributes ENABLE ROW LEVEL SECURITY;
ALTER TABLE attributes FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON attributes USING (app_all_tenants() OR tenant_id = app_tenant());
ALTER TABLE product_attributes ENABLE ROW LEVEL SECURITY;
ALTER TABLE product_attributes FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON product_attributes USING (app_all_tenants() OR tenant_id = app_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON variants, product_tags, categories, product_categories, attributes, product_attributes TO vitrine_app;

-- Every product so far becomes one product with one variant, which keeps
-- the product's id; its handle is made from its SKU (the last twelve
-- digits of its id added where two SKUs make one handle).
SET LOCAL app.all_tenants = 'on';
UPDATE products p SET handle = h.handle, price_max = p.price, variant_count = 1,
    doc = json_build_object('variants', json_build_array(json_build_object(
        'id', p.id, 'sku', p.sku, 'options', json_build_object(), 'price', p.price, 'stock', p.stock,
        'inventory_policy', 'deny', 'requires_shipping', true, 'taxable', true, 'position', 1)))::text
FROM (
    SELECT tenant_id, id, CASE WHEN count(*) OVER (PARTITION BY tenant_id, slug) > 1
        THEN slug || '-' || right(id::text, 12) ELSE slug END AS handle
    FROM (SELECT tenant_id, id, trim(BOTH '-' FROM regexp_replace(lower(sku), '[^a-z0-9]+', '-', 'g')) AS slug FROM products) s
) h
WHERE p.tenant_id = h.tenant_id AND p.id = h.id;
INSERT INTO variants (tenant_id, id, product_id, position, sku_key, price, stock)
SELECT tenant_id, id, id, 1, sku_key, price, stock FROM products;
UPDATE stock_movements SET variant_id = product_id;
ALTER TABLE products ADD CONSTRAINT products_handle UNIQUE (tenant_id, handle);

-- +goose Down
ALTER TABLE products DROP CONSTRAINT products_handle;
ALTER TABLE stock_movements DROP COLUMN variant_id;
DROP TABLE product_attributes;
DROP TABLE attributes;
DROP TABLE product_categories;
DROP TABLE categories;
DROP TABLE product_tags;
DROP TABLE variants;
DROP INDEX products_by_vendor;
DROP INDEX products_by_type;
ALTER TABLE products DROP COLUMN handle, DROP COLUMN vendor, DROP COLUMN vendor_key, DROP COLUMN product_type,
    DROP COLUMN type_key, DROP COLUMN price_max, DROP COLUMN on_sale, DROP COLUMN variant_count, DROP COLUMN doc;
ALTER TABLE products DROP CONSTRAINT products_status;
ALTER TABLE products ADD CONSTRAINT products_status_check CHECK (status IN ('active', 'archived'));
ALTER TABLE products ADD CONSTRAINT products_sku_key UNIQUE (tenant_id, sku_key);
