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

-- +goose Down
DROP TABLE translations;
ALTER TABLE tenants DROP COLUMN locales;
