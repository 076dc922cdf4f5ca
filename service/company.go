package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"time"

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
	if c.progress != nil {
		c.progress(c.done, c.total)
	}
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

// MaxTenantExportBytes bounds an archive export_tenant stores; a larger
// company is exported by the operator (vitrine tenant export).
const MaxTenantExportBytes = 64 << 20

// TenantExportTTL is how long an archive of export_tenant stays.
const TenantExportTTL = 24 * time.Hour

// StartTenantExport begins an archive of a's company, stored in the
// database in chunks (every instance serves it), in the background: it
// returns the running export at once, and done closes when it ends.
// progress, if set, is told of the rows written.
func (s *Service) StartTenantExport(ctx context.Context, a *Access, progress func(done, total int64)) (*vitrine.TenantExport, <-chan struct{}, error) {
	if err := a.Allow(OpExportTenant); err != nil {
		return nil, nil, err
	}
	t, err := s.store.TenantByID(ctx, a.TenantID)
	if err != nil {
		return nil, nil, err
	}
	now, user := s.now(), vitrine.NoTenant // the operator's: no one's
	if a.Caller != nil {
		user = a.Caller.User.ID
	}
	e := &vitrine.TenantExport{TenantID: t.ID, ID: vitrine.NewID(), UserID: user, Status: vitrine.ExportRunning, CreatedAt: now, ExpiresAt: now.Add(TenantExportTTL)}
	if err := s.store.CreateTenantExport(ctx, a.Change(), e); err != nil {
		return nil, nil, err
	}
	done := make(chan struct{})
	result := *e
	go func() {
		defer close(done)
		// The call may end before the export does.
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Hour)
		defer cancel()
		cw := &chunkWriter{ctx: bctx, store: s.store, e: &result, h: sha256.New()}
		_, err := s.exportTenant(bctx, t, cw, progress)
		if err == nil {
			err = cw.flush()
		}
		result.Status, result.Bytes, result.SHA256 = vitrine.ExportDone, cw.n, hex.EncodeToString(cw.h.Sum(nil))
		if err != nil {
			result.Status, result.Bytes, result.SHA256 = vitrine.ExportFailed, 0, ""
			result.Error = "the export failed; try again, or ask the operator (vitrine tenant export)"
			if vitrine.AsError(err) != nil {
				result.Error = vitrine.AsError(err).Message
			}
		}
		_ = s.store.FinishTenantExport(bctx, &result)
	}()
	return e, done, nil
}

// chunkWriter stores what it is written in chunks of
// vitrine.TenantExportChunk bytes.
type chunkWriter struct {
	ctx   context.Context
	store vitrine.Store
	e     *vitrine.TenantExport
	h     hash.Hash
	buf   []byte
	seq   int
	n     int64
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	if w.n+int64(len(p)) > MaxTenantExportBytes {
		return 0, vitrine.Invalid("tenant_id", "the company's archive passes %d MiB, the most export_tenant keeps: the operator exports it (vitrine tenant export)", MaxTenantExportBytes>>20)
	}
	w.h.Write(p)
	w.n += int64(len(p))
	w.buf = append(w.buf, p...)
	for len(w.buf) >= vitrine.TenantExportChunk {
		if err := w.store.AppendTenantExport(w.ctx, w.e.TenantID, w.e.ID, w.seq, w.buf[:vitrine.TenantExportChunk]); err != nil {
			return 0, err
		}
		w.seq++
		w.buf = append(w.buf[:0], w.buf[vitrine.TenantExportChunk:]...)
	}
	return len(p), nil
}

func (w *chunkWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	err := w.store.AppendTenantExport(w.ctx, w.e.TenantID, w.e.ID, w.seq, w.buf)
	w.seq++
	w.buf = w.buf[:0]
	return err
}

// TenantExport returns an export of a's company, to one who may export it.
func (s *Service) TenantExport(ctx context.Context, a *Access, id string) (*vitrine.TenantExport, error) {
	if err := a.Allow(OpExportTenant); err != nil {
		return nil, err
	}
	e, err := s.store.TenantExport(ctx, a.TenantID, id)
	if err != nil {
		return nil, err
	}
	if !s.now().Before(e.ExpiresAt) {
		return nil, vitrine.NotFound("Export")
	}
	return e, nil
}

// ReadTenantExport sends a finished export's archive to fn, a chunk at a
// time (read one statement each, never the whole archive at once), with
// the export it is of (its size and checksum, for the first chunk's
// headers): a running one is a ConflictError that says to read it again
// soon, a failed one one that says why.
func (s *Service) ReadTenantExport(ctx context.Context, a *Access, id string, fn func(e *vitrine.TenantExport, chunk []byte) error) (*vitrine.TenantExport, error) {
	e, err := s.TenantExport(ctx, a, id)
	if err != nil {
		return nil, err
	}
	switch e.Status {
	case vitrine.ExportRunning:
		return e, vitrine.Conflict("id", "The export is still being written: read it again in a moment")
	case vitrine.ExportFailed:
		return e, vitrine.Conflict("id", "The export failed: %s", e.Error)
	}
	return e, s.store.ReadTenantExport(ctx, a.TenantID, id, func(b []byte) error { return fn(e, b) })
}
