package vitrine

import (
	"context"
	"time"
)

// A company's whole life: its data taken out in one archive and brought
// into another Vitrine (docs/storage.md, "A company's archive").

// TenantRow is one row of a company's table, by column: a string, an
// int64 (booleans too, as 0 or 1), []byte, nil, or a time written as fixed-width UTC text
// (2026-11-30T06:03:19.123456Z). The same rows read the same on both
// databases, whatever their column types.
type TenantRow = map[string]any

// TenantTable is a table that holds a company's rows, and whether the
// archive carries them.
type TenantTable struct {
	Name string
	// Excluded is why the archive leaves the table out; empty when it
	// carries it.
	Excluded string
}

// TenantSink receives a company's rows, table by table.
type TenantSink interface {
	// Table starts a table of rows rows.
	Table(name string, rows int64) error
	Row(TenantRow) error
}

// TenantSource is an archive's rows, for ImportTenant.
type TenantSource struct {
	TenantID string
	// Slug, when set, is the company's slug in the database written
	// (another than its own, taken there).
	Slug string
	// Tables are the archive's tables.
	Tables []string
	// Rows calls each with every row of the table, in the archive's
	// order.
	Rows func(ctx context.Context, table string, each func(TenantRow) error) error
}

// TenantImported says what ImportTenant wrote.
type TenantImported struct {
	Tenant *Tenant
	// Rows counts the rows written per table.
	Rows map[string]int64
	// Users are the emails of the users it created (none had them),
	// whose memberships it wrote as invited.
	Users []string
}

// TenantArchiveStore takes a company's data out, and brings it in.
type TenantArchiveStore interface {
	// TenantTables are the tables of the schema that hold a company's
	// rows, in an order where each comes after those it refers to.
	TenantTables(ctx context.Context) ([]TenantTable, error)
	// ExportTenant sends every row of the tenant's tables, but those
	// excluded, to sink, as one snapshot of them. A membership's row
	// carries its user's email and name.
	ExportTenant(ctx context.Context, tenantID string, sink TenantSink) error
	// ImportTenant writes a company's rows in one transaction: all of
	// them, or nothing. A company that exists is a ConflictError, as is
	// a slug taken; a row of another company a ValidationError. Members
	// are matched to users by email; a user who has no account gets one
	// (with the archive's id, when free), and an invited membership.
	ImportTenant(ctx context.Context, src TenantSource) (*TenantImported, error)
}

// TenantExport is an archive of a company that export_tenant made, kept
// for its owner to download until it expires.
type TenantExport struct {
	TenantID, ID string
	UserID       string // who asked for it
	Status       string // ExportRunning, ExportDone or ExportFailed
	Bytes        int64
	SHA256       string
	Error        string // why it failed
	CreatedAt    time.Time
	ExpiresAt    time.Time
}

// A TenantExport's statuses.
const (
	ExportRunning = "running"
	ExportDone    = "done"
	ExportFailed  = "failed"
)

// TenantExportChunk bounds one stored piece of an archive.
const TenantExportChunk = 1 << 20

// TenantExportStore keeps the archives of export_tenant, in chunks, where
// every instance reads them.
type TenantExportStore interface {
	// CreateTenantExport stores a new, running export (its change's
	// event with it), and removes the company's expired ones.
	CreateTenantExport(ctx context.Context, ch Change, e *TenantExport) error
	// AppendTenantExport stores the chunk seq (from 0) of an export.
	AppendTenantExport(ctx context.Context, tenantID, id string, seq int, data []byte) error
	// FinishTenantExport writes an export's status, size, checksum and
	// error.
	FinishTenantExport(ctx context.Context, e *TenantExport) error
	// TenantExport returns an export, or NotFoundError.
	TenantExport(ctx context.Context, tenantID, id string) (*TenantExport, error)
	// ReadTenantExport calls fn with each chunk of an export, in order,
	// reading one at a time.
	ReadTenantExport(ctx context.Context, tenantID, id string, fn func([]byte) error) error
}
