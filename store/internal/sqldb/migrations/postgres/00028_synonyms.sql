-- +goose Up
-- Issue 50: a company's synonyms, a row each, in one locale or in all
-- (locale ''): a group (from_word '') whose words each find every other,
-- or a one-way mapping, from_word finding words but not the reverse.
-- words is a JSON array of texts. key tells a synonym from the others of
-- its locale (vitrine.Synonym.Key: a group's words folded and sorted, a
-- mapping's from_word, hashed): saving one of a key replaces it. A search
-- reads them at query time; a write bumps the catalog sequence.
CREATE TABLE synonyms (
    tenant_id  uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    locale     text NOT NULL DEFAULT '',
    key        text NOT NULL,
    from_word  text NOT NULL DEFAULT '',
    words      text NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, locale, key)
);

ALTER TABLE synonyms ENABLE ROW LEVEL SECURITY;
ALTER TABLE synonyms FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON synonyms USING (app_all_tenants() OR tenant_id = app_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON synonyms TO vitrine_app;

-- +goose Down
DROP TABLE synonyms;
