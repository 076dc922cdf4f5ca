package shopwindow

import (
	"bytes"
	"context"
	"encoding/xml"
	"time"
)

// A window's sitemap (sitemaps.org's protocol, 0.9): its home page and the
// page of each of its active products, with the time the product last
// changed. One file holds at most 50,000 URLs, the protocol's bound: a
// catalog past that lists its first 50,000 products by creation.
const (
	maxSitemapURLs = 50_000
	sitemapPage    = 500
)

// sitemap writes the window's sitemap.
func (s *Server) sitemap(ctx context.Context, buf *bytes.Buffer, win *Window) error {
	buf.WriteString(xml.Header + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	writeURL := func(loc string, mod time.Time) {
		buf.WriteString("<url><loc>")
		xml.EscapeText(buf, []byte(loc))
		buf.WriteString("</loc>")
		if !mod.IsZero() {
			buf.WriteString("<lastmod>" + mod.UTC().Format(time.RFC3339) + "</lastmod>")
		}
		buf.WriteString("</url>\n")
	}
	writeURL(win.link("/", nil), time.Time{})
	n, after := 1, ""
	for n < maxSitemapURLs {
		ps, next, err := s.catalog.publishedProducts(ctx, win, after, min(sitemapPage, maxSitemapURLs-n))
		if err != nil {
			return err
		}
		for _, p := range ps {
			writeURL(win.pageURL(p.Handle), p.UpdatedAt)
			n++
		}
		if next == "" {
			break
		}
		after = next
	}
	buf.WriteString("</urlset>\n")
	return nil
}
