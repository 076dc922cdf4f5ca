-- +goose Up
-- Issue 48: a company is deleted with a grace period. Its owner's request
-- schedules it (deletes_at: when its purge may start; who asked and when);
-- restoring clears them. Members' calls on a scheduled company are refused,
-- which the access epoch must see at once: scheduling and restoring move it.
ALTER TABLE tenants ADD COLUMN deletes_at TIMESTAMP;
ALTER TABLE tenants ADD COLUMN delete_requested_at TIMESTAMP;
ALTER TABLE tenants ADD COLUMN delete_requested_by TEXT NOT NULL DEFAULT '';
CREATE INDEX tenants_by_deletes_at ON tenants (deletes_at) WHERE deletes_at IS NOT NULL;
-- +goose StatementBegin
CREATE TRIGGER tenants_access_schedule AFTER UPDATE OF deletes_at ON tenants BEGIN
    UPDATE access_epoch SET n = n + 1 WHERE id = 1;
END;
-- +goose StatementEnd

-- The record of a deletion, which outlives the company: written when its
-- purge starts, counted as each batch goes, finished (purged_at) when the
-- company's row goes last. Nobody's tenant: the operator's
-- (vitrine tenant deleted).
CREATE TABLE deleted_tenants (
    id               TEXT PRIMARY KEY,
    slug             TEXT NOT NULL,
    name             TEXT NOT NULL,
    requested_at     TIMESTAMP NOT NULL,
    requested_by     TEXT NOT NULL DEFAULT '',
    purge_started_at TIMESTAMP NOT NULL,
    purged_at        TIMESTAMP,
    rows_removed     INTEGER NOT NULL DEFAULT 0
);

-- Leases of the background jobs that one instance at a time may run (the
-- purge): held by holder until expires_at, renewed as it works, taken over
-- by another once expired.
CREATE TABLE leases (
    name       TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    expires_at TIMESTAMP NOT NULL
);

-- A company being purged loses its audit events with the rest, however
-- recent; its deletion is recorded in deleted_tenants and, outside any
-- company, in the audit log.
DROP TRIGGER audit_events_no_delete;
-- +goose StatementBegin
CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
WHEN OLD.at >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 day')
    AND NOT EXISTS (SELECT 1 FROM deleted_tenants d WHERE d.id = OLD.tenant_id AND d.purged_at IS NULL)
BEGIN
    SELECT RAISE(ABORT, 'audit events are append-only');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER audit_events_no_delete;
-- +goose StatementBegin
CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
WHEN OLD.at >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 day')
BEGIN
    SELECT RAISE(ABORT, 'audit events are append-only');
END;
-- +goose StatementEnd
DROP TABLE leases;
DROP TABLE deleted_tenants;
DROP TRIGGER tenants_access_schedule;
DROP INDEX tenants_by_deletes_at;
ALTER TABLE tenants DROP COLUMN delete_requested_by;
ALTER TABLE tenants DROP COLUMN delete_requested_at;
ALTER TABLE tenants DROP COLUMN deletes_at;
