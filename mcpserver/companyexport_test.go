package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/tenantarchive"
	"github.com/vitrine/vitrine/internal/testkit"
)

// export_tenant: the owner's alone; progress notified; its answer links a
// resource that the owner reads as the company's archive, whole and of
// that company alone; another company's owner reads nothing of it.
func TestExportTenant(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		var (
			mu       sync.Mutex
			progress int
		)
		client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				defer mu.Unlock()
				if r.Params.ProgressToken == "export-1" {
					progress++
				}
			}})
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: w.http.URL + httpserver.MCPPath, HTTPClient: testkit.BearerClient(w.token(owner, []string{"all"})), MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		params := &mcp.CallToolParams{Name: "export_tenant", Arguments: map[string]any{"tenant_id": technova}}
		params.SetProgressToken("export-1")
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			t.Fatalf("export_tenant: %v %+v", err, res)
		}
		var out struct {
			ExportID, Status, URI, SHA256 string
			Bytes                         int64
		}
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
			t.Fatal(err)
		}
		if out.Status != "done" || out.Bytes == 0 || !strings.HasPrefix(out.URI, "vitrine://tenants/"+technova+"/exports/") {
			t.Fatalf("answer: %+v", out)
		}
		if len(res.Content) != 2 {
			t.Fatalf("no resource link: %+v", res.Content)
		}
		if l, ok := res.Content[1].(*mcp.ResourceLink); !ok || l.URI != out.URI {
			t.Errorf("the link: %+v", res.Content[1])
		}
		read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: out.URI})
		if err != nil {
			t.Fatal(err)
		}
		blob := read.Contents[0].Blob
		if int64(len(blob)) != out.Bytes {
			t.Errorf("read %d bytes of %d", len(blob), out.Bytes)
		}
		ar, err := tenantarchive.Open(bytes.NewReader(blob), int64(len(blob)))
		if err != nil {
			t.Fatal(err)
		}
		if err := ar.Verify(ctx); err != nil || ar.Manifest().TenantID != technova || ar.Manifest().Rows() == 0 {
			t.Errorf("the archive: %+v, %v", ar.Manifest(), err)
		}
		if bytes.Contains(blob, []byte(w.tenants["mercado-verde"])) {
			t.Error("the archive holds something of another company")
		}
		mu.Lock()
		if progress == 0 {
			t.Error("no progress notified")
		}
		mu.Unlock()

		// An admin may not; another company's owner reads nothing.
		admin := w.sessionWithToken("memory", w.token(admin, []string{"all"}))
		if res, err := admin.CallTool(ctx, &mcp.CallToolParams{Name: "export_tenant", Arguments: map[string]any{"tenant_id": technova}}); err != nil || !res.IsError ||
			!strings.Contains(res.Content[0].(*mcp.TextContent).Text, "PermissionError") {
			t.Errorf("an admin's export: %v %+v", err, res)
		}
		if _, err := admin.ReadResource(ctx, &mcp.ReadResourceParams{URI: out.URI}); err == nil {
			t.Error("an admin read the archive")
		}
		verde := w.sessionWithToken("memory", w.token(verde, []string{"all"}))
		if _, err := verde.ReadResource(ctx, &mcp.ReadResourceParams{URI: out.URI}); err == nil {
			t.Error("another company's owner read the archive")
		}
		if _, err := verde.ReadResource(ctx, &mcp.ReadResourceParams{URI: strings.Replace(out.URI, technova, w.tenants["mercado-verde"], 1)}); err == nil {
			t.Error("the archive read under another company")
		}
	})
}
