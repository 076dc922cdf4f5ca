-- +goose Up
-- Every change of a product's stock, with its reason: the stock is the sum
-- of its movements.
CREATE TABLE stock_movements (
    tenant_id   TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    product_id  TEXT NOT NULL,
    delta       INTEGER NOT NULL,
    stock_after INTEGER NOT NULL,
    reason      TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    request_id  TEXT NOT NULL DEFAULT '',
    at          TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
CREATE INDEX stock_movements_by_product ON stock_movements (tenant_id, product_id, id);

-- create_product's idempotency keys, per tenant and user, until they expire.
CREATE TABLE idempotency_keys (
    tenant_id    TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    user_id      TEXT NOT NULL,
    key          TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    product_id   TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    expires_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, user_id, key)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE idempotency_keys;
DROP TABLE stock_movements;
