package mcpserver

import (
	"embed"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/svgfile"
)

// icons are the SVGs the server names: its own (vitrine.svg), one per
// toolset (vitrine.Toolset.Icon), and the discovery tool's (toolsets.svg).
// The binary serves them (Icons), so that a host fetches them from the
// server it connects to.
//
//go:embed icons/*.svg
var icons embed.FS

// serverIcon is the file of the server's own icon.
const serverIcon = "vitrine.svg"

// description says what the server is, beside its name, for a host's list
// of servers.
const description = "Your companies' product catalog: products, stock, teams and audit log."

// Icons serves the icon whose file name (vitrine.svg, products.svg, ...)
// is the request's path value "file", with the headers of an image that
// changes only with a release.
func Icons() http.Handler {
	return svgfile.Handler(icons, "icons")
}

// implementation is the server's identity, as initialize and server/discover
// give it (and, since 2026-07-28, the _meta of every result): its name, a
// description, and its icon at iconsURL. Without one (stdio) it names no
// icon: a data: URI would ride on every result.
func implementation(opts Options) *mcp.Implementation {
	impl := &mcp.Implementation{Name: "vitrine", Title: "Vitrine", Version: opts.Version, Description: description}
	if opts.IconsURL != "" {
		impl.Icons = []mcp.Icon{{Source: opts.IconsURL + serverIcon, MIMEType: "image/svg+xml", Sizes: []string{"any"}}}
	}
	return impl
}

// toolsetIcons names the icon of a tool's toolset at iconsURL; none
// without one (a data: URI on every tool would cost each conversation's
// context more than the tools' own text). The URL says the type, and the
// binary serves it with it: no mimeType, which every tool would repeat.
func toolsetIcons(iconsURL, toolset string) []mcp.Icon {
	if iconsURL == "" {
		return nil
	}
	file := "toolsets.svg"
	if ts, ok := vitrine.ToolsetNamed(toolset); ok {
		file = ts.Icon
	}
	return []mcp.Icon{{Source: iconsURL + file}}
}
