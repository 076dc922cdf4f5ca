-- +goose Up
-- Issue 48: a company's archives made by export_tenant, kept 24 hours for
-- their owner to download from any instance: the archive in chunks of up
-- to 1 MiB, so that neither writing nor reading one holds it whole.
CREATE TABLE tenant_exports (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id         TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    status     TEXT NOT NULL CONSTRAINT tenant_exports_status CHECK (status IN ('running', 'done', 'failed')),
    bytes      INTEGER NOT NULL DEFAULT 0,
    sha256     TEXT NOT NULL DEFAULT '',
    error      TEXT NOT NULL DEFAULT '',
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;

CREATE TABLE tenant_export_chunks (
    tenant_id TEXT NOT NULL,
    export_id TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    data      BLOB NOT NULL,
    PRIMARY KEY (tenant_id, export_id, seq),
    FOREIGN KEY (tenant_id, export_id) REFERENCES tenant_exports (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;

-- +goose Down
DROP TABLE tenant_export_chunks;
DROP TABLE tenant_exports;
