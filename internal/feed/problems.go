package feed

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/vitrine/vitrine"
)

// Problem is why a product (or one of its variants) cannot be published
// on a channel.
type Problem struct {
	Reason Reason
	// VariantID is the variant the problem is of; "" for the product (then
	// every variant of it is left out).
	VariantID string
	// Detail says what to fix, in a sentence an agent can act on.
	Detail string
}

// Reason names a kind of Problem.
type Reason string

// The reasons, in the order they are reported.
const (
	// NoProductURL: the window has no product page template, and the
	// channel's items need a link (a company-wide fix: update_shop).
	NoProductURL  Reason = "no_product_url"
	NoDescription Reason = "no_description"
	NoImage       Reason = "no_image"
	// ImageFormat: the product has images, none in a format the channel
	// takes (SVG, for one).
	ImageFormat  Reason = "image_format"
	NoBrand      Reason = "no_brand"
	PriceZero    Reason = "price_zero"
	TitleTooLong Reason = "title_too_long"
	// NoGender and NoAgeGroup: apparel without them, which Google refuses.
	NoGender   Reason = "no_gender"
	NoAgeGroup Reason = "no_age_group"
)

// Reasons lists every reason, in the order they are reported.
var Reasons = []Reason{NoProductURL, NoDescription, NoImage, ImageFormat, NoBrand, PriceZero, TitleTooLong, NoGender, NoAgeGroup}

// rules is what a channel requires of an item, from its specification.
type rules struct {
	url, image, brand, price bool
	// imageFormats are the image formats the channel takes (imageFormat's
	// names); nil for any.
	imageFormats []string
	// maxTitle bounds an item's title, in characters; 0 for no bound.
	maxTitle int
	// apparel: apparel needs a gender and an age group.
	apparel bool
}

// channelRules are the channels' requirements, from the versions of their
// specifications docs/feeds.md cites.
//
//   - ucp (UCP 2026-04-08, source/schemas/shopping/types/product.json and
//     variant.json): a product and a variant require id, title,
//     description (at least one format) and price; url and media are
//     optional, and a price is an amount of minimum 0. So only a missing
//     description keeps a product off it: an agent links to the product
//     through the catalog itself, not through the shop's page.
//   - google (Merchant Center's product data specification): id, title
//     (at most 150 characters), description, link, image_link (JPEG,
//     WebP, PNG, GIF, BMP or TIFF), price, availability, brand (new
//     products), condition; gender and age group for Apparel &
//     Accessories; GTIN and MPN only where the manufacturer assigned one,
//     which identifier_exists=no declares otherwise, so their absence
//     does not block an item.
//   - openai (OpenAI's Products reference for file upload): item_id,
//     title (at most 150 characters), description, url, brand,
//     seller_name, image_url (JPEG or PNG), availability and price; GTIN,
//     MPN, the countries and the rest are optional, so their absence does
//     not block an item.
var channelRules = map[string]rules{
	vitrine.ChannelUCP: {},
	vitrine.ChannelGoogle: {url: true, image: true, brand: true, price: true, maxTitle: 150, apparel: true,
		imageFormats: []string{"jpeg", "webp", "png", "gif", "bmp", "tiff"}},
	vitrine.ChannelOpenAI: {url: true, image: true, brand: true, price: true, maxTitle: 150,
		imageFormats: []string{"jpeg", "png"}},
}

// takesImage says whether a channel of rules r takes the image at u: its
// format is one r takes, or its URL does not say (the channel fetches it
// and judges).
func (r rules) takesImage(u string) bool {
	f := imageFormat(u)
	return r.imageFormats == nil || f == "" || slices.Contains(r.imageFormats, f)
}

// imageFormat names the format an image URL's file extension says ("png",
// "svg"), "" for one it does not (no extension, or another).
func imageFormat(u string) string {
	if pu, err := url.Parse(u); err == nil {
		u = pu.Path
	}
	switch strings.ToLower(path.Ext(u)) {
	case ".jpg", ".jpeg", ".jpe", ".jfif":
		return "jpeg"
	case ".png":
		return "png"
	case ".gif":
		return "gif"
	case ".bmp":
		return "bmp"
	case ".tif", ".tiff":
		return "tiff"
	case ".webp":
		return "webp"
	case ".svg", ".svgz":
		return "svg"
	case ".avif":
		return "avif"
	case ".heic", ".heif":
		return "heic"
	case ".ico":
		return "ico"
	}
	return ""
}

// Problems returns what keeps p off channel ("ucp", "google", "openai")
// in win (its Shop, Attributes and Categories are read); nil when none,
// or for a channel it does not know. Problems of the product come first,
// in the order of Reasons, then those of its variants. A feed leaves out
// exactly what they name.
func Problems(channel string, win *Window, p *vitrine.Product) []Problem {
	r, ok := channelRules[channel]
	if !ok || p == nil {
		return nil
	}
	w := Window{}
	if win != nil {
		w = *win
	}
	if w.Shop == nil {
		w.Shop = vitrine.NewShop(p.TenantID)
	}
	return problems(r, &w, productOf(&w, r, p, 1))
}

// problems is Problems on a channel of rules r of a product read by
// productOf for it.
func problems(r rules, win *Window, pr *product) []Problem {
	p, shop := pr.p, win.Shop
	var out []Problem
	add := func(reason Reason, variantID, format string, args ...any) {
		out = append(out, Problem{Reason: reason, VariantID: variantID, Detail: fmt.Sprintf(format, args...)})
	}
	if r.url && shop.ProductURL == "" {
		add(NoProductURL, "", "the window has no product page URL template: set product_url with update_shop, such as \"https://shop.example/products/{handle}\"")
	}
	if pr.description == "" {
		add(NoDescription, "", "the product has no description: write one with update_product")
	}
	if r.image && len(p.Media) == 0 {
		add(NoImage, "", "the product has no image: add one to its media with update_product")
	}
	if r.image && len(p.Media) > 0 && len(pr.images) == 0 {
		add(ImageFormat, "", "the product's images are %s, which the channel does not take: add a copy in %s to its media with update_product",
			strings.ToUpper(imageFormat(win.mediaURL(p.Media[0].URL))), formatNames(r.imageFormats))
	}
	if r.brand && pr.brand == "" {
		add(NoBrand, "", "the product has no vendor, which the channel shows as its brand: set vendor with update_product")
	}
	var noGender, noAge []*vitrine.Variant
	for _, v := range p.Variants {
		if r.price && v.Price <= 0 {
			add(PriceZero, v.ID, "variant %s has price zero: set its price with update_variant", variantName(p, v))
		}
		if r.maxTitle > 0 {
			if n := utf8.RuneCountInString(itemTitle(p, v)); n > r.maxTitle {
				add(TitleTooLong, v.ID, "the title of variant %s is %d characters with its options; the channel takes at most %d: shorten the product's name", variantName(p, v), n, r.maxTitle)
			}
		}
		if r.apparel && pr.apparel {
			attrs, _ := attrsOf(pr, v)
			if attrs["gender"] == "" {
				noGender = append(noGender, v)
			}
			if attrs["age_group"] == "" {
				noAge = append(noAge, v)
			}
		}
	}
	demographic := func(reason Reason, missing []*vitrine.Variant, what, values, key string) {
		if len(missing) == 0 {
			return
		}
		why := fmt.Sprintf("Google requires a %s (%s) of Apparel & Accessories, and reads the product as apparel by its type or categories (%s)", what, values, strings.Join(append([]string{clean(p.ProductType)}, pr.types...), ", "))
		fix := fmt.Sprintf("give the product a public attribute of key %s (or one update_shop's options map to %s), or an option of that name", key, strings.ReplaceAll(what, " ", "_"))
		if len(missing) == len(p.Variants) {
			add(reason, "", "the product has no %s: %s; %s", what, why, fix)
			return
		}
		for _, v := range missing {
			add(reason, v.ID, "variant %s has no %s Google knows: %s; set its option to one of %s", variantName(p, v), what, why, values)
		}
	}
	demographic(NoGender, noGender, "gender", "male, female, unisex; Masculino, Feminino, Unissex", "genero")
	demographic(NoAgeGroup, noAge, "age group", "newborn, infant, toddler, kids, adult; Adulto, Infantil", "faixa_etaria")
	slices.SortStableFunc(out, func(a, b Problem) int {
		if (a.VariantID == "") != (b.VariantID == "") {
			if a.VariantID == "" {
				return -1
			}
			return 1
		}
		return 0
	})
	return out
}

// formatNames names image formats for a sentence: "JPEG or PNG".
func formatNames(formats []string) string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = strings.ToUpper(f)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// variantName names a variant in a problem's detail: its options, its SKU
// or its id.
func variantName(p *vitrine.Product, v *vitrine.Variant) string {
	if w := variantWords(p, v); w != "" {
		return fmt.Sprintf("%q", w)
	}
	if v.SKU != "" {
		return v.SKU
	}
	return v.ID
}

// blocked returns, of problems, whether the product is left out whole,
// and which variants are.
func blocked(problems []Problem) (product bool, variants map[string]bool) {
	for _, pr := range problems {
		if pr.VariantID == "" {
			return true, nil
		}
		if variants == nil {
			variants = map[string]bool{}
		}
		variants[pr.VariantID] = true
	}
	return false, variants
}
