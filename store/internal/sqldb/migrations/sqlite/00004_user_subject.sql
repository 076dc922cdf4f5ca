-- +goose Up
-- The subject (sub) that an OAuth authorization server gives the user,
-- for resource-server mode with --oauth-user-claim sub.
ALTER TABLE users ADD COLUMN subject TEXT;
CREATE UNIQUE INDEX users_subject_key ON users (subject) WHERE subject IS NOT NULL;

-- +goose Down
DROP INDEX users_subject_key;
ALTER TABLE users DROP COLUMN subject;
