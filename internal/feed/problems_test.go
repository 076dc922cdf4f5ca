package feed_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/feed"
)

func reasonsOf(ps []feed.Problem) []feed.Reason {
	var out []feed.Reason
	for _, p := range ps {
		out = append(out, p.Reason)
	}
	return out
}

// Images in a format a channel does not take are not sent to it; a
// product with no other is refused, and the problem says the fix. Google
// takes JPEG, WebP, PNG, GIF, BMP and TIFF; OpenAI JPEG and PNG; neither
// SVG.
func TestImagesInFormatsTheChannelTakes(t *testing.T) {
	win := window()
	p := shirt(shirtID)
	p.Media = []vitrine.Media{{URL: "/demo/images/shirt.svg"}}
	for _, ch := range []string{vitrine.ChannelGoogle, vitrine.ChannelOpenAI} {
		ps := feed.Problems(ch, &win, p)
		if !slices.Equal(reasonsOf(ps), []feed.Reason{feed.ImageFormat}) || !strings.Contains(ps[0].Detail, "SVG") ||
			!strings.Contains(ps[0].Detail, "PNG") || !strings.Contains(ps[0].Detail, "update_product") {
			t.Errorf("%s, SVG only: %+v", ch, ps)
		}
	}
	if ps := feed.Problems(vitrine.ChannelUCP, &win, p); ps != nil {
		t.Errorf("ucp, whose media are optional: %+v", ps)
	}
	src := &memSource{products: []*vitrine.Product{p}}
	if n := len(parseGoogle(t, writeFeed(t, win, src, feed.Google))); n != 0 {
		t.Errorf("SVG only: %d Google items", n)
	}
	if n := len(parseOpenAI(t, writeFeed(t, win, src, feed.OpenAI))); n != 0 {
		t.Errorf("SVG only: %d OpenAI items", n)
	}

	// WebP: Google's, not OpenAI's.
	p.Media = []vitrine.Media{{URL: "https://cdn.example/shirt.webp?v=2"}}
	if ps := feed.Problems(vitrine.ChannelGoogle, &win, p); ps != nil {
		t.Errorf("google, WebP: %+v", ps)
	}
	if ps := feed.Problems(vitrine.ChannelOpenAI, &win, p); !slices.Equal(reasonsOf(ps), []feed.Reason{feed.ImageFormat}) {
		t.Errorf("openai, WebP: %+v", ps)
	}

	// An SVG beside a JPEG: the item goes, with the JPEG alone, even where
	// the variant's own image is the SVG.
	p.Media = []vitrine.Media{{URL: "/demo/images/shirt.svg"}, {URL: "https://cdn.example/shirt.jpg"}, {URL: "https://cdn.example/photo"}}
	p.Variants[0].Image = "/demo/images/shirt.svg"
	for _, ch := range vitrine.ShopChannels {
		if ps := feed.Problems(ch, &win, p); ps != nil {
			t.Errorf("%s, an SVG and a JPEG: %+v", ch, ps)
		}
	}
	it := parseGoogle(t, writeFeed(t, win, src, feed.Google))[shirtID+"-v1"]
	if it.ImageLink != "https://cdn.example/shirt.jpg" || !slices.Equal(it.AdditionalImages, []string{"https://cdn.example/photo"}) {
		t.Errorf("images sent: %q, %q; want the JPEG, then the one whose format its URL does not say", it.ImageLink, it.AdditionalImages)
	}
}

// Google requires a gender and an age group of Apparel & Accessories: a
// product whose type or categories say apparel is refused without them,
// with the fix; OpenAI makes them optional. They come from an option or a
// public attribute the window maps.
func TestApparelNeedsGenderAndAgeGroup(t *testing.T) {
	win := window()
	p := shirt(shirtID)
	delete(p.Attributes, "genero")
	delete(p.Attributes, "age_group")
	ps := feed.Problems(vitrine.ChannelGoogle, &win, p)
	if !slices.Equal(reasonsOf(ps), []feed.Reason{feed.NoGender, feed.NoAgeGroup}) {
		t.Fatalf("apparel without gender and age group: %v", reasonsOf(ps))
	}
	for _, pr := range ps {
		if pr.VariantID != "" || !strings.Contains(pr.Detail, "Vestuário > Camisetas") || !strings.Contains(pr.Detail, "update_shop") {
			t.Errorf("%s: %+v; want the product's, saying why and the fix", pr.Reason, pr)
		}
	}
	if ps := feed.Problems(vitrine.ChannelOpenAI, &win, p); ps != nil {
		t.Errorf("openai, where they are optional: %+v", ps)
	}
	src := &memSource{products: []*vitrine.Product{p}}
	if n := len(parseGoogle(t, writeFeed(t, win, src, feed.Google))); n != 0 {
		t.Errorf("Google's feed has %d items of apparel without gender", n)
	}
	if n := len(parseOpenAI(t, writeFeed(t, win, src, feed.OpenAI))); n != 2 {
		t.Errorf("OpenAI's feed has %d items; want both variants", n)
	}

	// An option gives the gender: a variant whose value the surfaces do
	// not know is refused alone.
	p.Options = append(p.Options, vitrine.Option{Name: "Gênero", Values: []string{"Feminino", "Outro"}})
	p.Variants[0].Options["Gênero"], p.Variants[1].Options["Gênero"] = "Feminino", "Outro"
	p.Attributes["age_group"] = "Adulto"
	ps = feed.Problems(vitrine.ChannelGoogle, &win, p)
	if len(ps) != 1 || ps[0].Reason != feed.NoGender || ps[0].VariantID != p.Variants[1].ID {
		t.Errorf("one variant of an unknown gender: %+v", ps)
	}
	if items := parseGoogle(t, writeFeed(t, win, src, feed.Google)); !slices.Equal(slices.Collect(maps.Keys(items)), []string{shirtID + "-v1"}) {
		t.Errorf("Google's items %v; want the variant of a known gender", slices.Collect(maps.Keys(items)))
	}

	// Not apparel: a mug needs neither.
	if ps := feed.Problems(vitrine.ChannelGoogle, &win, mug(mugID)); ps != nil {
		t.Errorf("a mug: %+v", ps)
	}
	// A product type alone says apparel too.
	m := mug(mugID)
	m.ProductType = "Bonés"
	if got := reasonsOf(feed.Problems(vitrine.ChannelGoogle, &win, m)); !slices.Equal(got, []feed.Reason{feed.NoGender, feed.NoAgeGroup}) {
		t.Errorf("a cap: %v", got)
	}
}

// Google and OpenAI take titles of at most 150 characters, the variant's
// words included: a longer one is refused on both, variant by variant.
func TestTitlesTooLong(t *testing.T) {
	win := window()
	p := shirt(shirtID)
	p.Name = strings.Repeat("a", 139) // 139 characters: 150 with " — M / Azul", 151 with " — GG / Azul"
	p.Variants[1].Options["Tamanho"] = "GG"
	for _, ch := range []string{vitrine.ChannelGoogle, vitrine.ChannelOpenAI} {
		ps := feed.Problems(ch, &win, p)
		if len(ps) != 1 || ps[0].Reason != feed.TitleTooLong || ps[0].VariantID != p.Variants[1].ID || !strings.Contains(ps[0].Detail, "at most 150") {
			t.Errorf("%s: %+v", ch, ps)
		}
	}
	if ps := feed.Problems(vitrine.ChannelUCP, &win, p); ps != nil {
		t.Errorf("ucp: %+v", ps)
	}
}
