package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/wire"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
)

// ExportURITemplate names an archive of export_tenant as a resource.
const ExportURITemplate = "vitrine://tenants/{tenant_id}/exports/{id}"

// ExportURI is the resource URI of an archive.
func ExportURI(tenantID, id string) string { return "vitrine://tenants/" + tenantID + "/exports/" + id }

// ExportRoute is the pattern at which the HTTP server serves ServeExport,
// an archive's download with the same bearer token as /mcp.
const ExportRoute = "GET /tenants/{tenant_id}/exports/{id}"

// ExportURL is where an archive is downloaded over HTTP from a server
// whose clients reach it at publicURL.
func ExportURL(publicURL, tenantID, id string) string {
	return strings.TrimSuffix(publicURL, "/") + "/tenants/" + tenantID + "/exports/" + id
}

// exportWait is how long export_tenant waits for its archive, at most,
// before it answers it running.
const exportWait = 50 * time.Second

// exportTenantTools makes export_tenant; its answer gives the archive's
// download URL too when the server is reached over HTTP at publicURL.
func exportTenantTools(publicURL string) []*Tool {
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
		out := shapes.ExportTenantOut{ExportID: e.ID, Status: e.Status, Bytes: e.Bytes, SHA256: e.SHA256, Error: e.Error,
			URI: ExportURI(e.TenantID, e.ID), ExpiresAt: e.ExpiresAt}
		if publicURL != "" {
			out.URL = ExportURL(publicURL, e.TenantID, e.ID)
		}
		return out, nil
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
		if _, err := svc.ReadTenantExport(ctx, a, id, func(_ *vitrine.TenantExport, b []byte) error { _, err := buf.Write(b); return err }); err != nil {
			return nil, ab, err
		}
		return readResult(perCaller, &mcp.ResourceContents{URI: uri, MIMEType: "application/zip", Blob: buf.Bytes()}), ab, nil
	})
	if err != nil {
		return nil, resourceError(err, requestID, req.Params.URI)
	}
	return out.(*mcp.ReadResourceResult), nil
}

// ServeExport is an archive's download over HTTP (ExportRoute), as
// resources/read reads it and through the same pipeline (audited as
// "GET export"): the caller is the request's TokenInfo, which the HTTP
// server's token check put in its context, as for /mcp. The zip streams
// from the database a chunk at a time, for as long as the client takes
// to read it (not within a call's timeout). An unknown, expired or other
// company's archive is 404, as is a company the caller is not a member of:
// the answer says nothing of whether it exists.
func (s *Server) ServeExport(w http.ResponseWriter, r *http.Request) {
	tenantID, id := r.PathValue("tenant_id"), r.PathValue("id")
	req := &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: ExportURI(tenantID, id)},
		Extra: &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header}}
	started := false
	_, requestID, err := s.handle(r.Context(), "export download", "GET export", req, func(ctx context.Context, svc *service.Service, caller *vitrine.Caller) (any, about, error) {
		ab := about{target: id}
		a, err := svc.Access(ctx, caller, tenantID)
		if err != nil {
			return nil, ab, err
		}
		ab.tenant = tenantID
		// The call's timeout bounds the checks, not the client's reading:
		// the stream ends when the client goes.
		stream, stop := context.WithCancel(context.WithoutCancel(ctx))
		defer stop()
		defer context.AfterFunc(r.Context(), stop)()
		_, err = svc.ReadTenantExport(stream, a, id, func(e *vitrine.TenantExport, b []byte) error {
			if !started {
				started = true
				writeExportHeaders(w.Header(), e)
				w.WriteHeader(http.StatusOK)
			}
			if r.Method == http.MethodHead {
				return errHeadOnly // the headers alone: no chunk read past the first
			}
			_, err := w.Write(b)
			return err
		})
		if errors.Is(err, errHeadOnly) {
			err = nil
		}
		return nil, ab, err
	})
	switch {
	case started:
		// Cut short after the headers: the connection ends before the
		// Content-Length announced, which the client sees.
	case err != nil:
		body := errorBodyOf(err, requestID)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(exportStatus(err))
		w.Write([]byte(wire.Compact(body)))
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}

// errHeadOnly ends the read of an archive whose headers alone were asked
// for (HEAD).
var errHeadOnly = errors.New("head only")

// writeExportHeaders are a finished archive's: its type, size and
// checksum (RFC 9530's Repr-Digest), a file name, and no cache.
func writeExportHeaders(h http.Header, e *vitrine.TenantExport) {
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Length", strconv.FormatInt(e.Bytes, 10))
	h.Set("Content-Disposition", `attachment; filename="export-`+e.ID+`.zip"`)
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if sum, err := hex.DecodeString(e.SHA256); err == nil && len(sum) > 0 {
		h.Set("Repr-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum)+":")
	}
}

// exportStatus is an HTTP status for a download's refusal. A company the
// caller is not a member of is 404, as an unknown archive is.
func exportStatus(err error) int {
	switch vitrine.TypeOf(err) {
	case vitrine.NotFoundError:
		return http.StatusNotFound
	case vitrine.PermissionError:
		return http.StatusForbidden
	case vitrine.ConflictError:
		return http.StatusConflict
	case vitrine.ValidationError:
		return http.StatusBadRequest
	}
	if errors.Is(err, vitrine.ErrNoMembership) {
		return http.StatusNotFound
	}
	if vitrine.AsError(err) != nil {
		return http.StatusForbidden
	}
	return http.StatusInternalServerError
}
