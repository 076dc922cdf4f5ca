-- +goose Up
-- Issue 47: a country is in one market of a company at most, held by the
-- database itself: two save_market calls at once cannot both take one
-- country (the check in the write's transaction could not see the other's
-- row). markets.countries stays what is read; this table is its index.
CREATE TABLE market_countries (
    tenant_id TEXT NOT NULL,
    country   TEXT NOT NULL,
    market_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, country),
    FOREIGN KEY (tenant_id, market_id) REFERENCES markets (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX market_countries_by_market ON market_countries (tenant_id, market_id);
INSERT INTO market_countries (tenant_id, country, market_id)
    SELECT m.tenant_id, c.value, m.id FROM markets m, json_each(m.countries) c WHERE true
    ON CONFLICT DO NOTHING;

-- +goose Down
DROP TABLE market_countries;
