package mcpserver

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
)

// ExportURITemplate names an archive of export_tenant as a resource.
const ExportURITemplate = "vitrine://tenants/{tenant_id}/exports/{id}"

// ExportURI is the resource URI of an archive.
func ExportURI(tenantID, id string) string { return "vitrine://tenants/" + tenantID + "/exports/" + id }

// exportWait is how long export_tenant waits for its archive, at most,
// before it answers it running.
const exportWait = 50 * time.Second

func exportTenantTools() []*Tool {
	return []*Tool{tenantTool(Tool{
		Name:        "export_tenant",
		Title:       "Export the company",
		Description: "Archive the whole company in the background (progress notified); answers a link readable for 24 hours.",
		Toolset:     "company", Op: service.OpExportTenant,
	}, func(ctx context.Context, svc *service.Service, a *service.Access, _ shapes.ExportTenantIn) (shapes.ExportTenantOut, error) {
		report := progressReporter(ctx)
		var (
			mu    sync.Mutex
			ended bool
		)
		progress := func(done, total int64) {
			mu.Lock()
			defer mu.Unlock()
			if report != nil && !ended { // no notification after the answer
				report(int(done), int(total))
			}
		}
		e, done, err := svc.StartTenantExport(ctx, a, progress)
		if err != nil {
			return shapes.ExportTenantOut{}, err
		}
		wait := exportWait
		if d, ok := ctx.Deadline(); ok {
			wait = min(wait, time.Until(d)-2*time.Second)
		}
		select {
		case <-done:
		case <-ctx.Done():
		case <-time.After(max(wait, 0)):
		}
		mu.Lock()
		ended = true
		mu.Unlock()
		if got, err := svc.TenantExport(context.WithoutCancel(ctx), a, e.ID); err == nil {
			e = got
		}
		return shapes.ExportTenantOut{ExportID: e.ID, Status: e.Status, Bytes: e.Bytes, SHA256: e.SHA256, Error: e.Error,
			URI: ExportURI(e.TenantID, e.ID), ExpiresAt: e.ExpiresAt}, nil
	})}
}

// readExport is the archive resource's adapter to the pipeline: the
// checks of export_tenant (membership, then tenants:delete), then the
// archive as a blob.
func (s *Server) readExport(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	out, requestID, err := s.handle(ctx, "resource read", "resources/read", req, func(ctx context.Context, svc *service.Service, caller *vitrine.Caller) (any, about, error) {
		uri := req.Params.URI
		rest, ok := strings.CutPrefix(uri, "vitrine://tenants/")
		tenantID, id, ok2 := strings.Cut(rest, "/exports/")
		if !ok || !ok2 || strings.Contains(id, "/") {
			return nil, about{}, vitrine.NotFound("Export")
		}
		ab := about{target: id}
		a, err := svc.Access(ctx, caller, tenantID)
		if err != nil {
			return nil, ab, err
		}
		ab.tenant = tenantID
		var buf bytes.Buffer
		if _, err := svc.ReadTenantExport(ctx, a, id, func(b []byte) error { _, err := buf.Write(b); return err }); err != nil {
			return nil, ab, err
		}
		return readResult(perCaller, &mcp.ResourceContents{URI: uri, MIMEType: "application/zip", Blob: buf.Bytes()}), ab, nil
	})
	if err != nil {
		return nil, resourceError(err, requestID, req.Params.URI)
	}
	return out.(*mcp.ReadResourceResult), nil
}
