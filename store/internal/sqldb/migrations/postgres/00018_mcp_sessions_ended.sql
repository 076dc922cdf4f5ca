-- +goose Up
-- MCP sessions (protocol 2025-11-25) their clients ended with DELETE: every
-- instance answers a later request of one 404, as the protocol asks, though
-- the session lived in another instance's memory. Kept a day, far past the
-- idle timeout of any session.
CREATE TABLE mcp_sessions_ended (
    id       text PRIMARY KEY,
    ended_at timestamp NOT NULL
);
CREATE INDEX mcp_sessions_ended_at ON mcp_sessions_ended (ended_at);
GRANT SELECT, INSERT, DELETE ON mcp_sessions_ended TO vitrine_app;

-- +goose Down
DROP TABLE mcp_sessions_ended;
