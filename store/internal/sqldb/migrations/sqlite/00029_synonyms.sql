-- +goose Up
-- Issue 50: a company's synonyms, a row each, in one locale or in all
-- (locale ''): a group (from_word '') whose words each find every other,
-- or a one-way mapping, from_word finding words but not the reverse.
-- words is a JSON array of texts. key tells a synonym from the others of
-- its locale (vitrine.Synonym.Key: a group's words folded and sorted, a
-- mapping's from_word, hashed): saving one of a key replaces it. A search
-- reads them at query time; a write bumps the catalog sequence.
CREATE TABLE synonyms (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    locale     TEXT NOT NULL DEFAULT '',
    key        TEXT NOT NULL,
    from_word  TEXT NOT NULL DEFAULT '',
    words      TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, locale, key)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE synonyms;
