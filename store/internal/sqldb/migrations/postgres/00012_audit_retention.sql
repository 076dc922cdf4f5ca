-- +goose Up
-- Audit retention: events older than a day may be removed, by the
-- retention's pruning (vitrine serve --audit-retention, vitrine audit
-- prune); nothing changes an event, and nothing removes a recent one.
CREATE INDEX audit_events_by_time ON audit_events (at);

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

GRANT DELETE ON audit_events TO vitrine_app;

-- +goose Down
REVOKE DELETE ON audit_events FROM vitrine_app;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit events are append-only';
END
$$;
-- +goose StatementEnd
DROP INDEX audit_events_by_time;
