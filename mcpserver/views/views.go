// Package views holds the views of MCP Apps (the extension
// io.modelcontextprotocol/ui): where a host renders them (Claude, ChatGPT,
// VS Code, ...), a person sees a product or a page of the catalog instead of
// reading its JSON. A view is a page built into the binary (the files of
// this folder), served by mcpserver as a ui:// resource, and acts only
// through the host's tools/call: every call it makes comes back through
// the pipeline like an agent's. docs/views.md says what they show.
//
// This package knows the pages, their resources' metadata and which tools
// link to them; mcpserver serves them.
package views

import (
	"embed"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// Extension is the extension's identifier in a client's
	// capabilities.extensions.
	Extension = "io.modelcontextprotocol/ui"
	// MIMEType is the type of a view's resource.
	MIMEType = "text/html;profile=mcp-app"
	// ProductURI is the view of get_product's result.
	ProductURI = "ui://vitrine/product"
	// ProductListURI is the view of list_products' result.
	ProductListURI = "ui://vitrine/products"
)

//go:embed shell.html view.css view.js list.js
var files embed.FS

// View is one page, linked from the tool whose result it shows.
type View struct {
	URI, Name, Title, Description string
	// Tool is the tool whose result the page shows.
	Tool string
	// parts are the files the page inlines after view.js, which every
	// page has.
	parts []string
	html  string
}

// All are the views, in the order they are listed.
var All = []*View{
	{URI: ProductURI, Name: "product-view", Title: "Product view", Tool: "get_product",
		Description: "The view of get_product's result: photos, price, options and variants with their stock, and, for those who may, stock and status changes."},
	{URI: ProductListURI, Name: "product-list-view", Title: "Product list view", Tool: "list_products", parts: []string{"list.js"},
		Description: "The view of list_products' result: the page as cards or a table, its facets, the next page, and each product's view."},
}

func init() {
	for _, v := range All {
		v.html = page(v.parts...)
		if !strings.Contains(v.html, imgSrc) {
			panic("shell.html's CSP lacks " + imgSrc) // HTML extends it
		}
	}
}

// page is a view's page: the shell with its style and scripts inlined, so
// that the page is whole in one resource and asks the network for nothing
// (no CDN, no font).
func page(parts ...string) string {
	read := func(name string) string {
		b, err := files.ReadFile(name)
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

// imgSrc is the img-src of the views' own CSP (shell.html).
const imgSrc = "img-src https: data:"

// HTML returns the page served at a view's URI ("" for none). With an
// images origin (that of a server reached over plain http, which serves
// images itself: the demo's photos), the page's CSP lets it load them too,
// as Meta's does.
func HTML(uri, imagesOrigin string) string {
	for _, v := range All {
		if v.URI == uri {
			if imagesOrigin != "" {
				return strings.Replace(v.html, imgSrc, imgSrc+" "+imagesOrigin, 1)
			}
			return v.html
		}
	}
	return ""
}

// Meta is the _meta.ui of every view's resource. Its CSP lets the page
// load the images the shops name (any https URL: a shop's photos live on
// its own CDN, unknown in advance) and, with an images origin (that of a
// server reached over plain http: make demo, on loopback), the images that
// server serves itself (the demo's photos); nothing else. No
// connectDomains, so a view reaches no server but through the host. The
// page's own CSP says the same again (shell.html), for a host that applies
// none.
func Meta(imagesOrigin string) mcp.Meta {
	domains := []string{"https:"}
	if imagesOrigin != "" {
		domains = append(domains, imagesOrigin)
	}
	return mcp.Meta{"ui": map[string]any{
		"csp":           map[string]any{"resourceDomains": domains},
		"prefersBorder": true,
	}}
}

// Shown reports whether the client of this request renders views: it
// declares the extension with the views' type. Since 2026-07-28 a client
// says so in every request (the SDK reads the request's _meta), before in
// its initialize.
func Shown(req mcp.Request) bool {
	r, ok := req.(*mcp.ListToolsRequest)
	if !ok {
		return false
	}
	caps := r.ClientCapabilities()
	if caps == nil {
		return false
	}
	ui, ok := caps.Extensions[Extension].(map[string]any)
	if !ok {
		return false
	}
	switch types := ui["mimeTypes"].(type) {
	case []any:
		return slices.Contains(types, any(MIMEType))
	case []string:
		return slices.Contains(types, MIMEType)
	}
	return false
}

// Link links each tool that has a view to it, in a copy of the definition,
// for a client that renders views (Shown): the extension's
// _meta.ui.resourceUri and, for hosts that read only it, the older flat key
// ui/resourceUri. A client without the extension lists the tools exactly as
// before: the link would cost it context and nothing else. No tool is for
// the view alone (visibility): a view calls the tools an agent calls, with
// the same checks.
func Link(tools []*mcp.Tool) []*mcp.Tool {
	out := slices.Clone(tools)
	for i, d := range out {
		for _, v := range All {
			if v.Tool == d.Name {
				linked := *d
				linked.Meta = maps.Clone(d.Meta)
				if linked.Meta == nil {
					linked.Meta = mcp.Meta{}
				}
				linked.Meta["ui"] = map[string]any{"resourceUri": v.URI}
				linked.Meta["ui/resourceUri"] = v.URI
				out[i] = &linked
			}
		}
	}
	return out
}
