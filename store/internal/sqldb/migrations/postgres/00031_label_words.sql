-- +goose Up
-- Issue 50: a relevance page ranks the name's matches first, then the
-- matches in the words that label a product (its vendor, type and tags),
-- then those elsewhere (description, SKUs, barcodes, option values). The
-- label's words are vitrine.Words of each, space-separated: the store
-- writes them with the product. The rows already there hold NULL until
-- the store fills them in (catalog.FillLabelWords, when it opens, a batch
-- at a time); a query reads NULL as no words. label_tsv holds the name's
-- words and the label's, as name_tsv the name's: what the second rank
-- matches.
ALTER TABLE products ADD COLUMN label_words text;
ALTER TABLE products ADD COLUMN label_tsv tsvector GENERATED ALWAYS AS
    (array_to_tsvector(array_remove(string_to_array(name_words || ' ' || coalesce(label_words, ''), ' '), ''))) STORED;
-- The rows still to fill: none, once filled, so the check at each start
-- reads an empty index.
CREATE INDEX products_label_words_pending ON products (tenant_id) WHERE label_words IS NULL;

-- +goose Down
DROP INDEX products_label_words_pending;
ALTER TABLE products DROP COLUMN label_tsv;
ALTER TABLE products DROP COLUMN label_words;
