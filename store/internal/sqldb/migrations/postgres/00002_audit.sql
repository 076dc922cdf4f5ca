-- +goose Up
-- The audit log: one row per tool call. Append-only: the application's
-- role may only insert and read, and the triggers refuse any change or
-- removal, whoever asks.
CREATE TABLE audit_events (
    tenant_id  uuid NOT NULL,
    id         uuid NOT NULL,
    at         timestamptz NOT NULL,
    user_id    uuid NOT NULL,
    token_id   text NOT NULL DEFAULT '',
    tool       text NOT NULL,
    target_id  text NOT NULL DEFAULT '',
    outcome    text NOT NULL,
    request_id text NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX audit_events_by_user ON audit_events (tenant_id, user_id, id);

ALTER TABLE audit_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE audit_events FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON audit_events USING (app_all_tenants() OR tenant_id = app_tenant());

-- +goose StatementBegin
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit events are append-only';
END
$$;
-- +goose StatementEnd
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();

GRANT SELECT, INSERT ON audit_events TO vitrine_app;

-- +goose Down
DROP TABLE audit_events;
DROP FUNCTION audit_events_append_only();
