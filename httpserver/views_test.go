package httpserver_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/mcpserver/views"
)

// Since 2026-07-28 a client states its capabilities in each request, and
// tools/list follows the request alone: the same token lists the tools
// linked to their views when the request declares the extension, and
// without the links when the next one does not. A view is read through the
// same handler, public for an hour.
func TestViewsPerRequest(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	hs := httptest.NewServer(serveHTTP(t, w.svc, w.server(mcpserver.Options{}), httpserver.Options{}))
	defer hs.Close()
	token := w.tokens[owner]
	ui := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` +
		`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}}`
	for _, c := range []struct {
		meta  string
		links bool
	}{{ui, true}, {meta2026, false}, {ui, true}} {
		_, msgs := rpc2026(t, hs.URL, token, "tools/list", `{"_meta":`+c.meta+`}`)
		tools, _ := result(t, "tools/list", msgs)["tools"].([]any)
		linked := 0
		for _, tool := range tools {
			m, _ := tool.(map[string]any)
			if meta, ok := m["_meta"].(map[string]any); ok {
				linked++
				if uri, _ := meta["ui/resourceUri"].(string); !strings.HasPrefix(uri, "ui://vitrine/") {
					t.Errorf("%s: _meta %v", m["name"], meta)
				}
			}
		}
		if want := map[bool]int{true: 2, false: 0}[c.links]; linked != want {
			t.Errorf("extension declared %v: %d tools linked, want %d", c.links, linked, want)
		}
	}
	_, msgs := rpc2026(t, hs.URL, token, "resources/read", `{"uri":"`+views.ProductURI+`"}`)
	r := result(t, "resources/read", msgs)
	content, _ := r["contents"].([]any)
	if len(content) != 1 || r["cacheScope"] != "public" || r["ttlMs"] != float64(3600000) {
		t.Fatalf("read the product view: %v", r)
	}
	if c := content[0].(map[string]any); c["mimeType"] != views.MIMEType || !strings.HasPrefix(c["text"].(string), "<!doctype html>") {
		t.Errorf("the product view read as %v", c["mimeType"])
	}
}
