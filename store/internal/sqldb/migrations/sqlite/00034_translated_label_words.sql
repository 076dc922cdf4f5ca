-- +goose Up
-- Issue 50: a product's type translated into a locale labels it there as
-- its own type does (a relevance page ranks the label's matches after the
-- name's, before the rest). translated_label_words holds the words of its
-- type's translations, in every locale (vitrine.Words, each after a
-- space), which the store adds to its label_words as it adds
-- translated_name_words to name_words. The rows whose type has a
-- translation are set to fill again (label_words NULL):
-- catalog.FillLabelWords writes both, from the translations, when the
-- store opens.
ALTER TABLE products ADD COLUMN translated_label_words TEXT NOT NULL DEFAULT '';
UPDATE products SET label_words = NULL WHERE EXISTS (SELECT 1 FROM translations t
    WHERE t.tenant_id = products.tenant_id AND t.resource = 'product' AND t.resource_id = products.id AND t.field = 'product_type');

-- +goose Down
ALTER TABLE products DROP COLUMN translated_label_words;
