-- +goose Up
-- Issue 47: a company's markets, each a publication of its catalog to some
-- countries, in a currency and locales, at prices converted by an exact
-- exchange rate and a rounding rule, of an assortment (include: JSON
-- {category_ids, tags}; none: every active product), with a window of its
-- own. countries and locales are JSON arrays. version grows with every
-- change of the market or of its prices: its window's stamp. A domain is
-- served by one market alone.
CREATE TABLE markets (
    tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id            uuid NOT NULL,
    handle        text NOT NULL,
    name          text NOT NULL,
    countries     text NOT NULL DEFAULT '[]',
    currency      text NOT NULL,
    locales       text NOT NULL DEFAULT '[]',
    exchange_rate text NOT NULL,
    rounding      text NOT NULL CONSTRAINT markets_rounding CHECK (rounding IN ('0.99', '0.90', '1.00', 'none')),
    include       text NOT NULL DEFAULT '{}',
    domain        text NOT NULL DEFAULT '',
    version       bigint NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    updated_by    text NOT NULL DEFAULT '',
    PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX markets_handle ON markets (tenant_id, handle);
CREATE UNIQUE INDEX markets_domain_key ON markets (domain) WHERE domain <> '';

-- A variant's explicit price in a market, in minor units of the market's
-- currency; gone with the variant or the market.
CREATE TABLE market_prices (
    tenant_id        uuid NOT NULL,
    market_id        uuid NOT NULL,
    variant_id       uuid NOT NULL,
    price            bigint NOT NULL CHECK (price >= 0),
    compare_at_price bigint CHECK (compare_at_price >= 0),
    PRIMARY KEY (tenant_id, market_id, variant_id),
    FOREIGN KEY (tenant_id, market_id) REFERENCES markets (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, variant_id) REFERENCES variants (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX market_prices_by_variant ON market_prices (tenant_id, variant_id);

ALTER TABLE markets ENABLE ROW LEVEL SECURITY;
ALTER TABLE markets FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON markets USING (app_all_tenants() OR tenant_id = app_tenant());
ALTER TABLE market_prices ENABLE ROW LEVEL SECURITY;
ALTER TABLE market_prices FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON market_prices USING (app_all_tenants() OR tenant_id = app_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON markets, market_prices TO vitrine_app;

-- +goose Down
DROP TABLE market_prices;
DROP TABLE markets;
