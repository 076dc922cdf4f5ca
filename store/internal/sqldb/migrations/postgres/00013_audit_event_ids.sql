-- +goose Up
-- One call, one event: an event's id is its call's request id, unique
-- across tenants. A write stores its call's event in its own transaction;
-- the same event handed to the audit log after the call is then ignored
-- (INSERT ... ON CONFLICT DO NOTHING), whichever tenant it names.
CREATE UNIQUE INDEX audit_events_id ON audit_events (id);

-- +goose Down
DROP INDEX audit_events_id;
