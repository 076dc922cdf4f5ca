-- +goose Up
-- Every change of a product's stock, with its reason: the stock is the sum
-- of its movements.
CREATE TABLE stock_movements (
    tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id          uuid NOT NULL,
    product_id  uuid NOT NULL,
    delta       bigint NOT NULL,
    stock_after bigint NOT NULL,
    reason      text NOT NULL,
    user_id     uuid NOT NULL,
    request_id  text NOT NULL DEFAULT '',
    at          timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX stock_movements_by_product ON stock_movements (tenant_id, product_id, id);

-- create_product's idempotency keys, per tenant and user, until they expire.
CREATE TABLE idempotency_keys (
    tenant_id    uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    user_id      uuid NOT NULL,
    key          text NOT NULL,
    request_hash text NOT NULL,
    product_id   uuid NOT NULL,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, user_id, key)
);

ALTER TABLE stock_movements ENABLE ROW LEVEL SECURITY;
ALTER TABLE stock_movements FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON stock_movements USING (app_all_tenants() OR tenant_id = app_tenant());
ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE idempotency_keys FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON idempotency_keys USING (app_all_tenants() OR tenant_id = app_tenant());

-- Movements are history: the application may add and read them only.
GRANT SELECT, INSERT ON stock_movements TO vitrine_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON idempotency_keys TO vitrine_app;

-- +goose Down
DROP TABLE idempotency_keys;
DROP TABLE stock_movements;
