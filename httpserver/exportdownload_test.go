package httpserver_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/tenantarchive"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
)

// exportOut is export_tenant's answer, as the test reads it.
type exportOut struct {
	ExportID string `json:"export_id"`
	Status   string `json:"status"`
	URL      string `json:"url"`
	Bytes    int64  `json:"bytes"`
}

// served is the world served as `vitrine serve` serves it, at a public URL
// known before it starts (export_tenant's answer names it).
func (w *world) served(t *testing.T, opts httpserver.Options) *httptest.Server {
	hs := httptest.NewUnstartedServer(nil)
	public := "http://" + hs.Listener.Addr().String()
	opts.PublicURL = public
	hs.Config.Handler = serveHTTP(t, w.svc, w.server(mcpserver.Options{PublicURL: public}), opts)
	hs.Start()
	t.Cleanup(hs.Close)
	return hs
}

// exportTenant calls export_tenant over /mcp as the token's holder.
func exportTenant(t *testing.T, hs *httptest.Server, token, tenantID string) exportOut {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: hs.URL + httpserver.MCPPath, HTTPClient: testkit.BearerClient(token), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "export_tenant", Arguments: map[string]any{"tenant_id": tenantID}})
	if err != nil || res.IsError {
		t.Fatalf("export_tenant: %v %+v", err, res)
	}
	var out exportOut
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
		t.Fatal(err)
	}
	if out.Status != "done" {
		t.Fatalf("export_tenant: %+v", out)
	}
	if l, ok := res.Content[1].(*mcp.ResourceLink); !ok || !strings.Contains(l.Description, out.URL) {
		t.Errorf("the resource link does not say the URL %s: %+v", out.URL, res.Content[1])
	}
	return out
}

func get(t *testing.T, url, token string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return res, body
}

// The owner downloads export_tenant's archive with an HTTP GET of the URL
// its answer gives, with their own token: the zip whole (its size and
// checksum in the headers), the company's alone. Without a token it is
// 401; a member without tenants:delete is refused; another company's
// owner, an archive under another company, an unknown or expired one are
// all the same 404, which says nothing of whether it exists.
func TestExportDownload(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		hs := w.served(t, httpserver.Options{})
		technova, verdeID := w.tenants["technova"], w.tenants["mercado-verde"]
		out := exportTenant(t, hs, w.tokens[owner], technova)
		if want := hs.URL + "/tenants/" + technova + "/exports/" + out.ExportID; out.URL != want {
			t.Fatalf("url %q, want %q", out.URL, want)
		}

		res, body := get(t, out.URL, w.tokens[owner])
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/zip" ||
			res.Header.Get("Content-Disposition") != `attachment; filename="export-`+out.ExportID+`.zip"` ||
			!strings.Contains(res.Header.Get("Cache-Control"), "no-store") || res.ContentLength != out.Bytes {
			t.Fatalf("GET by the owner: %d %v", res.StatusCode, res.Header)
		}
		sum := sha256.Sum256(body)
		if res.Header.Get("Repr-Digest") != "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":" || int64(len(body)) != out.Bytes {
			t.Errorf("the archive's %d bytes, digest %s; the answer said %d bytes", len(body), res.Header.Get("Repr-Digest"), out.Bytes)
		}
		ar, err := tenantarchive.Open(bytes.NewReader(body), int64(len(body)))
		if err != nil {
			t.Fatal(err)
		}
		if err := ar.Verify(ctx); err != nil || ar.Manifest().TenantID != technova || ar.Manifest().Rows() == 0 {
			t.Errorf("the archive: %+v, %v", ar.Manifest(), err)
		}
		if bytes.Contains(body, []byte(verdeID)) {
			t.Error("the archive holds something of another company")
		}

		// HEAD: the same headers, no body.
		req, _ := http.NewRequest("HEAD", out.URL, nil)
		req.Header.Set("Authorization", "Bearer "+w.tokens[owner])
		head, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		head.Body.Close()
		if head.StatusCode != 200 || head.ContentLength != out.Bytes || head.Header.Get("Repr-Digest") != res.Header.Get("Repr-Digest") {
			t.Errorf("HEAD by the owner: %d %v", head.StatusCode, head.Header)
		}

		// Mercado Verde's own archive, to ask for under technova.
		verdeOut := exportTenant(t, hs, w.tokens[verde], verdeID)
		refused := map[string]struct {
			url, token string
			status     int
		}{
			"no token":                      {out.URL, "", 401},
			"a member without the right":    {out.URL, w.tokens[member], 403},
			"another company's owner":       {out.URL, w.tokens[verde], 404},
			"under another company":         {strings.Replace(out.URL, technova, verdeID, 1), w.tokens[verde], 404},
			"another company's, under ours": {strings.Replace(verdeOut.URL, verdeID, technova, 1), w.tokens[owner], 404},
			"unknown":                       {hs.URL + "/tenants/" + technova + "/exports/0000000000000000000000000", w.tokens[owner], 404},
			"malformed":                     {hs.URL + "/tenants/" + technova + "/exports/x", w.tokens[owner], 404},
		}
		for name, c := range refused {
			res, body := get(t, c.url, c.token)
			if res.StatusCode != c.status || res.Header.Get("Content-Type") == "application/zip" || bytes.Contains(body, []byte("PK")) {
				t.Errorf("%s: %d %s", name, res.StatusCode, body)
			}
		}
		// The refusal of another company's owner reads as an unknown archive's.
		_, unknown := get(t, refused["unknown"].url, w.tokens[owner])
		_, foreign := get(t, out.URL, w.tokens[verde])
		if !strings.Contains(string(unknown), "NotFoundError") || !strings.Contains(string(foreign), "not found") {
			t.Errorf("unknown: %s; another company's: %s", unknown, foreign)
		}

		// Expired, it is gone.
		dbtest.Exec(t, url, `UPDATE tenant_exports SET expires_at = created_at WHERE id = $1`, out.ExportID)
		if res, body := get(t, out.URL, w.tokens[owner]); res.StatusCode != 404 {
			t.Errorf("expired: %d %s", res.StatusCode, body)
		}

		// Each download is audited, as a read of the resource is.
		if err := w.svc.Audit().Flush(ctx); err != nil {
			t.Fatal(err)
		}
		events := dbtest.Query(t, url, `SELECT outcome FROM audit_events WHERE tool = 'GET export' AND target_id = $1 ORDER BY at, id`, out.ExportID)
		if len(events) != 7 || events[0][0] != "ok" || events[1][0] != "ok" || events[6][0] != "NotFoundError" {
			t.Errorf("audit of the downloads: %v", events)
		}
	})
}

// With OAuth on, an access token of the authorization server downloads the
// archive as the person it names.
func TestExportDownloadWithOAuth(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	is := newIssuer(t)
	hs := oauthServer(t, w, is, nil)
	token := is.token(map[string]any{"email": owner, "scope": strings.Join(vitrine.Scopes(false, []string{"company"}), " ")}, nil)
	out := exportTenant(t, hs, token, w.tenants["technova"])
	if res, body := get(t, out.URL, token); res.StatusCode != 200 || int64(len(body)) != out.Bytes {
		t.Errorf("GET with an OAuth token: %d, %d bytes of %d", res.StatusCode, len(body), out.Bytes)
	}
	if res, _ := get(t, out.URL, is.token(map[string]any{"email": verde}, nil)); res.StatusCode != 404 {
		t.Errorf("another company's owner with an OAuth token: %d", res.StatusCode)
	}
}
