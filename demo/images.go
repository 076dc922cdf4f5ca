package demo

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

// ImagesPath is where the HTTP server serves the demo's images.
const ImagesPath = "/demo/images/"

// ImagesURL is where a server whose clients reach it at baseURL (its
// public URL) serves the demo's images.
func ImagesURL(baseURL string) string { return strings.TrimSuffix(baseURL, "/") + ImagesPath }

// images are the demo products' photos: small PNG drawings (400 × 400, a
// few KB each), in the binary, so that the demo shows pictures with no
// network beyond the server's. PNG, not SVG: it is a format every channel
// the feeds publish to takes (Google's JPEG, PNG, GIF, BMP, TIFF and WebP;
// OpenAI's JPEG and PNG), so that the demo's feeds are ready as they are.
//
//go:embed images/*.png
var images embed.FS

// Images serves the image whose file name (camiseta-azul.png, ...) is the
// request's path value "file", with the headers of an image that changes
// only with a release; any other path is a 404.
func Images() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("file")
		if strings.Contains(name, "/") || !strings.HasSuffix(name, ".png") {
			http.NotFound(w, r)
			return
		}
		png, err := fs.ReadFile(images, "images/"+name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "image/png")
		h.Set("Cache-Control", "public, max-age=86400")
		h.Set("X-Content-Type-Options", "nosniff")
		w.Write(png)
	})
}
