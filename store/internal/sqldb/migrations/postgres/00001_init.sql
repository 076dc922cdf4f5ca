-- +goose Up
-- Every table of tenant data leads its primary key and indexes with
-- tenant_id, and is guarded by row-level security on the transaction's
-- app.tenant_id (docs/storage.md). Keys that lists are ordered by use byte
-- order (COLLATE "C"), as SQLite does: a page is the same on both.

CREATE TABLE users (
    id         uuid PRIMARY KEY,
    email      text NOT NULL,
    email_key  text COLLATE "C" NOT NULL,
    name       text NOT NULL,
    disabled   boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CONSTRAINT users_email_key UNIQUE (email_key)
);

CREATE TABLE tenants (
    id         uuid PRIMARY KEY,
    name       text NOT NULL,
    slug       text COLLATE "C" NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CONSTRAINT tenants_slug_key UNIQUE (slug)
);

CREATE TABLE memberships (
    tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id          uuid NOT NULL,
    user_id     uuid NOT NULL REFERENCES users (id),
    role        text NOT NULL,
    status      text NOT NULL CHECK (status IN ('active', 'inactive')),
    permissions text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, user_id),
    CONSTRAINT memberships_id_key UNIQUE (tenant_id, id)
);
-- A user's tenants, for list_tenants and whoami.
CREATE INDEX memberships_user ON memberships (user_id);

CREATE TABLE roles (
    tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    name        text COLLATE "C" NOT NULL,
    description text NOT NULL DEFAULT '',
    permissions text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, name)
);

CREATE TABLE api_tokens (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id),
    name         text NOT NULL,
    prefix       text NOT NULL,
    hash         bytea NOT NULL,
    read_only    boolean NOT NULL DEFAULT false,
    expires_at   timestamptz,
    last_used_at timestamptz,
    revoked_at   timestamptz,
    created_at   timestamptz NOT NULL,
    CONSTRAINT api_tokens_prefix_key UNIQUE (prefix)
);
CREATE INDEX api_tokens_user ON api_tokens (user_id);

CREATE TABLE products (
    tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id          uuid NOT NULL,
    sku         text NOT NULL,
    sku_key     text NOT NULL,
    name        text NOT NULL,
        name_key    text COLLATE "C" NOT NULL,
    description text NOT NULL DEFAULT '',
    -- The words a text query matches (vitrine.Words), separated by spaces:
    -- of the name alone, and of the name, SKU and description. The
    -- tsvectors hold them verbatim (array_to_tsvector parses nothing), so
    -- that PostgreSQL matches exactly the words SQLite's FTS5 does.
    name_words  text NOT NULL DEFAULT '',
    search      text NOT NULL DEFAULT '',
    name_tsv    tsvector GENERATED ALWAYS AS (array_to_tsvector(string_to_array(name_words, ' '))) STORED,
    search_tsv  tsvector GENERATED ALWAYS AS (array_to_tsvector(string_to_array(search, ' '))) STORED,
    price       bigint NOT NULL CONSTRAINT products_price_nonnegative CHECK (price >= 0),
    currency    text NOT NULL,
    stock       bigint NOT NULL CONSTRAINT products_stock_nonnegative CHECK (stock >= 0),
    status      text NOT NULL CHECK (status IN ('active', 'archived')),
    version     bigint NOT NULL,
    created_at  timestamptz NOT NULL,
    created_by  uuid NOT NULL,
    updated_at  timestamptz NOT NULL,
    updated_by  uuid NOT NULL,
    PRIMARY KEY (tenant_id, id),
    CONSTRAINT products_sku_key UNIQUE (tenant_id, sku_key)
);
CREATE INDEX products_by_name ON products (tenant_id, name_key, id);
CREATE INDEX products_by_price ON products (tenant_id, price, id);
CREATE INDEX products_by_updated ON products (tenant_id, updated_at, id);
CREATE INDEX products_search ON products USING gin (search_tsv);

-- Row-level security: the second wall behind the application's checks.
-- The application's connections act as vitrine_app, which owns no table;
-- FORCE applies the policies to the owner too. A transaction sees the rows
-- of the tenant in app.tenant_id; list_tenants also sees a user's own
-- memberships (app.user_id); the operator's commands set app.all_tenants.
-- The settings are transaction-local, set by the store for each unit of work.
-- NULLIF: the setting is NULL on a fresh connection and '' after an
-- earlier transaction set it.

-- +goose StatementBegin
CREATE FUNCTION app_tenant() RETURNS uuid LANGUAGE sql STABLE
    AS $$ SELECT NULLIF(current_setting('app.tenant_id', true), '')::uuid $$;
CREATE FUNCTION app_user() RETURNS uuid LANGUAGE sql STABLE
    AS $$ SELECT NULLIF(current_setting('app.user_id', true), '')::uuid $$;
CREATE FUNCTION app_all_tenants() RETURNS boolean LANGUAGE sql STABLE
    AS $$ SELECT coalesce(current_setting('app.all_tenants', true), '') = 'on' $$;
-- +goose StatementEnd

ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenants FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tenants USING (
    app_all_tenants() OR id = app_tenant()
    OR EXISTS (SELECT 1 FROM memberships m WHERE m.tenant_id = tenants.id AND m.user_id = app_user())
) WITH CHECK (app_all_tenants() OR id = app_tenant());

ALTER TABLE memberships ENABLE ROW LEVEL SECURITY;
ALTER TABLE memberships FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON memberships USING (
    app_all_tenants() OR tenant_id = app_tenant() OR user_id = app_user()
) WITH CHECK (app_all_tenants() OR tenant_id = app_tenant());

ALTER TABLE roles ENABLE ROW LEVEL SECURITY;
ALTER TABLE roles FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON roles USING (app_all_tenants() OR tenant_id = app_tenant());

ALTER TABLE products ENABLE ROW LEVEL SECURITY;
ALTER TABLE products FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON products USING (app_all_tenants() OR tenant_id = app_tenant());

-- The application's role. It logs in as nobody: the connecting user
-- switches to it with SET ROLE.
-- +goose StatementBegin
DO $$
BEGIN
    CREATE ROLE vitrine_app NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
    NULL; -- made by another database of this cluster
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
DO $$
BEGIN
    EXECUTE format('GRANT vitrine_app TO %I', current_user);
EXCEPTION WHEN OTHERS THEN
    NULL; -- already a member, or a superuser who needs no grant
END
$$;
-- +goose StatementEnd
GRANT USAGE ON SCHEMA public TO vitrine_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON users, tenants, memberships, roles, api_tokens, products TO vitrine_app;
GRANT EXECUTE ON FUNCTION app_tenant(), app_user(), app_all_tenants() TO vitrine_app;
-- Readiness checks read which migrations were applied.
GRANT SELECT ON goose_db_version TO vitrine_app;

-- +goose Down
DROP TABLE products, api_tokens, roles, memberships, tenants, users;
DROP FUNCTION app_tenant(), app_user(), app_all_tenants();
