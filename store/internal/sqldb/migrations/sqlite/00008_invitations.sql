-- +goose Up
-- A membership added by a member is an invitation until its user accepts
-- it: status 'invited', which opens nothing. SQLite cannot change a CHECK
-- constraint, so the table is rebuilt, with its index and triggers.
CREATE TABLE memberships_next (
    tenant_id   TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    user_id     TEXT NOT NULL REFERENCES users (id),
    role        TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('active', 'inactive', 'invited')),
    permissions TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, user_id),
    CONSTRAINT memberships_id_key UNIQUE (tenant_id, id)
);
INSERT INTO memberships_next (tenant_id, id, user_id, role, status, permissions, created_at, updated_at)
    SELECT tenant_id, id, user_id, role, status, permissions, created_at, updated_at FROM memberships;
DROP TABLE memberships;
ALTER TABLE memberships_next RENAME TO memberships;
CREATE INDEX memberships_user ON memberships (user_id);
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
UPDATE access_epoch SET n = n + 1 WHERE id = 1;

-- +goose Down
DELETE FROM memberships WHERE status = 'invited';
