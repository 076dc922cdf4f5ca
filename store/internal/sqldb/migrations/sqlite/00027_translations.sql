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

-- +goose Down
DROP TABLE translations;
ALTER TABLE tenants DROP COLUMN locales;
