-- +goose Up
-- Issue 48: a company's archives made by export_tenant, kept 24 hours for
-- their owner to download from any instance: the archive in chunks of up
-- to 1 MiB, so that neither writing nor reading one holds it whole.
CREATE TABLE tenant_exports (
    tenant_id  uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id         uuid NOT NULL,
    user_id    uuid NOT NULL,
    status     text NOT NULL CONSTRAINT tenant_exports_status CHECK (status IN ('running', 'done', 'failed')),
    bytes      bigint NOT NULL DEFAULT 0,
    sha256     text NOT NULL DEFAULT '',
    error      text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

CREATE TABLE tenant_export_chunks (
    tenant_id uuid NOT NULL,
    export_id uuid NOT NULL,
    seq       integer NOT NULL,
    data      bytea NOT NULL,
    PRIMARY KEY (tenant_id, export_id, seq),
    FOREIGN KEY (tenant_id, export_id) REFERENCES tenant_exports (tenant_id, id) ON DELETE CASCADE
);

ALTER TABLE tenant_exports ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_exports FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tenant_exports USING (app_all_tenants() OR tenant_id = app_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON tenant_exports TO vitrine_app;
ALTER TABLE tenant_export_chunks ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_export_chunks FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tenant_export_chunks USING (app_all_tenants() OR tenant_id = app_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON tenant_export_chunks TO vitrine_app;

-- +goose Down
DROP TABLE tenant_export_chunks;
DROP TABLE tenant_exports;
