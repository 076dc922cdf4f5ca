-- +goose Up
-- Issue 35: the index of a product's tags holds the tag as written, so
-- that reading a product's tags (a facet index's build, the facets counted
-- by SQL) is a walk of the index alone. product_tags is WITHOUT ROWID:
-- the index held its primary key (tag_key) but not the tag, and each row
-- read cost a seek of the table; at 1,000,000 tags, 0.9 s of a build's 10.
DROP INDEX product_tags_by_product;
CREATE INDEX product_tags_by_product ON product_tags (tenant_id, product_id, tag);

-- +goose Down
DROP INDEX product_tags_by_product;
CREATE INDEX product_tags_by_product ON product_tags (tenant_id, product_id);
