-- +goose Up
-- Audit retention: events older than a day may be removed, by the
-- retention's pruning (vitrine serve --audit-retention, vitrine audit
-- prune); nothing changes an event, and nothing removes a recent one.
CREATE INDEX audit_events_by_time ON audit_events (at);
DROP TRIGGER audit_events_no_delete;
-- +goose StatementBegin
CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
WHEN OLD.at >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 day')
BEGIN
    SELECT RAISE(ABORT, 'audit events are append-only');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER audit_events_no_delete;
-- +goose StatementBegin
CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
BEGIN
    SELECT RAISE(ABORT, 'audit events are append-only');
END;
-- +goose StatementEnd
DROP INDEX audit_events_by_time;
