-- +goose Up
-- Issue 34: a company's shop window, one row per company that ever saved
-- it (none: closed, as vitrine.NewShop says). Options is the option-to-feed
-- attribute mapping, as JSON. A domain is served by one company alone.
CREATE TABLE shops (
    tenant_id   TEXT NOT NULL PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    open        BOOLEAN NOT NULL DEFAULT FALSE,
    product_url TEXT NOT NULL DEFAULT '',
    country     TEXT NOT NULL DEFAULT '',
    stock       TEXT NOT NULL DEFAULT 'availability' CONSTRAINT shops_stock CHECK (stock IN ('availability', 'exact')),
    domain      TEXT NOT NULL DEFAULT '',
    options     TEXT NOT NULL DEFAULT '{}',
    version     INTEGER NOT NULL,
    updated_at  TIMESTAMP NOT NULL,
    updated_by  TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;
CREATE UNIQUE INDEX shops_domain_key ON shops (domain) WHERE domain <> '';

-- An attribute is shown in the window and its feeds only when its
-- company says so.
ALTER TABLE attributes ADD COLUMN public BOOLEAN NOT NULL DEFAULT FALSE;

-- The company's catalog sequence: every transaction that writes what its
-- window shows (products, variants, stock, categories, attribute
-- definitions, the window's settings) adds one, as its last statement.
-- Feeds are tagged by it (CatalogStamp); the facet index follows changes
-- by it.
ALTER TABLE tenants ADD COLUMN catalog_seq INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE tenants DROP COLUMN catalog_seq;
ALTER TABLE attributes DROP COLUMN public;
DROP TABLE shops;
