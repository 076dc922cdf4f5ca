// Package svgfile serves SVG images built into the binary (the icons)
// with the headers of an image that changes only with a
// release and cannot act when opened by itself.
package svgfile

import (
	"io/fs"
	"net/http"
	"strings"
)

// Handler serves the file of dir in files whose name is the request's path
// value "file"; any other path is a 404.
func Handler(files fs.FS, dir string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("file")
		if strings.Contains(name, "/") {
			http.NotFound(w, r)
			return
		}
		svg, err := fs.ReadFile(files, dir+"/"+name)
		if err != nil {
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
