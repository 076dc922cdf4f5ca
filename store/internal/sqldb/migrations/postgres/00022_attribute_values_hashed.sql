-- +goose Up
-- A text attribute's value holds up to 1,000 characters: 3,000 bytes and
-- more in CJK, past the 2,704 bytes of a btree entry. Keyed on the value,
-- product_attributes refused such a product with an internal error, where
-- SQLite kept it. A product has one value per key: the key is (tenant,
-- product, key), and filters by value read an index of the value's md5
-- (the query compares md5(value) and then the value itself).
ALTER TABLE product_attributes DROP CONSTRAINT product_attributes_pkey;
ALTER TABLE product_attributes ADD PRIMARY KEY (tenant_id, product_id, key);
DROP INDEX product_attributes_by_product;
CREATE INDEX product_attributes_by_value ON product_attributes (tenant_id, key, md5(value));

-- +goose Down
DROP INDEX product_attributes_by_value;
CREATE INDEX product_attributes_by_product ON product_attributes (tenant_id, product_id);
ALTER TABLE product_attributes DROP CONSTRAINT product_attributes_pkey;
ALTER TABLE product_attributes ADD PRIMARY KEY (tenant_id, key, value, product_id);
