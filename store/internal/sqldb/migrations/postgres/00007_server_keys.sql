-- +goose Up
-- Keys the server holds in common: every instance signs and checks with
-- the same one, and a restart keeps what they signed valid. The first
-- instance to need a key stores it; the others read it.
CREATE TABLE server_keys (
    name       text PRIMARY KEY,
    key        bytea NOT NULL,
    created_at timestamp NOT NULL
);
GRANT SELECT, INSERT ON server_keys TO vitrine_app;

-- +goose Down
DROP TABLE server_keys;
