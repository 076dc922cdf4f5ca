package shopwindow

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"net/url"
	"slices"
	"sort"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/feed"
)

// A product's page at /products/{handle}: what get_product answers of it,
// for people, with schema.org's JSON-LD for search engines.

type pageImage struct{ URL, Alt string }

type pageVariant struct {
	ID, URL, Title, Price, Compare, Availability string
	Available, Current                           bool
}

type pageOption struct {
	Name   string
	Values []string
}

type pageAttribute struct{ Name, Value string }

type productPageData struct {
	page
	Name, Vendor string
	Crumbs       []categoryLink
	Images       []pageImage
	Selected     *pageVariant
	Options      []pageOption
	Variants     []*pageVariant
	MoreVariants bool
	Attributes   []pageAttribute
	Body         template.HTML
	LD           any
}

// productPage writes the page of the product with that handle; variantID
// (?variant=, the feeds' links) preselects one of its variants.
func (s *Server) productPage(ctx context.Context, buf *bytes.Buffer, win *Window, handle, variantID string) error {
	if !validHandle(handle) {
		return errPageNotFound
	}
	p, err := s.catalog.productByHandle(ctx, win, handle)
	if err != nil {
		return err
	}
	if p == nil {
		return errPageNotFound
	}
	v, err := s.catalog.newView(ctx, win, []*vitrine.Product{p})
	if err != nil {
		return err
	}
	pp := v.productOf(p)
	l := localeOfWindow(win)
	d := &productPageData{page: l.newPage(win, cmpOr(p.SEO.Title, p.Name)+" · "+win.Tenant.Name), Name: p.Name, Vendor: p.Vendor}
	d.Description = cmpOr(p.SEO.Description, truncate(pp.Description.Plain, 160))
	d.Canonical = pp.URL
	if len(pp.Media) > maxPageImages {
		pp.Media = pp.Media[:maxPageImages]
	}
	for _, m := range pp.Media {
		d.Images = append(d.Images, pageImage{URL: m.URL, Alt: cmpOr(m.AltText, p.Name)})
	}
	if len(p.Categories) > 0 {
		cats, err := s.catalog.categories(ctx, win)
		if err != nil {
			return err
		}
		byID := map[string]*vitrine.Category{}
		for _, c := range cats {
			byID[c.ID] = c
		}
		if c := byID[p.Categories[0].ID]; c != nil {
			for _, t := range trailOf(byID, c) {
				d.Crumbs = append(d.Crumbs, categoryLink{Name: t.Name, URL: win.link("/", url.Values{"category": {t.ID}})})
			}
		}
	}
	for _, o := range pp.Options {
		po := pageOption{Name: o.Name}
		for _, val := range o.Values {
			po.Values = append(po.Values, val.Label)
		}
		d.Options = append(d.Options, po)
	}
	if len(pp.Variants) > maxPageVariants {
		pp.Variants, d.MoreVariants = pp.Variants[:maxPageVariants], true
	}
	if !slices.ContainsFunc(pp.Variants, func(v *variant) bool { return v.ID == variantID }) {
		variantID = featured(p, &filter{})
	}
	for _, vr := range pp.Variants {
		pv := &pageVariant{ID: vr.ID, URL: withVariant(win.pageURL(p.Handle), vr.ID), Title: vr.Title,
			Price: l.money(vr.Price.Amount, vr.Price.Currency), Available: vr.Availability.Available,
			Availability: l.availability(vr), Current: vr.ID == variantID}
		if vr.ListPrice != nil {
			pv.Compare = l.money(vr.ListPrice.Amount, vr.ListPrice.Currency)
		}
		if pv.Current {
			sel := *pv
			d.Selected = &sel
		}
		d.Variants = append(d.Variants, pv)
	}
	if d.Selected != nil && len(pp.Variants) == 1 && len(pp.Options) == 0 {
		d.Selected.Title = ""
	}
	if attrs, _ := pp.Metadata["attributes"].(map[string]any); len(attrs) > 0 {
		names, err := s.catalog.attributeNames(ctx, win)
		if err != nil {
			return err
		}
		for k, val := range attrs {
			if name, ok := names[k]; ok {
				d.Attributes = append(d.Attributes, pageAttribute{Name: cmpOr(name, k), Value: fmt.Sprint(val)})
			}
		}
		sort.Slice(d.Attributes, func(i, j int) bool { return d.Attributes[i].Name < d.Attributes[j].Name })
	}
	if pp.Description.HTML != "" {
		// Sanitized on its way in (package sanitize), cut where an element
		// ends by the view: what UCP's answers carry as html.
		d.Body = template.HTML(pp.Description.HTML)
	} else if pp.Description.Plain != "" {
		d.Body = template.HTML(template.HTMLEscapeString(pp.Description.Plain))
	}
	d.LD = productLD(win, p, pp)
	return pageTemplates().ExecuteTemplate(buf, "product", d)
}

// schema.org's Product, ProductGroup and Offer, as Google's merchant
// listings read them
// (https://developers.google.com/search/docs/appearance/structured-data/merchant-listing,
// and product variants:
// https://developers.google.com/search/docs/appearance/structured-data/product-variants).
type ldBrand struct {
	Type string `json:"@type"`
	Name string `json:"name"`
}

type ldPrice struct {
	Type          string `json:"@type"`
	PriceType     string `json:"priceType"`
	Price         string `json:"price"`
	PriceCurrency string `json:"priceCurrency"`
}

type ldOffer struct {
	Type               string   `json:"@type"`
	URL                string   `json:"url"`
	Price              string   `json:"price"`
	PriceCurrency      string   `json:"priceCurrency"`
	Availability       string   `json:"availability"`
	ItemCondition      string   `json:"itemCondition"`
	PriceSpecification *ldPrice `json:"priceSpecification,omitempty"`
}

type ldProduct struct {
	Context     string   `json:"@context,omitempty"`
	Type        string   `json:"@type"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	URL         string   `json:"url,omitempty"`
	SKU         string   `json:"sku,omitempty"`
	GTIN        string   `json:"gtin,omitempty"`
	Image       []string `json:"image,omitempty"`
	Brand       *ldBrand `json:"brand,omitempty"`
	Size        string   `json:"size,omitempty"`
	Color       string   `json:"color,omitempty"`
	Material    string   `json:"material,omitempty"`
	Pattern     string   `json:"pattern,omitempty"`
	Offers      *ldOffer `json:"offers,omitempty"`
}

type ldGroup struct {
	Context        string       `json:"@context"`
	Type           string       `json:"@type"`
	Name           string       `json:"name"`
	Description    string       `json:"description,omitempty"`
	URL            string       `json:"url"`
	ProductGroupID string       `json:"productGroupID"`
	VariesBy       []string     `json:"variesBy,omitempty"`
	Image          []string     `json:"image,omitempty"`
	Brand          *ldBrand     `json:"brand,omitempty"`
	HasVariant     []*ldProduct `json:"hasVariant"`
}

// ldAvailability maps a variant's availability to schema.org's.
var ldAvailability = map[string]string{
	"in_stock": "https://schema.org/InStock", "backorder": "https://schema.org/BackOrder", "out_of_stock": "https://schema.org/OutOfStock",
}

// ldVaries are the feed attributes an option may fill that schema.org
// names on a Product, which a ProductGroup says it varies by.
var ldVaries = []string{"size", "color", "material", "pattern"}

// productLD is a product's JSON-LD: a ProductGroup of its variants as
// Products, each with its Offer; one Product for a product of one variant
// without options. pp is the product as the window shows it (public
// fields, its URLs, its variants bounded).
func productLD(win *Window, p *vitrine.Product, pp *product) any {
	var brand *ldBrand
	if p.Vendor != "" {
		brand = &ldBrand{Type: "Brand", Name: p.Vendor}
	}
	var images []string
	for _, m := range pp.Media {
		images = append(images, m.URL)
	}
	scale := vitrine.CurrencyScale(p.Currency)
	// Which option fills which of schema.org's properties.
	fills := map[string]string{}
	var varies []string
	for _, o := range pp.Options {
		if a, ok := win.Shop.FeedAttribute(o.Name); ok && slices.Contains(ldVaries, a) && !slices.Contains(varies, "https://schema.org/"+a) {
			fills[o.Name] = a
			varies = append(varies, "https://schema.org/"+a)
		}
	}
	byID := map[string]*vitrine.Variant{}
	for _, v := range p.Variants {
		byID[v.ID] = v
	}
	item := func(vr *variant) *ldProduct {
		out := &ldProduct{Type: "Product", Name: p.Name, SKU: vr.SKU, Brand: brand, Image: images}
		if raw := byID[vr.ID]; raw != nil {
			out.GTIN = feed.GTIN(raw.Barcode)
		}
		offer := &ldOffer{Type: "Offer", URL: cmpOr(vr.URL, pp.URL), Price: vitrine.FormatPrice(vr.Price.Amount, scale),
			PriceCurrency: vr.Price.Currency, Availability: ldAvailability[vr.Availability.Status],
			ItemCondition: "https://schema.org/NewCondition"}
		if vr.ListPrice != nil {
			offer.PriceSpecification = &ldPrice{Type: "UnitPriceSpecification", PriceType: "https://schema.org/StrikethroughPrice",
				Price: vitrine.FormatPrice(vr.ListPrice.Amount, scale), PriceCurrency: vr.ListPrice.Currency}
		}
		out.Offers = offer
		return out
	}
	if len(pp.Variants) == 1 && len(pp.Options) == 0 {
		one := item(pp.Variants[0])
		one.Context, one.Description, one.URL = "https://schema.org", pp.Description.Plain, pp.URL
		return one
	}
	g := &ldGroup{Context: "https://schema.org", Type: "ProductGroup", Name: p.Name, Description: pp.Description.Plain, URL: pp.URL,
		ProductGroupID: p.ID, VariesBy: varies, Image: images, Brand: brand, HasVariant: []*ldProduct{}}
	for _, vr := range pp.Variants {
		one := item(vr)
		one.Name = p.Name + " – " + vr.Title
		one.URL = one.Offers.URL
		if len(vr.Media) > 0 {
			one.Image = []string{vr.Media[0].URL}
		}
		for _, o := range vr.Options {
			switch fills[o.Name] {
			case "size":
				one.Size = o.Label
			case "color":
				one.Color = o.Label
			case "material":
				one.Material = o.Label
			case "pattern":
				one.Pattern = o.Label
			}
		}
		g.HasVariant = append(g.HasVariant, one)
	}
	return g
}
