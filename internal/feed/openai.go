package feed

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"slices"

	"github.com/vitrine/vitrine"
)

// OpenAI's bounds (its product feed specification).
const (
	openAIMaxDescription = 5000
	openAIMaxCategory    = 750
)

// openAIItem is a line of OpenAI's product feed: one variant, under the
// field names of OpenAI's file upload specification.
type openAIItem struct {
	// Vitrine answers no checkout: search only.
	IsEligibleSearch     bool              `json:"is_eligible_search"`
	IsEligibleCheckout   bool              `json:"is_eligible_checkout"`
	ItemID               string            `json:"item_id"`
	Title                string            `json:"title"`
	Description          string            `json:"description"`
	URL                  string            `json:"url"`
	Brand                string            `json:"brand"`
	GTIN                 string            `json:"gtin,omitempty"`
	MPN                  string            `json:"mpn,omitempty"`
	Condition            string            `json:"condition"`
	ProductCategory      string            `json:"product_category,omitempty"`
	ImageURL             string            `json:"image_url"`
	AdditionalImageURLs  []string          `json:"additional_image_urls,omitempty"`
	Price                string            `json:"price"`
	SalePrice            string            `json:"sale_price,omitempty"`
	Availability         string            `json:"availability"`
	InventoryQuantity    *int64            `json:"inventory_quantity,omitempty"`
	GroupID              string            `json:"group_id"`
	ListingHasVariations bool              `json:"listing_has_variations"`
	VariantDict          map[string]string `json:"variant_dict,omitempty"`
	Size                 string            `json:"size,omitempty"`
	Color                string            `json:"color,omitempty"`
	Material             string            `json:"material,omitempty"`
	Pattern              string            `json:"pattern,omitempty"`
	Gender               string            `json:"gender,omitempty"`
	AgeGroup             string            `json:"age_group,omitempty"`
	SellerName           string            `json:"seller_name"`
	SellerURL            string            `json:"seller_url,omitempty"`
	// TargetCountries are the countries the item is sold to, of those
	// OpenAI's reference takes (openAIMarkets); absent for another. No
	// store_country: Vitrine holds where a company sells, not where it is
	// established, and the reference makes both optional.
	TargetCountries []string `json:"target_countries,omitempty"`
}

// openAIMarkets are the countries OpenAI's Products reference takes in
// target_countries (docs/feeds.md cites its version).
var openAIMarkets = []string{"US", "CA", "MX"}

var openAIAvailability = map[availability]string{inStock: "in_stock", outOfStock: "out_of_stock", backorder: "backorder"}

type openAIWriter struct {
	win    *Window
	buf    *bufio.Writer
	zw     *gzip.Writer
	enc    *json.Encoder
	seller string
}

func newOpenAIWriter(w io.Writer, win *Window) *openAIWriter {
	buf := bufio.NewWriterSize(w, 32<<10)
	zw, _ := gzip.NewWriterLevel(buf, gzip.DefaultCompression)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	return &openAIWriter{win: win, buf: buf, zw: zw, enc: enc, seller: clean(win.Tenant.Name)}
}

func (o *openAIWriter) begin() error { return nil }

func (o *openAIWriter) product(r rules, p *vitrine.Product) *product {
	return productOf(o.win, r, p, openAIMaxDescription)
}

func (o *openAIWriter) item(it *item) error {
	oi := openAIItem{IsEligibleSearch: true, ItemID: it.ID, Title: it.Title, Description: it.Description, URL: it.Link,
		Brand: it.Brand, GTIN: it.GTIN, MPN: it.MPN, Condition: "new", ImageURL: it.Image, AdditionalImageURLs: it.Images,
		Price: it.Price, SalePrice: it.SalePrice, Availability: openAIAvailability[it.Availability], InventoryQuantity: it.Quantity,
		GroupID: it.GroupID, ListingHasVariations: it.Variants > 1,
		Size: it.Attrs["size"], Color: it.Attrs["color"], Material: it.Attrs["material"], Pattern: it.Attrs["pattern"],
		Gender: it.Attrs["gender"], AgeGroup: it.Attrs["age_group"],
		SellerName: o.seller, SellerURL: o.win.BaseURL}
	if c := o.win.Shop.Country; slices.Contains(openAIMarkets, c) {
		oi.TargetCountries = []string{c}
	}
	if len(it.ProductType) > 0 {
		oi.ProductCategory = truncate(it.ProductType[0], openAIMaxCategory)
	}
	if len(it.Options) > 0 {
		oi.VariantDict = make(map[string]string, len(it.Options))
		for _, op := range it.Options {
			oi.VariantDict[op.Name] = op.Value
		}
	}
	return o.enc.Encode(&oi)
}

func (o *openAIWriter) flush() error {
	if err := o.zw.Flush(); err != nil {
		return err
	}
	return o.buf.Flush()
}

func (o *openAIWriter) end() error {
	if err := o.zw.Close(); err != nil {
		return err
	}
	return o.buf.Flush()
}
