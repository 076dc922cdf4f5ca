package service

import (
	"context"
	"fmt"
	"io"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/tenantarchive"
)

// A company's archive (internal/tenantarchive): the operator's export and
// import, and the owner's export (mcpserver's export_tenant).

// exportTenant writes t's archive to w. onRow, if set, is told of each row
// written, after the table counts have been read (total, the rows to come).
func (s *Service) exportTenant(ctx context.Context, t *vitrine.Tenant, w io.Writer, progress func(done, total int64)) (*tenantarchive.Manifest, error) {
	aw := tenantarchive.NewWriter(w, t.ID, t.Slug, s.now())
	sink := &countingSink{Writer: aw, progress: progress}
	if err := s.store.ExportTenant(ctx, t.ID, sink); err != nil {
		return nil, fmt.Errorf("export company %s: %w", t.Slug, err)
	}
	return aw.Close()
}

// countingSink reports progress as the rows go by. The store announces
// each table's count as it starts it; the total grows table by table.
type countingSink struct {
	*tenantarchive.Writer
	progress    func(done, total int64)
	done, total int64
}

func (c *countingSink) Table(name string, rows int64) error {
	c.total += rows
	return c.Writer.Table(name, rows)
}

func (c *countingSink) Row(r vitrine.TenantRow) error {
	if err := c.Writer.Row(r); err != nil {
		return err
	}
	c.done++
	if c.progress != nil && c.done%1000 == 0 {
		c.progress(c.done, c.total)
	}
	return nil
}

// ExportTenant writes the company's archive (by id or slug) to w.
func (o *Operator) ExportTenant(ctx context.Context, ref string, w io.Writer) (*tenantarchive.Manifest, error) {
	t, err := o.Tenant(ctx, ref)
	if err != nil {
		return nil, err
	}
	return o.s.exportTenant(ctx, t, w, nil)
}

// ImportTenant writes the company of the archive in r (size bytes) into the
// database, with slug instead of its own when given. It reads the archive
// twice: once to check every file against the manifest, then to write
// its rows in one transaction, which a file found altered meanwhile rolls
// back. The import is audited outside any company (vitrine audit list
// --outside), so that the company's own log stays the archive's.
func (o *Operator) ImportTenant(ctx context.Context, r io.ReaderAt, size int64, slug string) (*vitrine.TenantImported, *tenantarchive.Manifest, error) {
	ar, err := tenantarchive.Open(r, size)
	if err != nil {
		return nil, nil, err
	}
	if slug != "" {
		if slug, err = vitrine.ValidateSlug("slug", slug); err != nil {
			return nil, nil, err
		}
	}
	if err := ar.Verify(ctx); err != nil {
		return nil, nil, err
	}
	m := ar.Manifest()
	done, err := o.s.store.ImportTenant(ctx, vitrine.TenantSource{TenantID: m.TenantID, Slug: slug, Tables: ar.Tables(), Rows: ar.Rows})
	if err != nil {
		return nil, m, err
	}
	if err := o.recordOutside(ctx, m.TenantID); err != nil {
		return done, m, err
	}
	return done, m, nil
}
