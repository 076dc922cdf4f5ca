package shopify

import (
	"slices"
	"strconv"

	"github.com/vitrine/vitrine"
)

// image reads a row's Image Src, Image Position and Image Alt Text.
func (r *Reader) image(b *builder, p *vitrine.Product, rw *row) {
	src, pos, alt := r.cell(rw, fImageSrc), r.cell(rw, fImagePos), r.cell(rw, fImageAlt)
	if src == "" {
		if pos != "" || alt != "" {
			b.note(rw.line, fImageSrc, "ignored: %s and %s without an %s", r.name(fImagePos), r.name(fImageAlt), r.name(fImageSrc))
		}
		return
	}
	m := vitrine.Media{URL: src, Alt: alt}
	if pos != "" {
		n, err := strconv.Atoi(pos)
		if err != nil || n < 0 {
			b.refuse(rw.line, fImagePos, "%s must be a whole number from 1; got %q", r.name(fImagePos), pos)
		}
		m.Position = n
	}
	p.Media = append(p.Media, m)
	// The row's line, for the notes of finishMedia.
	b.mediaLines = append(b.mediaLines, rw.line)
}

// finishMedia orders the images by Image Position (those without one after,
// in the file's order), keeps the first of images with one URL, adds the
// variants' images that are not among them, and numbers them from 1.
func (r *Reader) finishMedia(b *builder, p *vitrine.Product) {
	type img struct {
		m    vitrine.Media
		line int
	}
	imgs := make([]img, len(p.Media))
	for i, m := range p.Media {
		imgs[i] = img{m, b.mediaLines[i]}
	}
	slices.SortStableFunc(imgs, func(a, b img) int {
		switch {
		case a.m.Position == b.m.Position:
			return 0
		case a.m.Position == 0:
			return 1
		case b.m.Position == 0:
			return -1
		}
		return a.m.Position - b.m.Position
	})
	var media []vitrine.Media
	type first struct{ line, i int } // an URL's first image: its line, its index in media
	seen := map[string]first{}
	for _, im := range imgs {
		if f, ok := seen[im.m.URL]; ok {
			if media[f.i].Alt != im.m.Alt {
				b.note(im.line, fImageAlt, "ignored: the image %q is at line %d already, with the alt text %q", im.m.URL, f.line, media[f.i].Alt)
			}
			continue
		}
		seen[im.m.URL] = first{im.line, len(media)}
		media = append(media, im.m)
	}
	for _, v := range p.Variants {
		if _, ok := seen[v.Image]; v.Image != "" && !ok {
			seen[v.Image] = first{i: len(media)}
			media = append(media, vitrine.Media{URL: v.Image})
		}
	}
	for i := range media {
		media[i].Position = i + 1
	}
	p.Media = media
}
