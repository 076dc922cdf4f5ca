-- +goose Up
-- A membership added by a member is an invitation until its user accepts
-- it: status 'invited', which opens nothing.
ALTER TABLE memberships DROP CONSTRAINT memberships_status_check;
ALTER TABLE memberships ADD CONSTRAINT memberships_status_check CHECK (status IN ('active', 'inactive', 'invited'));

-- +goose Down
DELETE FROM memberships WHERE status = 'invited';
ALTER TABLE memberships DROP CONSTRAINT memberships_status_check;
ALTER TABLE memberships ADD CONSTRAINT memberships_status_check CHECK (status IN ('active', 'inactive'));
