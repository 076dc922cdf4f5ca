-- +goose Up
-- Issue 32: a company has a currency, which its imports, new products and
-- price filters use unless told otherwise (existing companies: BRL, the
-- default until now); a variant's stock is tracked or not, as Shopify's
-- Variant Inventory Tracker says (existing variants: tracked, as until
-- now). An untracked variant is always available, its quantity kept as
-- given.
ALTER TABLE tenants ADD COLUMN currency TEXT NOT NULL DEFAULT 'BRL';
ALTER TABLE variants ADD COLUMN track_inventory INTEGER NOT NULL DEFAULT 1;

-- +goose Down
ALTER TABLE variants DROP COLUMN track_inventory;
ALTER TABLE tenants DROP COLUMN currency;
