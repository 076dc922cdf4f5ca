-- +goose Up
-- The audit log: one row per tool call. Append-only: the triggers refuse
-- any change or removal, whoever asks.
CREATE TABLE audit_events (
    tenant_id  TEXT NOT NULL,
    id         TEXT NOT NULL,
    at         TIMESTAMP NOT NULL,
    user_id    TEXT NOT NULL,
    token_id   TEXT NOT NULL DEFAULT '',
    tool       TEXT NOT NULL,
    target_id  TEXT NOT NULL DEFAULT '',
    outcome    TEXT NOT NULL,
    request_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
CREATE INDEX audit_events_by_user ON audit_events (tenant_id, user_id, id);

-- +goose StatementBegin
CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN
    SELECT RAISE(ABORT, 'audit events are append-only');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
BEGIN
    SELECT RAISE(ABORT, 'audit events are append-only');
END;
-- +goose StatementEnd

-- +goose Down
DROP TABLE audit_events;
