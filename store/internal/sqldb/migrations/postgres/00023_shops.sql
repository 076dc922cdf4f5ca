-- +goose Up
-- Issue 34: a company's shop window, one row per company that ever saved
-- it (none: closed, as vitrine.NewShop says). Options is the option-to-feed
-- attribute mapping, as JSON. A domain is served by one company alone.
CREATE TABLE shops (
    tenant_id   uuid NOT NULL PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    open        boolean NOT NULL DEFAULT false,
    product_url text NOT NULL DEFAULT '',
    country     text NOT NULL DEFAULT '',
    stock       text NOT NULL DEFAULT 'availability' CONSTRAINT shops_stock CHECK (stock IN ('availability', 'exact')),
    domain      text NOT NULL DEFAULT '',
    options     text NOT NULL DEFAULT '{}',
    version     bigint NOT NULL,
    updated_at  timestamptz NOT NULL,
    updated_by  text NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX shops_domain_key ON shops (domain) WHERE domain <> '';

ALTER TABLE shops ENABLE ROW LEVEL SECURITY;
ALTER TABLE shops FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON shops USING (app_all_tenants() OR tenant_id = app_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON shops TO vitrine_app;

-- An attribute is shown in the window and its feeds only when its
-- company says so.
ALTER TABLE attributes ADD COLUMN public boolean NOT NULL DEFAULT false;

-- The company's catalog sequence: every transaction that writes what its
-- window shows (products, variants, stock, categories, attribute
-- definitions, the window's settings) adds one, as its last statement, so
-- that sequences commit in their order. Feeds are tagged by it
-- (CatalogStamp); the facet index follows changes by it.
ALTER TABLE tenants ADD COLUMN catalog_seq bigint NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE tenants DROP COLUMN catalog_seq;
ALTER TABLE attributes DROP COLUMN public;
DROP TABLE shops;
