package demo

import (
	"embed"
	"net/http"
	"strings"

	"github.com/vitrine/vitrine/internal/svgfile"
)

// ImagesPath is where the HTTP server serves the demo's images.
const ImagesPath = "/demo/images/"

// ImagesURL is where a server whose clients reach it at baseURL (its
// public URL) serves the demo's images.
func ImagesURL(baseURL string) string { return strings.TrimSuffix(baseURL, "/") + ImagesPath }

// images are the demo products' photos: small SVG drawings, in the
// binary, so that the demo shows pictures with no network beyond the
// server's.
//
//go:embed images/*.svg
var images embed.FS

// Images serves the image whose file name (camiseta-azul.svg, ...) is the
// request's path value "file", with the headers of an image that changes
// only with a release.
func Images() http.Handler {
	return svgfile.Handler(images, "images")
}
