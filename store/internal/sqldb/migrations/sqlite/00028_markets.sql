-- +goose Up
-- Issue 47: a company's markets, each a publication of its catalog to some
-- countries, in a currency and locales, at prices converted by an exact
-- exchange rate and a rounding rule, of an assortment (include: JSON
-- {category_ids, tags}; none: every active product), with a window of its
-- own. countries and locales are JSON arrays. version grows with every
-- change of the market or of its prices: its window's stamp. A domain is
-- served by one market alone.
CREATE TABLE markets (
    tenant_id     TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id            TEXT NOT NULL,
    handle        TEXT NOT NULL,
    name          TEXT NOT NULL,
    countries     TEXT NOT NULL DEFAULT '[]',
    currency      TEXT NOT NULL,
    locales       TEXT NOT NULL DEFAULT '[]',
    exchange_rate TEXT NOT NULL,
    rounding      TEXT NOT NULL CONSTRAINT markets_rounding CHECK (rounding IN ('0.99', '0.90', '1.00', 'none')),
    include       TEXT NOT NULL DEFAULT '{}',
    domain        TEXT NOT NULL DEFAULT '',
    version       INTEGER NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP NOT NULL,
    updated_by    TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX markets_handle ON markets (tenant_id, handle);
CREATE UNIQUE INDEX markets_domain_key ON markets (domain) WHERE domain <> '';

-- A variant's explicit price in a market, in minor units of the market's
-- currency; gone with the variant or the market.
CREATE TABLE market_prices (
    tenant_id        TEXT NOT NULL,
    market_id        TEXT NOT NULL,
    variant_id       TEXT NOT NULL,
    price            INTEGER NOT NULL CHECK (price >= 0),
    compare_at_price INTEGER CHECK (compare_at_price >= 0),
    PRIMARY KEY (tenant_id, market_id, variant_id),
    FOREIGN KEY (tenant_id, market_id) REFERENCES markets (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, variant_id) REFERENCES variants (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX market_prices_by_variant ON market_prices (tenant_id, variant_id);

-- +goose Down
DROP TABLE market_prices;
DROP TABLE markets;
