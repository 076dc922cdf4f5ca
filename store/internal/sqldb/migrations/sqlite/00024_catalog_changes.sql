-- +goose Up
-- Issue 35: what changed in a company's catalog, by its catalog sequence
-- (tenants.catalog_seq, 00023): every transaction that writes products
-- adds a row per product written (deleted ones included), and one with no
-- product when it changes the category tree, all at the sequence it bumps
-- to, in the same transaction. An instance's facet index of the company
-- is brought from its own sequence to that of a list's snapshot by the
-- rows between them. Old rows are pruned (catalog_pruned: the sequence up
-- to which they may be gone): an index older than that is built anew.
CREATE TABLE catalog_changes (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    product_id TEXT
);
CREATE INDEX catalog_changes_by_seq ON catalog_changes (tenant_id, seq);
ALTER TABLE tenants ADD COLUMN catalog_pruned INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE tenants DROP COLUMN catalog_pruned;
DROP TABLE catalog_changes;
