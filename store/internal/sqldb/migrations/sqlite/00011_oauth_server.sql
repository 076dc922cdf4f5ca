-- +goose Up
-- Vitrine as its own OAuth 2.1 authorization server (docs/oauth.md). All of
-- it lives here, not in a process's memory, so that any instance can carry
-- on a flow another began. These rows belong to users, not to tenants.

-- The access tokens it issues are API tokens of the user, tied to the grant
-- and to the token family (request_id) they came from: they are checked on
-- the same path as every token, and revoking either revokes them.
ALTER TABLE api_tokens ADD COLUMN grant_id TEXT;
ALTER TABLE api_tokens ADD COLUMN request_id TEXT;
CREATE INDEX api_tokens_grant ON api_tokens (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX api_tokens_request ON api_tokens (request_id) WHERE request_id IS NOT NULL;

-- Clients: registered (RFC 7591), or known by their metadata document
-- (client_id is its https URL), fetched again when stale.
CREATE TABLE oauth_clients (
    id         TEXT PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('registered', 'metadata')),
    metadata   TEXT NOT NULL,
    secret_hash BLOB,
    created_at TIMESTAMP NOT NULL,
    fetched_at TIMESTAMP NOT NULL
);

-- What a user approved for a client: a connected app.
CREATE TABLE oauth_grants (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_id  TEXT NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    scope      TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    revoked_at TIMESTAMP
);
CREATE UNIQUE INDEX oauth_grants_active ON oauth_grants (user_id, client_id) WHERE revoked_at IS NULL;

-- Authorization codes, PKCE requests and refresh tokens, by the signature
-- of their secret (never the secret), with the request they carry.
CREATE TABLE oauth_sessions (
    kind       TEXT NOT NULL CHECK (kind IN ('code', 'pkce', 'refresh')),
    signature  TEXT NOT NULL,
    request_id TEXT NOT NULL,
    grant_id   TEXT NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    request    TEXT NOT NULL,
    active     BOOLEAN NOT NULL DEFAULT TRUE,
    expires_at TIMESTAMP NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (kind, signature)
);
CREATE INDEX oauth_sessions_request ON oauth_sessions (request_id);
CREATE INDEX oauth_sessions_grant ON oauth_sessions (grant_id);

-- Signed-in browsers, by the SHA-256 of their cookie.
CREATE TABLE web_sessions (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL
);
CREATE INDEX web_sessions_user ON web_sessions (user_id);


-- +goose Down
DROP TABLE web_sessions;
DROP TABLE oauth_sessions;
DROP TABLE oauth_grants;
DROP TABLE oauth_clients;
DROP INDEX api_tokens_request;
DROP INDEX api_tokens_grant;
ALTER TABLE api_tokens DROP COLUMN request_id;
ALTER TABLE api_tokens DROP COLUMN grant_id;
