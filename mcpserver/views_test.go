package mcpserver_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/mcpserver/views"
)

// uiCapabilities are those of a host that renders views (MCP Apps).
func uiCapabilities() *mcp.ClientCapabilities {
	c := &mcp.ClientCapabilities{}
	c.AddExtension(views.Extension, map[string]any{"mimeTypes": []string{views.MIMEType}})
	return c
}

// viewSession connects an SDK client with those capabilities (nil: none) as
// the holder of the token, over each transport: in memory, and through the
// HTTP handler vitrine serve mounts at each revision (2026-07-28, where the
// capabilities come with every request, and 2025-11-25, in a session).
func (w *world) viewSession(transport, token string, caps *mcp.ClientCapabilities) *mcp.ClientSession {
	w.t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{Capabilities: caps})
	var (
		t    mcp.Transport
		opts *mcp.ClientSessionOptions
	)
	switch transport {
	case "memory":
		st, ct := mcp.NewInMemoryTransports()
		ss, err := w.server(mcpserver.Options{Token: token}).MCP().Connect(ctx, st, nil)
		if err != nil {
			w.t.Fatal(err)
		}
		w.t.Cleanup(func() { ss.Close() })
		t = ct
	default:
		t = &mcp.StreamableClientTransport{Endpoint: w.http.URL + httpserver.MCPPath, HTTPClient: testkit.BearerClient(token), MaxRetries: -1}
		if transport == "http-sessions" {
			opts = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
		}
	}
	cs, err := client.Connect(ctx, t, opts)
	if err != nil {
		w.t.Fatalf("connect over %s: %v", transport, err)
	}
	w.t.Cleanup(func() { cs.Close() })
	return cs
}

// A host that declares the extension lists get_product and list_products
// linked to their views, by the extension's key and by the older flat one;
// no other tool carries _meta, and no tool is for the view alone. A client
// without the extension lists every tool without _meta, as before views.
func TestToolsLinkToTheirViews(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	want := map[string]string{"get_product": views.ProductURI, "list_products": views.ProductListURI}
	for _, transport := range transports {
		for _, caps := range []*mcp.ClientCapabilities{nil, uiCapabilities()} {
			res, err := w.viewSession(transport, w.tokens[owner], caps).ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range res.Tools {
				uri := want[tool.Name]
				if caps == nil || uri == "" {
					if tool.Meta != nil {
						t.Errorf("%s, extension %v: %s has _meta %v", transport, caps != nil, tool.Name, tool.Meta)
					}
					continue
				}
				ui, _ := tool.Meta["ui"].(map[string]any)
				if ui["resourceUri"] != uri || tool.Meta["ui/resourceUri"] != uri || len(ui) != 1 {
					t.Errorf("%s: %s has _meta %v, want its view %s", transport, tool.Name, tool.Meta, uri)
				}
			}
		}
	}
}

// A client that declares the extension for another type of page, or
// declares none, is not shown links.
func TestViewsNeedTheirType(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	other := &mcp.ClientCapabilities{}
	other.AddExtension(views.Extension, map[string]any{"mimeTypes": []string{"text/uri-list"}})
	bare := &mcp.ClientCapabilities{}
	bare.AddExtension(views.Extension, nil)
	for _, caps := range []*mcp.ClientCapabilities{other, bare} {
		res, err := w.viewSession("http", w.tokens[owner], caps).ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if tool.Meta != nil {
				t.Errorf("%v: %s has _meta %v", caps.Extensions, tool.Name, tool.Meta)
			}
		}
	}
}

// The links cost a host that shows views a few bytes of tools/list: the
// default grant and every toolset stay within their budgets
// (TestToolsListBudget: 52 KiB for every toolset until decided) for it too.
func TestViewsWithinTheBudget(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	for _, c := range []struct {
		grant    string
		toolsets []string
		max      int
	}{
		{"default grant", nil, 16 << 10},
		{"every toolset", []string{"all"}, 52 << 10}, // as TestToolsListBudget holds it (docs/decisions.md)
	} {
		opts := mcpserver.Options{IconsURL: "https://mcp.example.com/icons/", Token: w.token(owner, c.toolsets)}
		plain, err := w.connectWith(opts, nil).ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		linked, err := w.connectWith(opts, &mcp.ClientOptions{Capabilities: uiCapabilities()}).ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(plain)
		b, _ := json.Marshal(linked)
		t.Logf("tools/list, %s: %d bytes; with the views' links: %d (+%d)", c.grant, len(a), len(b), len(b)-len(a))
		if len(b) > c.max {
			t.Errorf("tools/list of the %s with the views' links is %d bytes, over the budget of %d", c.grant, len(b), c.max)
		}
	}
}

// Each view is a resource of the extension's type, listed and read whole:
// its _meta.ui (the CSP: images from any https URL, no connection; a
// border) on the listing and on the content, kept an hour by anyone (the
// same page for every caller until a release), over every transport. The
// page is self-contained and small: it names no URL to load, no external
// stylesheet, script or font.
func TestViewResources(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	wantMeta := `{"ui":{"csp":{"resourceDomains":["https:"]},"prefersBorder":true}}`
	for _, transport := range transports {
		cs := w.viewSession(transport, w.tokens[member], uiCapabilities())
		list, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]*mcp.Resource{}
		for _, r := range list.Resources {
			listed[r.URI] = r
		}
		for _, uri := range []string{views.ProductURI, views.ProductListURI} {
			r := listed[uri]
			if r == nil || r.MIMEType != views.MIMEType {
				t.Fatalf("%s: %s listed as %+v", transport, uri, r)
			}
			if m, _ := json.Marshal(r.Meta); string(m) != wantMeta {
				t.Errorf("%s: %s listed with _meta %s", transport, uri, m)
			}
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				t.Fatalf("%s: read %s: %v", transport, uri, err)
			}
			if res.CacheScope != "public" || res.TTLMs != 3600000 {
				t.Errorf("%s: %s kept %q %d", transport, uri, res.CacheScope, res.TTLMs)
			}
			c := res.Contents[0]
			if len(res.Contents) != 1 || c.URI != uri || c.MIMEType != views.MIMEType || c.Text != views.HTML(uri, "") {
				t.Errorf("%s: %s read as %d contents, %s %s", transport, uri, len(res.Contents), c.URI, c.MIMEType)
			}
			if m, _ := json.Marshal(c.Meta); string(m) != wantMeta {
				t.Errorf("%s: %s read with _meta %s", transport, uri, m)
			}
		}
		_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ui://vitrine/nothing"})
		if err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("%s: an unknown view: %v", transport, err)
		}
	}
	for _, uri := range []string{views.ProductURI, views.ProductListURI} {
		html := views.HTML(uri, "")
		t.Logf("%s: %d bytes", uri, len(html))
		if len(html) > 32<<10 {
			t.Errorf("%s is %d bytes, over 32 KiB", uri, len(html))
		}
		if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?[a-z]+:|@import|url\(|<link|/\*(CSS|JS)\*/`).FindString(html); m != "" {
			t.Errorf("%s is not self-contained: %q", uri, m)
		}
		if !strings.Contains(html, `connect-src 'none'`) {
			t.Errorf("%s: its own CSP lets it connect", uri)
		}
	}
	if strings.Contains(views.HTML(views.ProductURI, ""), "function renderList") {
		t.Error("the product view carries the list's script")
	}
}

// A view's text is the catalog's text: the pages never hand data to an
// HTML parser but the inert one that strips the description's tags.
func TestViewsRenderTextAsText(t *testing.T) {
	for _, uri := range []string{views.ProductURI, views.ProductListURI} {
		html := views.HTML(uri, "")
		if m := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function`).FindString(html); m != "" {
			t.Errorf("%s uses %s", uri, m)
		}
	}
}
