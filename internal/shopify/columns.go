package shopify

import (
	"regexp"
	"strings"
)

// field is a column Vitrine reads, whatever the header calls it.
type field int

const (
	fHandle field = iota
	fTitle
	fBody
	fVendor
	fCategory
	fType
	fTags
	fPublished
	fOpt1Name
	fOpt1Value
	fOpt2Name
	fOpt2Value
	fOpt3Name
	fOpt3Value
	fSKU
	fGrams
	fTracker
	fQty
	fPolicy
	fFulfillment
	fPrice
	fCompare
	fShipping
	fTaxable
	fBarcode
	fImageSrc
	fImagePos
	fImageAlt
	fGiftCard
	fSEOTitle
	fSEODesc
	fVariantImage
	fWeightUnit
	fStatus
	fWeight // not written: a reader's alternative to Variant Grams
	nFields
)

// writeHeader is the header Write produces, in Shopify's documented
// (older, widely accepted) order; index i names field(i).
var writeHeader = [...]string{
	fHandle:       "Handle",
	fTitle:        "Title",
	fBody:         "Body (HTML)",
	fVendor:       "Vendor",
	fCategory:     "Product Category",
	fType:         "Type",
	fTags:         "Tags",
	fPublished:    "Published",
	fOpt1Name:     "Option1 Name",
	fOpt1Value:    "Option1 Value",
	fOpt2Name:     "Option2 Name",
	fOpt2Value:    "Option2 Value",
	fOpt3Name:     "Option3 Name",
	fOpt3Value:    "Option3 Value",
	fSKU:          "Variant SKU",
	fGrams:        "Variant Grams",
	fTracker:      "Variant Inventory Tracker",
	fQty:          "Variant Inventory Qty",
	fPolicy:       "Variant Inventory Policy",
	fFulfillment:  "Variant Fulfillment Service",
	fPrice:        "Variant Price",
	fCompare:      "Variant Compare At Price",
	fShipping:     "Variant Requires Shipping",
	fTaxable:      "Variant Taxable",
	fBarcode:      "Variant Barcode",
	fImageSrc:     "Image Src",
	fImagePos:     "Image Position",
	fImageAlt:     "Image Alt Text",
	fGiftCard:     "Gift Card",
	fSEOTitle:     "SEO Title",
	fSEODesc:      "SEO Description",
	fVariantImage: "Variant Image",
	fWeightUnit:   "Variant Weight Unit",
	fStatus:       "Status",
}

// aliases maps a header name, folded (normName), to the field it gives:
// the older vocabulary, the 2024+ template's, and a few spellings both
// kinds of export have used.
var aliases = map[string]field{
	"handle":                             fHandle,
	"url handle":                         fHandle,
	"title":                              fTitle,
	"body (html)":                        fBody,
	"body html":                          fBody,
	"description":                        fBody,
	"vendor":                             fVendor,
	"product category":                   fCategory,
	"type":                               fType,
	"product type":                       fType,
	"tags":                               fTags,
	"published":                          fPublished,
	"published on online store":          fPublished,
	"option1 name":                       fOpt1Name,
	"option1 value":                      fOpt1Value,
	"option2 name":                       fOpt2Name,
	"option2 value":                      fOpt2Value,
	"option3 name":                       fOpt3Name,
	"option3 value":                      fOpt3Value,
	"variant sku":                        fSKU,
	"sku":                                fSKU,
	"variant grams":                      fGrams,
	"weight value (grams)":               fGrams,
	"variant weight":                     fWeight,
	"variant weight unit":                fWeightUnit,
	"weight unit for display":            fWeightUnit,
	"variant inventory tracker":          fTracker,
	"inventory tracker":                  fTracker,
	"variant inventory qty":              fQty,
	"variant inventory quantity":         fQty,
	"inventory quantity":                 fQty,
	"variant inventory policy":           fPolicy,
	"continue selling when out of stock": fPolicy,
	"variant fulfillment service":        fFulfillment,
	"fulfillment service":                fFulfillment,
	"variant price":                      fPrice,
	"price":                              fPrice,
	"variant compare at price":           fCompare,
	"compare-at price":                   fCompare,
	"compare at price":                   fCompare,
	"variant requires shipping":          fShipping,
	"requires shipping":                  fShipping,
	"variant taxable":                    fTaxable,
	"charge tax":                         fTaxable,
	"variant barcode":                    fBarcode,
	"barcode":                            fBarcode,
	"image src":                          fImageSrc,
	"product image url":                  fImageSrc,
	"image position":                     fImagePos,
	"image alt text":                     fImageAlt,
	"variant image":                      fVariantImage,
	"variant image url":                  fVariantImage,
	"gift card":                          fGiftCard,
	"seo title":                          fSEOTitle,
	"seo description":                    fSEODesc,
	"status":                             fStatus,
}

// Why the columns Vitrine reads only in part are reported all the same.
var partlyModelled = map[field]string{
	fFulfillment: "not modelled: Vitrine has no fulfillment services; the column is read by no field and written as \"manual\"",
	fGiftCard:    "not modelled: Vitrine has no gift cards; a product marked TRUE imports as an ordinary product, with a note",
}

// unmodelledColumns says why a known Shopify column is not read, by folded
// name or by folded prefix (ending in "/" or " ").
var unmodelledColumns = []struct{ name, why string }{
	{"cost per item", "not modelled: Vitrine keeps no cost price"},
	{"variant cost", "not modelled: Vitrine keeps no cost price"},
	{"variant tax code", "not modelled: Vitrine keeps no tax codes (Avalara); Variant Taxable is read"},
	{"tax code", "not modelled: Vitrine keeps no tax codes (Avalara); Charge tax is read"},
	{"option1 linked to", "not modelled: options linked to metafields are read as plain option values"},
	{"option2 linked to", "not modelled: options linked to metafields are read as plain option values"},
	{"option3 linked to", "not modelled: options linked to metafields are read as plain option values"},
	{"unit price total measure", "not modelled: Vitrine has no unit prices"},
	{"unit price total measure unit", "not modelled: Vitrine has no unit prices"},
	{"unit price base measure", "not modelled: Vitrine has no unit prices"},
	{"unit price base measure unit", "not modelled: Vitrine has no unit prices"},
	{"variant inventory adjust", "not modelled: Vitrine imports stock levels, not adjustments"},
	{"published scope", "not modelled: Vitrine has no sales channels; Status (or Published) is read"},
	{"sales channel", "not modelled: Vitrine has no sales channels; Status (or Published) is read"},
	{"collection", "not modelled: Shopify collections are not imported; map them to categories by hand"},
	{"id", "not modelled: Shopify's ids are not kept; products are matched by Handle"},
	{"variant id", "not modelled: Shopify's ids are not kept"},
	{"standard product type", "not modelled: a retired Shopify taxonomy; Product Category is read"},
	{"standardized product type", "not modelled: a retired Shopify taxonomy; Product Category is read"},
	{"custom product type", "not modelled: a retired column; Type is read"},
	{"google shopping /", "not modelled: Vitrine has no Google Shopping feed settings"},
	{"price /", "not modelled: Vitrine has one price per variant, in the product's currency, and no market prices"},
	{"compare at price /", "not modelled: Vitrine has no market prices"},
	{"compare-at price /", "not modelled: Vitrine has no market prices"},
	{"included /", "not modelled: Vitrine has no markets"},
}

// normName folds a header name: trimmed, lower case, single spaces.
func normName(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// metafieldRE matches a metafield column: "Material (product.metafields.custom.material)".
var metafieldRE = regexp.MustCompile(`(?i)^(.*?)\s*\(\s*(product|variant)\.metafields\.([^.()\s]+)\.([^()\s]+)\s*\)$`)

// AttributeKey turns a Shopify metafield key into a Vitrine attribute key:
// lower case, runs of characters other than [a-z0-9_] made one "_", no "_"
// at the ends, and "metafield_" before a key that would not start with a
// letter. It is idempotent: a key already simple is kept.
func AttributeKey(key string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(key) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(r)
		default:
			under = true
		}
	}
	k := b.String()
	if k == "" || k[0] < 'a' || k[0] > 'z' {
		k = "metafield_" + k
		k = strings.TrimSuffix(k, "_")
	}
	return k
}

// simpleKeyRE is the form of an attribute key the writer accepts.
var simpleKeyRE = regexp.MustCompile(`^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$`)
