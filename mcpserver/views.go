package mcpserver

import (
	"context"
	"embed"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// The views of MCP Apps (the extension io.modelcontextprotocol/ui): where a
// host renders them (Claude, ChatGPT, VS Code, ...), a person sees a
// product or a page of the catalog instead of reading its JSON. A view is
// a page built into the binary, served as a ui:// resource, and acts only
// through the host's tools/call: every call it makes comes back through
// the pipeline like an agent's. docs/views.md says what they show.
const (
	// UIExtension is the extension's identifier in a client's
	// capabilities.extensions.
	UIExtension = "io.modelcontextprotocol/ui"
	// ViewMIMEType is the type of a view's resource.
	ViewMIMEType = "text/html;profile=mcp-app"
	// ProductViewURI is the view of get_product's result.
	ProductViewURI = "ui://vitrine/product"
	// ProductListViewURI is the view of list_products' result.
	ProductListViewURI = "ui://vitrine/products"
)

//go:embed views
var viewFiles embed.FS

// view is one page, linked from the tool whose result it shows.
type view struct {
	uri, name, title, description string
	tool                          string
	// parts are the files of views/ the page inlines, after view.js,
	// which every page has.
	parts []string
	html  string
}

var views = []*view{
	{uri: ProductViewURI, name: "product-view", title: "Product view", tool: "get_product",
		description: "The view of get_product's result: photos, price, options and variants with their stock, and, for those who may, stock and status changes."},
	{uri: ProductListViewURI, name: "product-list-view", title: "Product list view", tool: "list_products", parts: []string{"list.js"},
		description: "The view of list_products' result: the page as cards or a table, its facets, the next page, and each product's view."},
}

func init() {
	for _, v := range views {
		v.html = viewPage(v.parts...)
		if !strings.Contains(v.html, viewImgSrc) {
			panic("views/shell.html's CSP lacks " + viewImgSrc) // viewHTML extends it
		}
	}
}

// viewPage is a view's page: the shell with its style and scripts inlined,
// so that the page is whole in one resource and asks the network for
// nothing (no CDN, no font).
func viewPage(parts ...string) string {
	read := func(name string) string {
		b, err := viewFiles.ReadFile("views/" + name)
		if err != nil {
			panic(err) // a file of the embedded tree: a build that lacks it is broken
		}
		return string(b)
	}
	js := read("view.js")
	for _, p := range parts {
		js += read(p)
	}
	return strings.NewReplacer("/*CSS*/", read("view.css"), "/*JS*/", js).Replace(read("shell.html"))
}

// ViewHTML returns the page served at a view's URI ("" for none), for the
// tests and the documentation's figures.
func ViewHTML(uri string) string {
	for _, v := range views {
		if v.uri == uri {
			return v.html
		}
	}
	return ""
}

// viewMeta is the _meta.ui of every view's resource. Its CSP lets the page
// load the images the shops name (any https URL: a shop's photos live on
// its own CDN, unknown in advance) and, from a server reached over plain
// http (make demo, on loopback), the images that server serves itself (the
// demo's photos); nothing else. No connectDomains, so a view reaches no
// server but through the host. The page's own CSP says the same again
// (shell.html), for a host that applies none.
func (s *Server) viewMeta() mcp.Meta {
	domains := []string{"https:"}
	if o := s.imagesOrigin(); o != "" {
		domains = append(domains, o)
	}
	return mcp.Meta{"ui": map[string]any{
		"csp":           map[string]any{"resourceDomains": domains},
		"prefersBorder": true,
	}}
}

// viewImgSrc is the img-src of the views' own CSP (shell.html).
const viewImgSrc = "img-src https: data:"

// viewHTML is the page of the view at uri as this server serves it: its
// CSP lets it load the images the server serves itself, as viewMeta's.
func (s *Server) viewHTML(uri string) string {
	html := ViewHTML(uri)
	if o := s.imagesOrigin(); o != "" {
		html = strings.Replace(html, viewImgSrc, viewImgSrc+" "+o, 1)
	}
	return html
}

// imagesOrigin is the origin of the images the server serves itself (the
// demo's, beside its icons) when "https:" does not already allow it: that
// of an http:// server; "" otherwise.
func (s *Server) imagesOrigin() string {
	u, err := url.Parse(s.opts.IconsURL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// addViews serves the views as resources. A view is the same for everyone
// and changes only with a release; reading one still goes through the
// pipeline, as every call does.
func (s *Server) addViews() {
	for _, v := range views {
		s.mcp.AddResource(&mcp.Resource{
			URI: v.uri, Name: v.name, Title: v.title, Description: v.description, MIMEType: ViewMIMEType, Meta: s.viewMeta(),
		}, s.readView)
	}
}

func (s *Server) readView(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	out, requestID, err := s.handle(ctx, "resource read", "resources/read", req, func(context.Context, *service.Service, *vitrine.Caller) (any, about, error) {
		html := s.viewHTML(uri)
		if html == "" {
			return nil, about{target: uri}, vitrine.NotFound("View")
		}
		return readResult(untilDeploy, &mcp.ResourceContents{URI: uri, MIMEType: ViewMIMEType, Text: html, Meta: s.viewMeta()}), about{target: uri}, nil
	})
	if err != nil {
		return nil, resourceError(err, requestID, uri)
	}
	return out.(*mcp.ReadResourceResult), nil
}

// showsViews reports whether the client of this request renders views: it
// declares the extension with the views' type. Since 2026-07-28 a client
// says so in every request (the SDK reads the request's _meta), before in
// its initialize.
func showsViews(req mcp.Request) bool {
	r, ok := req.(*mcp.ListToolsRequest)
	if !ok {
		return false
	}
	caps := r.ClientCapabilities()
	if caps == nil {
		return false
	}
	ui, ok := caps.Extensions[UIExtension].(map[string]any)
	if !ok {
		return false
	}
	switch types := ui["mimeTypes"].(type) {
	case []any:
		return slices.Contains(types, any(ViewMIMEType))
	case []string:
		return slices.Contains(types, ViewMIMEType)
	}
	return false
}

// withViews links each tool that has a view to it, in a copy of the
// definition, for a client that renders views (showsViews): the
// extension's _meta.ui.resourceUri and, for hosts that read only it, the
// older flat key ui/resourceUri. A client without the extension lists the
// tools exactly as before: the link would cost it context and nothing else.
// No tool is for the view alone (visibility): a view calls the tools an
// agent calls, with the same checks.
func withViews(tools []*mcp.Tool) []*mcp.Tool {
	out := slices.Clone(tools)
	for i, d := range out {
		for _, v := range views {
			if v.tool == d.Name {
				linked := *d
				linked.Meta = maps.Clone(d.Meta)
				if linked.Meta == nil {
					linked.Meta = mcp.Meta{}
				}
				linked.Meta["ui"] = map[string]any{"resourceUri": v.uri}
				linked.Meta["ui/resourceUri"] = v.uri
				out[i] = &linked
			}
		}
	}
	return out
}
