-- +goose Up
-- Keys the server holds in common: every instance signs and checks with
-- the same one, and a restart keeps what they signed valid. The first
-- instance to need a key stores it; the others read it.
CREATE TABLE server_keys (
    name       TEXT PRIMARY KEY,
    key        BLOB NOT NULL,
    created_at TIMESTAMP NOT NULL
);

-- +goose Down
DROP TABLE server_keys;
