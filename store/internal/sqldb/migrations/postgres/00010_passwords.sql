-- +goose Up
-- Signing in with a password, when Vitrine is its own authorization
-- server. Passwords belong to users, not to tenants: these tables carry no
-- tenant_id and no row-level security.

-- The argon2id hash of the user's password (PHC string); NULL: none set.
ALTER TABLE users ADD COLUMN password_hash text;

-- Failed sign-ins in a row, per normalized email, whether or not a user
-- has it (no foreign key): an unknown email locks like a known one, so
-- the answer tells nobody which emails exist. In the database, so every
-- instance counts the same failures.
CREATE TABLE sign_in_failures (
    email_key    text COLLATE "C" PRIMARY KEY,
    failures     integer NOT NULL,
    locked_until timestamptz,
    updated_at   timestamptz NOT NULL
);
CREATE INDEX sign_in_failures_updated ON sign_in_failures (updated_at);

-- One-time links that let a user set their password. Only the SHA-256 of
-- the secret is kept.
CREATE TABLE password_links (
    id         uuid PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    hash       bytea NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL,
    CONSTRAINT password_links_hash_key UNIQUE (hash)
);
CREATE INDEX password_links_user ON password_links (user_id);

GRANT SELECT, INSERT, UPDATE, DELETE ON sign_in_failures, password_links TO vitrine_app;

-- +goose Down
DROP TABLE password_links;
DROP TABLE sign_in_failures;
ALTER TABLE users DROP COLUMN password_hash;
