package feed

import (
	"fmt"
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
	NoProductURL Reason = "no_product_url"
	// NoCountry: the window names no country it sells to, and the channel
	// needs it (a company-wide fix: update_shop).
	NoCountry     Reason = "no_country"
	NoDescription Reason = "no_description"
	NoImage       Reason = "no_image"
	NoBrand       Reason = "no_brand"
	PriceZero     Reason = "price_zero"
	TitleTooLong  Reason = "title_too_long"
	NoGTINOrMPN   Reason = "no_gtin_or_mpn"
)

// Reasons lists every reason, in the order they are reported.
var Reasons = []Reason{NoProductURL, NoCountry, NoDescription, NoImage, NoBrand, PriceZero, TitleTooLong, NoGTINOrMPN}

// rules is what a channel requires of an item, from its specification.
type rules struct {
	url, country, image, brand, price, gtinOrMPN bool
	// maxTitle bounds an item's title, in characters; 0 for no bound.
	maxTitle int
}

// channelRules are the channels' requirements.
//
//   - ucp (UCP 2026-04-08, source/schemas/shopping/types/product.json and
//     variant.json): a product and a variant require id, title,
//     description (at least one format) and price; url and media are
//     optional, and a price is an amount of minimum 0. So only a missing
//     description keeps a product off it: an agent links to the product
//     through the catalog itself, not through the shop's page.
//   - google (Merchant Center's product data specification): id, title
//     (at most 150 characters), description, link, image_link, price,
//     availability, brand (new products), condition; GTIN and MPN only
//     where the manufacturer assigned one, which identifier_exists=no
//     declares otherwise, so their absence does not block an item.
//   - openai (OpenAI's product feed specification): item_id, title (at
//     most 150 characters), description, url, brand, image_url, price,
//     availability, seller_name, store_country and target_countries; an
//     mpn where there is no gtin.
var channelRules = map[string]rules{
	vitrine.ChannelUCP:    {},
	vitrine.ChannelGoogle: {url: true, image: true, brand: true, price: true, maxTitle: 150},
	vitrine.ChannelOpenAI: {url: true, country: true, image: true, brand: true, price: true, gtinOrMPN: true, maxTitle: 150},
}

// Problems returns what keeps p off channel ("ucp", "google", "openai");
// nil when none, or for a channel it does not know. Problems of the
// product come first, then those of each variant, in the order of
// Reasons.
func Problems(channel string, shop *vitrine.Shop, p *vitrine.Product) []Problem {
	if p == nil {
		return nil
	}
	return problems(channel, shop, p, plainText(p.Description, 1) != "")
}

// problems is Problems of a product whose description has text or not
// (which a feed reads once for both).
func problems(channel string, shop *vitrine.Shop, p *vitrine.Product, described bool) []Problem {
	r, ok := channelRules[channel]
	if !ok {
		return nil
	}
	if shop == nil {
		shop = vitrine.NewShop(p.TenantID)
	}
	var out []Problem
	add := func(reason Reason, variantID, format string, args ...any) {
		out = append(out, Problem{Reason: reason, VariantID: variantID, Detail: fmt.Sprintf(format, args...)})
	}
	if r.url && shop.ProductURL == "" {
		add(NoProductURL, "", "the window has no product page URL template: set product_url with update_shop, such as \"https://shop.example/products/{handle}\"")
	}
	if r.country && shop.Country == "" {
		add(NoCountry, "", "the window names no country it sells to: set country with update_shop, such as \"BR\"")
	}
	if !described {
		add(NoDescription, "", "the product has no description")
	}
	if r.image && len(p.Media) == 0 {
		add(NoImage, "", "the product has no image: add one to its media")
	}
	if r.brand && clean(p.Vendor) == "" {
		add(NoBrand, "", "the product has no vendor, which the channel shows as its brand")
	}
	for _, v := range p.Variants {
		if r.price && v.Price <= 0 {
			add(PriceZero, v.ID, "variant %s has price zero", variantName(p, v))
		}
		if r.maxTitle > 0 {
			if n := utf8.RuneCountInString(itemTitle(p, v)); n > r.maxTitle {
				add(TitleTooLong, v.ID, "the title of variant %s is %d characters with its options; the channel takes at most %d: shorten the product's name", variantName(p, v), n, r.maxTitle)
			}
		}
		if r.gtinOrMPN && gtin(v.Barcode) == "" && v.SKU == "" {
			add(NoGTINOrMPN, v.ID, "variant %s has neither a GTIN barcode nor a SKU (sent as its MPN)", variantName(p, v))
		}
	}
	return out
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
