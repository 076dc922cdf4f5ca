package demo

import (
	"embed"
	"net/http"
	"strings"
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
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("file")
		svg, err := images.ReadFile("images/" + name)
		if err != nil || strings.Contains(name, "/") {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "image/svg+xml")
		h.Set("Cache-Control", "public, max-age=86400")
		// An SVG opened by itself runs no script and loads nothing.
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		h.Set("X-Content-Type-Options", "nosniff")
		w.Write(svg)
	})
}
