-- +goose Up
-- The access epoch moves whenever anything that decides who may do what
-- changes: users, tokens, tenants, memberships, roles. Servers cache what
-- authentication and membership checks read for as long as it stays put
-- (service.accessCache); triggers move it, so that a change made by any
-- writer (another instance, the operator's CLI) is seen by the next call.
CREATE TABLE access_epoch (
    id integer PRIMARY KEY CHECK (id = 1),
    n  bigint NOT NULL
);
INSERT INTO access_epoch (id, n) VALUES (1, 1);
GRANT SELECT, UPDATE ON access_epoch TO vitrine_app;

-- +goose StatementBegin
CREATE FUNCTION bump_access_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE access_epoch SET n = n + 1 WHERE id = 1;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER users_access AFTER UPDATE OR DELETE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION bump_access_epoch();
-- Recording a token's use (last_used_at) changes nothing of what it may do.
CREATE TRIGGER api_tokens_access_update AFTER UPDATE OF id, user_id, prefix, hash, read_only, expires_at, revoked_at ON api_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION bump_access_epoch();
CREATE TRIGGER api_tokens_access_delete AFTER DELETE ON api_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION bump_access_epoch();
CREATE TRIGGER tenants_access AFTER DELETE ON tenants
    FOR EACH STATEMENT EXECUTE FUNCTION bump_access_epoch();
CREATE TRIGGER memberships_access AFTER INSERT OR UPDATE OR DELETE ON memberships
    FOR EACH STATEMENT EXECUTE FUNCTION bump_access_epoch();
CREATE TRIGGER roles_access AFTER INSERT OR UPDATE OR DELETE ON roles
    FOR EACH STATEMENT EXECUTE FUNCTION bump_access_epoch();

-- +goose Down
DROP TRIGGER roles_access ON roles;
DROP TRIGGER memberships_access ON memberships;
DROP TRIGGER tenants_access ON tenants;
DROP TRIGGER api_tokens_access_delete ON api_tokens;
DROP TRIGGER api_tokens_access_update ON api_tokens;
DROP TRIGGER users_access ON users;
DROP FUNCTION bump_access_epoch();
DROP TABLE access_epoch;
