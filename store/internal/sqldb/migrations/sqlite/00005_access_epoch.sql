-- +goose Up
-- The access epoch moves whenever anything that decides who may do what
-- changes: users, tokens, tenants, memberships, roles. Servers cache what
-- authentication and membership checks read for as long as it stays put
-- (service.accessCache); triggers move it, so that a change made by any
-- writer (another instance, the operator's CLI) is seen by the next call.
CREATE TABLE access_epoch (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO access_epoch (id, n) VALUES (1, 1);

-- +goose StatementBegin
CREATE TRIGGER users_access_update AFTER UPDATE ON users BEGIN
    UPDATE access_epoch SET n = n + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER users_access_delete AFTER DELETE ON users BEGIN
    UPDATE access_epoch SET n = n + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- Recording a token's use (last_used_at) changes nothing of what it may do.
-- +goose StatementBegin
CREATE TRIGGER api_tokens_access_update AFTER UPDATE OF id, user_id, prefix, hash, read_only, expires_at, revoked_at ON api_tokens BEGIN
    UPDATE access_epoch SET n = n + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER api_tokens_access_delete AFTER DELETE ON api_tokens BEGIN
    UPDATE access_epoch SET n = n + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER tenants_access_delete AFTER DELETE ON tenants BEGIN
    UPDATE access_epoch SET n = n + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER memberships_access_insert AFTER INSERT ON memberships BEGIN
    UPDATE access_epoch SET n = n + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER memberships_access_update AFTER UPDATE ON memberships BEGIN
    UPDATE access_epoch SET n = n + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER memberships_access_delete AFTER DELETE ON memberships BEGIN
    UPDATE access_epoch SET n = n + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER roles_access_insert AFTER INSERT ON roles BEGIN
    UPDATE access_epoch SET n = n + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER roles_access_update AFTER UPDATE ON roles BEGIN
    UPDATE access_epoch SET n = n + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER roles_access_delete AFTER DELETE ON roles BEGIN
    UPDATE access_epoch SET n = n + 1 WHERE id = 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER roles_access_delete;
DROP TRIGGER roles_access_update;
DROP TRIGGER roles_access_insert;
DROP TRIGGER memberships_access_delete;
DROP TRIGGER memberships_access_update;
DROP TRIGGER memberships_access_insert;
DROP TRIGGER tenants_access_delete;
DROP TRIGGER api_tokens_access_delete;
DROP TRIGGER api_tokens_access_update;
DROP TRIGGER users_access_delete;
DROP TRIGGER users_access_update;
DROP TABLE access_epoch;
