package vitrine

import (
	"fmt"
	"net/url"
	"slices"
)

// Media is an image of a product, kept by URL (never fetched).
type Media struct {
	URL      string `json:"url"`
	Alt      string `json:"alt,omitempty"`
	Position int    `json:"position"`
}

// Limits of a product's media.
const (
	MaxMedia     = 250
	MaxURLLength = 2048
	MaxAltLength = 512
)

// ValidateMediaURL checks an image's URL: absolute http or https, with a
// host. Vitrine keeps it and never fetches it.
func ValidateMediaURL(field, s string) (string, error) {
	s, err := ValidateText(field, s, MaxURLLength)
	if err != nil {
		return "", err
	}
	u, perr := url.Parse(s)
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", Invalid(field, "%s must be an http or https URL with a host, such as \"https://cdn.example.com/shirt.jpg\"; got %q", field, s)
	}
	return s, nil
}

func (p *Product) validateMedia() error {
	if len(p.Media) > MaxMedia {
		return Invalid("media", "a product has at most %d images; got %d", MaxMedia, len(p.Media))
	}
	seen := map[string]bool{}
	out := p.Media[:0]
	for i, m := range p.Media {
		f := fmt.Sprintf("media[%d]", i)
		var err error
		if m.URL, err = ValidateMediaURL(f+".url", m.URL); err != nil {
			return err
		}
		if m.Alt, err = ValidateText(f+".alt", m.Alt, MaxAltLength); err != nil {
			return err
		}
		if seen[m.URL] {
			return Invalid(f+".url", "the image %q is given twice", m.URL)
		}
		seen[m.URL] = true
		out = append(out, m)
	}
	slices.SortStableFunc(out, func(a, b Media) int {
		// Those without a position keep their place after those with one.
		switch {
		case a.Position == b.Position:
			return 0
		case a.Position == 0:
			return 1
		case b.Position == 0:
			return -1
		}
		return a.Position - b.Position
	})
	for i := range out {
		out[i].Position = i + 1
	}
	p.Media = out
	return nil
}
