-- +goose Up
-- Every table of tenant data leads its primary key and indexes with
-- tenant_id (docs/storage.md).

CREATE TABLE users (
    id         TEXT PRIMARY KEY,
    email      TEXT NOT NULL,
    email_key  TEXT NOT NULL,
    name       TEXT NOT NULL,
    disabled   BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    CONSTRAINT users_email_key UNIQUE (email_key)
);

CREATE TABLE tenants (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    slug       TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    CONSTRAINT tenants_slug_key UNIQUE (slug)
);

CREATE TABLE memberships (
    tenant_id   TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    user_id     TEXT NOT NULL REFERENCES users (id),
    role        TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
    permissions TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, user_id),
    CONSTRAINT memberships_id_key UNIQUE (tenant_id, id)
);
-- A user's tenants, for list_tenants and whoami.
CREATE INDEX memberships_user ON memberships (user_id);

CREATE TABLE roles (
    tenant_id   TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    permissions TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, name)
);

CREATE TABLE api_tokens (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id),
    name         TEXT NOT NULL,
    prefix       TEXT NOT NULL,
    hash         BLOB NOT NULL,
    read_only    BOOLEAN NOT NULL DEFAULT FALSE,
    expires_at   TIMESTAMP,
    last_used_at TIMESTAMP,
    revoked_at   TIMESTAMP,
    created_at   TIMESTAMP NOT NULL,
    CONSTRAINT api_tokens_prefix_key UNIQUE (prefix)
);
CREATE INDEX api_tokens_user ON api_tokens (user_id);

CREATE TABLE products (
    tenant_id   TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    sku         TEXT NOT NULL,
    sku_key     TEXT NOT NULL,
    name        TEXT NOT NULL,
    name_key    TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    -- The words a text query matches (vitrine.Words), separated by spaces:
    -- of the name alone, and of the name, SKU and description.
    name_words  TEXT NOT NULL DEFAULT '',
    search      TEXT NOT NULL DEFAULT '',
    price       INTEGER NOT NULL CONSTRAINT products_price_nonnegative CHECK (price >= 0),
    currency    TEXT NOT NULL,
    stock       INTEGER NOT NULL CONSTRAINT products_stock_nonnegative CHECK (stock >= 0),
    status      TEXT NOT NULL CHECK (status IN ('active', 'archived')),
    version     INTEGER NOT NULL,
    created_at  TIMESTAMP NOT NULL,
    created_by  TEXT NOT NULL,
    updated_at  TIMESTAMP NOT NULL,
    updated_by  TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    CONSTRAINT products_sku_key UNIQUE (tenant_id, sku_key)
);
CREATE INDEX products_by_name ON products (tenant_id, name_key, id);
CREATE INDEX products_by_price ON products (tenant_id, price, id);
CREATE INDEX products_by_updated ON products (tenant_id, updated_at, id);

-- Full-text index of the words, kept in step with products by triggers.
CREATE VIRTUAL TABLE products_fts USING fts5(
    name_words, search, content = 'products', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 0'
);
-- +goose StatementBegin
CREATE TRIGGER products_fts_insert AFTER INSERT ON products BEGIN
    INSERT INTO products_fts (rowid, name_words, search) VALUES (new.rowid, new.name_words, new.search);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER products_fts_delete AFTER DELETE ON products BEGIN
    INSERT INTO products_fts (products_fts, rowid, name_words, search) VALUES ('delete', old.rowid, old.name_words, old.search);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER products_fts_update AFTER UPDATE OF name_words, search ON products BEGIN
    INSERT INTO products_fts (products_fts, rowid, name_words, search) VALUES ('delete', old.rowid, old.name_words, old.search);
    INSERT INTO products_fts (rowid, name_words, search) VALUES (new.rowid, new.name_words, new.search);
END;
-- +goose StatementEnd

-- +goose Down
DROP TABLE products_fts;
DROP TABLE products;
DROP TABLE api_tokens;
DROP TABLE roles;
DROP TABLE memberships;
DROP TABLE tenants;
DROP TABLE users;
