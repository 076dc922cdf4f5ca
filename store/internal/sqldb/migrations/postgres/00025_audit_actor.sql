-- +goose Up
-- Issue 45: an audit event names who called explicitly: a user through a
-- token ('user'), or the operator's command line ('operator'), which may
-- act in no one's name (user_id is then the nil uuid) or in a user's
-- (--as). Events stored before were all of users' calls but those of
-- `vitrine shop open` and `shop close`, the only operator's commands
-- audited then: no token, a command's name.
ALTER TABLE audit_events ADD COLUMN actor text NOT NULL DEFAULT 'user';
ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only;
UPDATE audit_events SET actor = 'operator' WHERE token_id = '' AND tool LIKE 'vitrine %';
ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only;

-- +goose Down
ALTER TABLE audit_events DROP COLUMN actor;
