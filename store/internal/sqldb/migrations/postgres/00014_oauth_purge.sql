-- +goose Up
-- What the authorization server keeps is purged once no flow can use it
-- (store.PurgeOAuth, hourly): codes, PKCE requests and refresh tokens past
-- their expiry, browser sessions past theirs. These find them.
CREATE INDEX oauth_sessions_expires ON oauth_sessions (expires_at);
CREATE INDEX web_sessions_expires ON web_sessions (expires_at);

-- +goose Down
DROP INDEX web_sessions_expires;
DROP INDEX oauth_sessions_expires;
