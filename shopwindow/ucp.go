package shopwindow

import (
	"net/url"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/sanitize"
)

// The Universal Commerce Protocol as a window speaks it: releases
// 2026-08-25 and 2026-04-08 side by side, the dev.ucp.shopping service,
// its two catalog capabilities. Nothing else of UCP (checkout, cart,
// orders, identity linking, payment handlers) is Vitrine's: a catalog does
// not sell.
const (
	// Version is the release the window's profile at /.well-known/ucp
	// declares; the others of Versions are its supported_versions, each
	// with a profile of its own at /.well-known/ucp/{version}.
	Version        = "2026-08-25"
	ServiceName    = "dev.ucp.shopping"
	CapSearch      = "dev.ucp.shopping.catalog.search"
	CapLookup      = "dev.ucp.shopping.catalog.lookup"
	maxDescription = 5000 // runes of a product's plain description in an answer, and of its HTML's text
	// maxDescriptionHTML bounds its HTML, markup included: an answer's
	// size follows the plain text's bound, not the description's.
	maxDescriptionHTML = 2 * maxDescription
)

// Versions are the UCP releases a window serves, the newest first. An
// agent's profile names one; the window answers in it: its envelope, its
// capabilities' versions, its shapes. What the catalog capability's
// answers hold is the same at both (2026-08-25 moved the common types'
// schemas, renamed nothing a catalog answer writes, and added only what a
// window may leave out: policies, actions, quantity_unit, fulfillment).
var Versions = []string{Version, "2026-04-08"}

// supported reports whether the window serves UCP release v.
func supported(v string) bool { return slices.Contains(Versions, v) }

// schemaBase is where the newest release's shopping schemas are: the tools'
// declarations name UCP's types there (the catalog's are the same at
// both releases).
const schemaBase = "https://ucp.dev/" + Version + "/schemas/shopping/"

// specBase is where release v's specification is published.
func specBase(v string) string { return "https://ucp.dev/" + v }

// capabilities are the window's, by name.
var capabilities = []string{CapSearch, CapLookup}

// envelope is the ucp object every answer carries: the version it was
// processed at, its status, and the capabilities active for it.
type envelope struct {
	Version      string                     `json:"version"`
	Status       string                     `json:"status,omitempty"`
	Capabilities map[string][]capabilityRef `json:"capabilities"`
}

type capabilityRef struct {
	Version string `json:"version"`
}

// envelopeFor is an answer's envelope at the newest release; run (rest.go)
// writes the release negotiated into it (at).
func envelopeFor(capability, status string) envelope {
	return envelope{Version: Version, Status: status, Capabilities: map[string][]capabilityRef{capability: {{Version: Version}}}}
}

// at is the envelope at release v: the version processed and the
// capabilities' versions, which are the release's own (UCP's dev.ucp.*
// capabilities are versioned with the release).
func (e envelope) at(v string) envelope {
	caps := make(map[string][]capabilityRef, len(e.Capabilities))
	for name := range e.Capabilities {
		caps[name] = []capabilityRef{{Version: v}}
	}
	e.Version, e.Capabilities = v, caps
	return e
}

// price is an amount in minor units of its currency.
type price struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

type priceRange struct {
	Min price `json:"min"`
	Max price `json:"max"`
}

// Plain is always written: UCP's description holds one format at least
// (minProperties 1), and a product without one has the empty text.
type description struct {
	Plain string `json:"plain"`
	HTML  string `json:"html,omitempty"`
}

type category struct {
	Value    string `json:"value"`
	Taxonomy string `json:"taxonomy,omitempty"`
}

type media struct {
	Type    string `json:"type"`
	URL     string `json:"url"`
	AltText string `json:"alt_text,omitempty"`
}

type optionValue struct {
	Label string `json:"label"`
	// Available and Exists are get_product's signals, relative to the
	// effective selections; nil elsewhere.
	Available *bool `json:"available,omitempty"`
	Exists    *bool `json:"exists,omitempty"`
}

type productOption struct {
	Name   string        `json:"name"`
	Values []optionValue `json:"values"`
}

type selectedOption struct {
	Name  string `json:"name"`
	Label string `json:"label"`
}

type barcode struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type availability struct {
	Available bool   `json:"available"`
	Status    string `json:"status,omitempty"`
}

type inputCorrelation struct {
	ID    string `json:"id"`
	Match string `json:"match,omitempty"`
}

type variant struct {
	ID           string             `json:"id"`
	SKU          string             `json:"sku,omitempty"`
	Barcodes     []barcode          `json:"barcodes,omitempty"`
	Title        string             `json:"title"`
	Description  description        `json:"description"`
	URL          string             `json:"url,omitempty"`
	Price        price              `json:"price"`
	ListPrice    *price             `json:"list_price,omitempty"`
	Availability availability       `json:"availability"`
	Options      []selectedOption   `json:"options,omitempty"`
	Media        []media            `json:"media,omitempty"`
	Inputs       []inputCorrelation `json:"inputs,omitempty"`
	Metadata     map[string]any     `json:"metadata,omitempty"`
}

type product struct {
	ID             string           `json:"id"`
	Handle         string           `json:"handle,omitempty"`
	Title          string           `json:"title"`
	Description    description      `json:"description"`
	URL            string           `json:"url,omitempty"`
	Categories     []category       `json:"categories,omitempty"`
	PriceRange     priceRange       `json:"price_range"`
	ListPriceRange *priceRange      `json:"list_price_range,omitempty"`
	Media          []media          `json:"media,omitempty"`
	Options        []productOption  `json:"options,omitempty"`
	Selected       []selectedOption `json:"selected,omitempty"`
	Variants       []*variant       `json:"variants"`
	Tags           []string         `json:"tags,omitempty"`
	Metadata       map[string]any   `json:"metadata,omitempty"`
}

// message is one of UCP's messages: an error (with a severity), a
// warning or an info.
type message struct {
	Type     string `json:"type"`
	Code     string `json:"code,omitempty"`
	Path     string `json:"path,omitempty"`
	Content  string `json:"content"`
	Severity string `json:"severity,omitempty"`
}

type pagination struct {
	Cursor      string `json:"cursor,omitempty"`
	HasNextPage bool   `json:"has_next_page"`
}

// searchResponse, lookupResponse and productResponse are the answers of
// the three operations; an error answer (ucp.status "error") carries
// messages and no products.
type searchResponse struct {
	UCP        envelope    `json:"ucp"`
	Products   []*product  `json:"products"`
	Pagination *pagination `json:"pagination,omitempty"`
	Messages   []message   `json:"messages,omitempty"`
}

type lookupResponse struct {
	UCP      envelope   `json:"ucp"`
	Products []*product `json:"products"`
	Messages []message  `json:"messages,omitempty"`
}

type productResponse struct {
	UCP      envelope  `json:"ucp"`
	Product  *product  `json:"product,omitempty"`
	Messages []message `json:"messages,omitempty"`
}

// view is what a window shows of its company's products: the settings
// and definitions the mapping reads.
type view struct {
	win *Window
	// public holds the keys of the attributes the company made public.
	public map[string]bool
}

// productOf is what the public sees of an active product: never its
// status, stock (unless the window discloses it), cost or private
// attributes.
func (v *view) productOf(p *vitrine.Product) *product {
	cur := p.Currency
	out := &product{ID: p.ID, Handle: p.Handle, Title: p.Name, Description: describe(p.Description),
		URL: v.win.Shop.ProductPageURL(p.Handle), Tags: p.Tags}
	for _, c := range p.Categories {
		out.Categories = append(out.Categories, category{Value: c.Name, Taxonomy: "merchant"})
	}
	for _, m := range p.Media {
		out.Media = append(out.Media, media{Type: "image", URL: v.absolute(m.URL), AltText: m.Alt})
	}
	for _, o := range p.Options {
		po := productOption{Name: o.Name}
		for _, val := range o.Values {
			po.Values = append(po.Values, optionValue{Label: val})
		}
		out.Options = append(out.Options, po)
	}
	var minList, maxList int64
	onSale := false
	for i, vr := range p.Variants {
		pv := v.variantOf(p, vr)
		out.Variants = append(out.Variants, pv)
		list := vr.Price
		if pv.ListPrice != nil {
			list, onSale = pv.ListPrice.Amount, true
		}
		if i == 0 || list < minList {
			minList = list
		}
		if i == 0 || list > maxList {
			maxList = list
		}
	}
	out.PriceRange = priceRange{Min: price{p.Price, cur}, Max: price{p.PriceMax, cur}}
	if onSale {
		out.ListPriceRange = &priceRange{Min: price{minList, cur}, Max: price{maxList, cur}}
	}
	meta := map[string]any{}
	if p.Vendor != "" {
		meta["brand"] = p.Vendor
	}
	if p.ProductType != "" {
		meta["product_type"] = p.ProductType
	}
	attrs := map[string]any{}
	for k, val := range p.Attributes {
		if v.public[k] {
			attrs[k] = val
		}
	}
	if len(attrs) > 0 {
		meta["attributes"] = attrs
	}
	if len(meta) > 0 {
		out.Metadata = meta
	}
	if out.Variants == nil {
		out.Variants = []*variant{}
	}
	return out
}

// variantOf is what the public sees of a variant.
func (v *view) variantOf(p *vitrine.Product, vr *vitrine.Variant) *variant {
	out := &variant{ID: vr.ID, SKU: vr.SKU, Title: variantTitle(p, vr), Price: price{vr.Price, p.Currency}}
	out.Description = description{Plain: out.Title}
	if vr.CompareAtPrice != nil && *vr.CompareAtPrice > vr.Price {
		out.ListPrice = &price{*vr.CompareAtPrice, p.Currency}
	}
	if vr.Barcode != "" {
		out.Barcodes = []barcode{{Type: barcodeType(vr.Barcode), Value: vr.Barcode}}
	}
	if page := v.win.Shop.ProductPageURL(p.Handle); page != "" {
		out.URL = withVariant(page, vr.ID)
	}
	out.Availability = availabilityOf(vr)
	for _, o := range p.Options {
		if val, ok := vr.Options[o.Name]; ok {
			out.Options = append(out.Options, selectedOption{Name: o.Name, Label: val})
		}
	}
	if vr.Image != "" {
		out.Media = []media{{Type: "image", URL: v.absolute(vr.Image)}}
	}
	if v.win.Shop.Stock == vitrine.StockExact && !vr.Untracked {
		out.Metadata = map[string]any{"inventory_quantity": max(vr.Stock, 0)}
	}
	return out
}

// availabilityOf says whether a variant can be bought, and how: a tracked
// variant with stock is in stock; without, on backorder when its policy
// sells on, else out of stock. An untracked one is always in stock.
func availabilityOf(vr *vitrine.Variant) availability {
	switch {
	case vr.Untracked || vr.Stock > 0:
		return availability{Available: true, Status: "in_stock"}
	case vr.Policy == vitrine.PolicyContinue:
		return availability{Available: true, Status: "backorder"}
	}
	return availability{Available: false, Status: "out_of_stock"}
}

// variantTitle is the variant's option values in the product's order
// ("M / Azul"), or the product's name for one without options.
func variantTitle(p *vitrine.Product, vr *vitrine.Variant) string {
	var parts []string
	for _, o := range p.Options {
		if val := vr.Options[o.Name]; val != "" {
			parts = append(parts, val)
		}
	}
	if len(parts) == 0 {
		return p.Name
	}
	return strings.Join(parts, " / ")
}

// barcodeType names a barcode by its length: UPC (12 digits), EAN (13),
// GTIN otherwise.
func barcodeType(b string) string {
	digits := !strings.ContainsFunc(b, func(r rune) bool { return r < '0' || r > '9' })
	switch {
	case digits && len(b) == 12:
		return "UPC"
	case digits && len(b) == 13:
		return "EAN"
	}
	return "GTIN"
}

// describe is a description in the formats UCP names: its text and its
// HTML (as the service sanitized it on its way in), each bounded, the
// HTML cut where an element or a word ends and still well-formed.
func describe(d string) description {
	if d == "" {
		return description{Plain: ""}
	}
	plain := d
	if strings.Contains(d, "<") {
		plain = sanitize.Plain(d)
	} else {
		return description{Plain: truncate(d, maxDescription)}
	}
	return description{Plain: truncate(plain, maxDescription), HTML: sanitize.Cut(d, maxDescription, maxDescriptionHTML)}
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// absolute resolves a media URL against the server's public URL: the demo
// names its images by path.
func (v *view) absolute(u string) string {
	if strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//") {
		return v.win.Origin + u
	}
	return u
}

// withVariant is a product page's URL that preselects a variant.
func withVariant(page, id string) string {
	u, err := url.Parse(page)
	if err != nil {
		return page
	}
	q := u.Query()
	q.Set("variant", id)
	u.RawQuery = q.Encode()
	return u.String()
}
