-- +goose Up
-- Issue 48: a company is deleted with a grace period. Its owner's request
-- schedules it (deletes_at: when its purge may start; who asked and when);
-- restoring clears them. Members' calls on a scheduled company are refused,
-- which the access epoch must see at once: scheduling and restoring move it.
ALTER TABLE tenants ADD COLUMN deletes_at timestamptz;
ALTER TABLE tenants ADD COLUMN delete_requested_at timestamptz;
ALTER TABLE tenants ADD COLUMN delete_requested_by text NOT NULL DEFAULT '';
CREATE INDEX tenants_by_deletes_at ON tenants (deletes_at) WHERE deletes_at IS NOT NULL;
CREATE TRIGGER tenants_access_schedule AFTER UPDATE OF deletes_at ON tenants
    FOR EACH STATEMENT EXECUTE FUNCTION bump_access_epoch();

-- The record of a deletion, which outlives the company: written when its
-- purge starts, counted as each batch goes, finished (purged_at) when the
-- company's row goes last. Nobody's tenant: the operator's
-- (vitrine tenant deleted), as server_keys are.
CREATE TABLE deleted_tenants (
    id               uuid PRIMARY KEY,
    slug             text NOT NULL,
    name             text NOT NULL,
    requested_at     timestamptz NOT NULL,
    requested_by     text NOT NULL DEFAULT '',
    purge_started_at timestamptz NOT NULL,
    purged_at        timestamptz,
    rows_removed     bigint NOT NULL DEFAULT 0
);

-- Leases of the background jobs that one instance at a time may run (the
-- purge): held by holder until expires_at, renewed as it works, taken over
-- by another once expired.
CREATE TABLE leases (
    name       text PRIMARY KEY,
    holder     text NOT NULL,
    expires_at timestamptz NOT NULL
);

GRANT SELECT, INSERT, UPDATE ON deleted_tenants, leases TO vitrine_app;
-- The purge removes a company's stock movements, otherwise insert-only.
GRANT DELETE ON stock_movements TO vitrine_app;

-- A company being purged loses its audit events with the rest, however
-- recent; its deletion is recorded in deleted_tenants and, outside any
-- company, in the audit log.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND (OLD.at < now() - interval '1 day'
        OR EXISTS (SELECT 1 FROM deleted_tenants d WHERE d.id = OLD.tenant_id AND d.purged_at IS NULL)) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit events are append-only';
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND OLD.at < now() - interval '1 day' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit events are append-only';
END
$$;
-- +goose StatementEnd
REVOKE DELETE ON stock_movements FROM vitrine_app;
DROP TABLE leases;
DROP TABLE deleted_tenants;
DROP TRIGGER tenants_access_schedule ON tenants;
DROP INDEX tenants_by_deletes_at;
ALTER TABLE tenants DROP COLUMN delete_requested_by;
ALTER TABLE tenants DROP COLUMN delete_requested_at;
ALTER TABLE tenants DROP COLUMN deletes_at;
