-- +goose Up
-- The words of each product, one row per word, for search by index under
-- row-level security. The GIN index on search_tsv could not serve: its
-- operator (@@) is not LEAKPROOF, so PostgreSQL may not evaluate it before
-- the tenant policy, and scanned every product of the table instead. Text
-- comparisons are LEAKPROOF: a word's prefix is a range of this table's
-- primary key, within the tenant. The tsvectors stay, to check the words
-- of the products read (see store.pgDB.search).
CREATE TABLE product_words (
    tenant_id  uuid NOT NULL,
    word       text COLLATE "C" NOT NULL,
    product_id uuid NOT NULL,
    -- Whether the word is in the product's name (else in its SKU or description).
    in_name    boolean NOT NULL,
    PRIMARY KEY (tenant_id, word, product_id)
);
CREATE INDEX product_words_by_product ON product_words (tenant_id, product_id);

ALTER TABLE product_words ENABLE ROW LEVEL SECURITY;
ALTER TABLE product_words FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON product_words USING (app_all_tenants() OR tenant_id = app_tenant());
GRANT SELECT, INSERT, DELETE ON product_words TO vitrine_app;

-- Kept in step with products by a trigger, in the product's transaction
-- (a foreign key would cost a lookup of the product for every word).
-- +goose StatementBegin
CREATE FUNCTION products_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.search = OLD.search AND NEW.name_words = OLD.name_words THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        DELETE FROM product_words WHERE tenant_id = OLD.tenant_id AND product_id = OLD.id;
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN NULL;
    END IF;
    INSERT INTO product_words (tenant_id, word, product_id, in_name)
    SELECT NEW.tenant_id, w, NEW.id, w = ANY (string_to_array(NEW.name_words, ' '))
    FROM (SELECT DISTINCT unnest(string_to_array(NEW.search, ' ')) AS w) AS words
    WHERE w <> '';
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER products_words AFTER INSERT OR UPDATE OF search, name_words OR DELETE ON products
    FOR EACH ROW EXECUTE FUNCTION products_words();

-- The products already there (the policies apply to this migration too).
SET LOCAL app.all_tenants = 'on';
INSERT INTO product_words (tenant_id, word, product_id, in_name)
SELECT p.tenant_id, w, p.id, w = ANY (string_to_array(p.name_words, ' '))
FROM products p, LATERAL (SELECT DISTINCT unnest(string_to_array(p.search, ' ')) AS w) AS words
WHERE w <> '';

DROP INDEX products_search;

-- +goose Down
CREATE INDEX products_search ON products USING gin (search_tsv);
DROP TRIGGER products_words ON products;
DROP FUNCTION products_words();
DROP TABLE product_words;
