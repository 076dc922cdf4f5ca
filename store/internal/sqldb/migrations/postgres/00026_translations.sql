-- +goose Up
-- Issue 47: a company's locales (BCP 47 tags separated by spaces, the
-- first its default; every company so far writes its catalog in pt-BR),
-- and the translations of its products', categories' and attribute
-- definitions' text fields into its other locales. A translation keeps
-- the digest (vitrine.SourceDigest: MD5 in hex) of the source it
-- translated, so that it reads outdated once the source changes.
-- resource_id is a product's or category's id, or an attribute's key;
-- field is vitrine's field key (name, description, seo.title, an
-- option's name or value, ...). The store deletes a resource's
-- translations with it.
ALTER TABLE tenants ADD COLUMN locales text NOT NULL DEFAULT 'pt-BR';

CREATE TABLE translations (
    tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    resource    text NOT NULL CONSTRAINT translations_resource CHECK (resource IN ('product', 'category', 'attribute')),
    resource_id text NOT NULL,
    locale      text NOT NULL,
    field       text NOT NULL,
    value       text NOT NULL,
    digest      text NOT NULL,
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, resource, resource_id, locale, field)
);
-- A translated handle is unique per company, kind and locale.
CREATE UNIQUE INDEX translations_handle_key ON translations (tenant_id, resource, locale, value) WHERE field = 'handle';
-- list_products {untranslated}: a locale's translations of a field.
CREATE INDEX translations_by_locale ON translations (tenant_id, resource, locale, field, resource_id, digest);

ALTER TABLE translations ENABLE ROW LEVEL SECURITY;
ALTER TABLE translations FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON translations USING (app_all_tenants() OR tenant_id = app_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON translations TO vitrine_app;

-- list_products {untranslated}: the products whose every translatable
-- field has a translation in a locale, none outdated. The store keeps it
-- with each write of a product's text or of its translations; a product
-- without a row in a locale is untranslated there.
CREATE TABLE translated_products (
    tenant_id  uuid NOT NULL,
    locale     text NOT NULL,
    product_id uuid NOT NULL,
    PRIMARY KEY (tenant_id, locale, product_id),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX translated_products_by_product ON translated_products (tenant_id, product_id);

ALTER TABLE translated_products ENABLE ROW LEVEL SECURITY;
ALTER TABLE translated_products FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON translated_products USING (app_all_tenants() OR tenant_id = app_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON translated_products TO vitrine_app;

-- The words of a product's translations, in every locale, which the store
-- adds to its name_words and search (vitrine.Words, each after a space):
-- a text query finds a product by its words in any of its locales.
ALTER TABLE products ADD COLUMN translated_name_words text NOT NULL DEFAULT '';
ALTER TABLE products ADD COLUMN translated_words text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE products DROP COLUMN translated_words;
ALTER TABLE products DROP COLUMN translated_name_words;
DROP TABLE translated_products;
DROP TABLE translations;
ALTER TABLE tenants DROP COLUMN locales;
