-- +goose Up
-- The toolsets a token grants (names separated by spaces): its holder lists
-- and calls their tools only (docs/oauth.md, "Toolsets"). Tokens made
-- before toolsets were granted could call every tool by its name, so they
-- keep every toolset there was: nothing a static token could do is taken
-- away. OAuth access tokens get theirs from the scopes of their grant.
ALTER TABLE api_tokens ADD COLUMN toolsets TEXT NOT NULL DEFAULT '';
UPDATE api_tokens SET toolsets = 'tenants products inventory members roles audit';

-- +goose Down
ALTER TABLE api_tokens DROP COLUMN toolsets;
