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
ALTER TABLE tenants ADD COLUMN locales TEXT NOT NULL DEFAULT 'pt-BR';

CREATE TABLE translations (
    tenant_id   TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    resource    TEXT NOT NULL CONSTRAINT translations_resource CHECK (resource IN ('product', 'category', 'attribute')),
    resource_id TEXT NOT NULL,
    locale      TEXT NOT NULL,
    field       TEXT NOT NULL,
    value       TEXT NOT NULL,
    digest      TEXT NOT NULL,
    updated_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, resource, resource_id, locale, field)
) WITHOUT ROWID;
-- A translated handle is unique per company, kind and locale.
CREATE UNIQUE INDEX translations_handle_key ON translations (tenant_id, resource, locale, value) WHERE field = 'handle';
-- list_products {untranslated}: a locale's translations of a field.
CREATE INDEX translations_by_locale ON translations (tenant_id, resource, locale, field, resource_id, digest);

-- list_products {untranslated}: the products whose every translatable
-- field has a translation in a locale, none outdated. The store keeps it
-- with each write of a product's text or of its translations; a product
-- without a row in a locale is untranslated there.
CREATE TABLE translated_products (
    tenant_id  TEXT NOT NULL,
    locale     TEXT NOT NULL,
    product_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, locale, product_id),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX translated_products_by_product ON translated_products (tenant_id, product_id);

-- The words of a product's translations, in every locale, which the store
-- adds to its name_words and search (vitrine.Words, each after a space):
-- a text query finds a product by its words in any of its locales.
ALTER TABLE products ADD COLUMN translated_name_words TEXT NOT NULL DEFAULT '';
ALTER TABLE products ADD COLUMN translated_words TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE products DROP COLUMN translated_words;
ALTER TABLE products DROP COLUMN translated_name_words;
DROP TABLE translated_products;
DROP TABLE translations;
ALTER TABLE tenants DROP COLUMN locales;
