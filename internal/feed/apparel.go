package feed

import (
	"strings"

	"github.com/vitrine/vitrine"
)

// apparelWords are words (folded) that name apparel and its accessories in
// a product's type or category path, in the languages of the companies
// Vitrine serves: a product named so is what Google files under Apparel &
// Accessories (google_product_category 166), whose items it refuses
// without a gender and an age group. Google assigns the category itself
// from the product's data; these words are how a company's own words say
// the same, so that check_shop warns before Merchant Center refuses.
var apparelWords = words(
	// English
	"apparel", "clothing", "clothes", "garment", "garments", "shirt", "shirts", "t-shirt", "t-shirts", "tshirt",
	"tshirts", "blouse", "blouses", "hoodie", "hoodies", "sweater", "sweaters", "sweatshirt", "sweatshirts", "jacket",
	"jackets", "dress", "dresses", "skirt", "skirts", "pants", "trousers", "jeans", "shorts", "underwear", "lingerie",
	"socks", "pajamas", "swimwear", "shoes", "footwear", "sneakers", "boots", "sandals", "hat", "hats",
	// Portuguese
	"vestuario", "roupa", "roupas", "camiseta", "camisetas", "camisa", "camisas", "blusa", "blusas", "moletom",
	"moletons", "casaco", "casacos", "jaqueta", "jaquetas", "vestido", "vestidos", "saia", "saias", "calca", "calcas",
	"bermuda", "bermudas", "cueca", "cuecas", "pijama", "pijamas", "calcado", "calcados", "sapato", "sapatos",
	"sandalia", "sandalias", "bota", "botas", "bone", "bones", "chapeu", "chapeus",
	// Spanish and French
	"ropa", "zapatos", "zapatillas", "gorra", "gorras", "vetements", "chaussures",
)

// isApparel says whether a product whose product type is productType and
// whose categories are at paths reads as apparel: a word of either is one
// of apparelWords.
func isApparel(productType string, paths []string) bool {
	for _, s := range append([]string{productType}, paths...) {
		for _, w := range strings.FieldsFunc(vitrine.Fold(s), func(r rune) bool {
			return r == ' ' || r == '>' || r == ',' || r == '/' || r == '&' || r == '(' || r == ')'
		}) {
			if apparelWords[w] {
				return true
			}
		}
	}
	return false
}

func words(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}
