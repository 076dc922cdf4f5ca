-- +goose Up
-- Issue 47: a country is in one market of a company at most, held by the
-- database itself: two save_market calls at once cannot both take one
-- country (the check in the write's transaction could not see the other's
-- row). markets.countries stays what is read; this table is its index.
CREATE TABLE market_countries (
    tenant_id uuid NOT NULL,
    country   text NOT NULL,
    market_id uuid NOT NULL,
    PRIMARY KEY (tenant_id, country),
    FOREIGN KEY (tenant_id, market_id) REFERENCES markets (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX market_countries_by_market ON market_countries (tenant_id, market_id);

ALTER TABLE market_countries ENABLE ROW LEVEL SECURITY;
ALTER TABLE market_countries FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON market_countries USING (app_all_tenants() OR tenant_id = app_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON market_countries TO vitrine_app;

SET LOCAL app.all_tenants = 'on';
INSERT INTO market_countries (tenant_id, country, market_id)
    SELECT m.tenant_id, c, m.id FROM markets m, json_array_elements_text(m.countries::json) c
    ON CONFLICT DO NOTHING;

-- +goose Down
DROP TABLE market_countries;
