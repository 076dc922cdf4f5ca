package feed

import (
	"bufio"
	"encoding/xml"
	"io"

	"github.com/vitrine/vitrine"
)

// GoogleNamespace is the namespace of Merchant Center's attributes.
const GoogleNamespace = "http://base.google.com/ns/1.0"

// Google's bounds (its product data specification).
const (
	googleMaxDescription = 5000
	googleMaxImages      = 10 // additional_image_link
	googleMaxTypes       = 5  // product_type, each at most 750 characters
	googleMaxTypeLength  = 750
	googleMaxDetails     = 1000
)

// googleItem is an <item> of Google's RSS. The g: names are written as
// they stand: the prefix is bound once, on <rss>, as Google's own examples
// do, rather than encoding/xml's xmlns on every element.
type googleItem struct {
	XMLName          xml.Name       `xml:"item"`
	ID               string         `xml:"g:id"`
	Title            string         `xml:"title"`
	Description      string         `xml:"description"`
	Link             string         `xml:"link"`
	ImageLink        string         `xml:"g:image_link"`
	AdditionalImages []string       `xml:"g:additional_image_link"`
	Availability     string         `xml:"g:availability"`
	Price            string         `xml:"g:price"`
	SalePrice        string         `xml:"g:sale_price,omitempty"`
	ItemGroupID      string         `xml:"g:item_group_id,omitempty"`
	Brand            string         `xml:"g:brand,omitempty"`
	GTIN             string         `xml:"g:gtin,omitempty"`
	MPN              string         `xml:"g:mpn,omitempty"`
	IdentifierExists string         `xml:"g:identifier_exists,omitempty"`
	Condition        string         `xml:"g:condition"`
	ProductTypes     []string       `xml:"g:product_type"`
	Size             string         `xml:"g:size,omitempty"`
	Color            string         `xml:"g:color,omitempty"`
	Material         string         `xml:"g:material,omitempty"`
	Pattern          string         `xml:"g:pattern,omitempty"`
	Gender           string         `xml:"g:gender,omitempty"`
	AgeGroup         string         `xml:"g:age_group,omitempty"`
	Details          []googleDetail `xml:"g:product_detail"`
}

type googleDetail struct {
	Name  string `xml:"g:attribute_name"`
	Value string `xml:"g:attribute_value"`
}

var googleAvailability = map[availability]string{inStock: "in_stock", outOfStock: "out_of_stock", backorder: "backorder"}

type googleWriter struct {
	win *Window
	buf *bufio.Writer
	enc *xml.Encoder
}

func newGoogleWriter(w io.Writer, win *Window) *googleWriter {
	buf := bufio.NewWriterSize(w, 64<<10)
	enc := xml.NewEncoder(buf)
	// One element a line: a person reading the feed finds an item.
	enc.Indent("", " ")
	return &googleWriter{win: win, buf: buf, enc: enc}
}

func (g *googleWriter) begin() error {
	if _, err := io.WriteString(g.buf, xml.Header); err != nil {
		return err
	}
	rss := xml.StartElement{Name: xml.Name{Local: "rss"}, Attr: []xml.Attr{
		{Name: xml.Name{Local: "version"}, Value: "2.0"},
		{Name: xml.Name{Local: "xmlns:g"}, Value: GoogleNamespace},
	}}
	name := clean(g.win.Tenant.Name)
	if err := g.enc.EncodeToken(rss); err != nil {
		return err
	}
	if err := g.enc.EncodeToken(xml.StartElement{Name: xml.Name{Local: "channel"}}); err != nil {
		return err
	}
	for _, el := range []struct{ name, text string }{
		{"title", name},
		{"link", g.win.BaseURL},
		{"description", "The products of " + name},
	} {
		if err := g.enc.EncodeElement(el.text, xml.StartElement{Name: xml.Name{Local: el.name}}); err != nil {
			return err
		}
	}
	return nil
}

func (g *googleWriter) product(r rules, p *vitrine.Product) *product {
	return productOf(g.win, r, p, googleMaxDescription)
}

func (g *googleWriter) item(it *item) error {
	gi := googleItem{ID: it.ID, Title: it.Title, Description: it.Description, Link: it.Link, ImageLink: it.Image,
		Availability: googleAvailability[it.Availability], Price: it.Price, SalePrice: it.SalePrice,
		Brand: it.Brand, GTIN: it.GTIN, MPN: it.MPN, Condition: "new",
		Size: it.Attrs["size"], Color: it.Attrs["color"], Material: it.Attrs["material"], Pattern: it.Attrs["pattern"],
		Gender: it.Attrs["gender"], AgeGroup: it.Attrs["age_group"]}
	gi.AdditionalImages = it.Images[:min(len(it.Images), googleMaxImages)]
	if it.Variants > 1 {
		gi.ItemGroupID = it.GroupID
	}
	if it.GTIN == "" && it.MPN == "" {
		gi.IdentifierExists = "no"
	}
	for _, t := range it.ProductType[:min(len(it.ProductType), googleMaxTypes)] {
		gi.ProductTypes = append(gi.ProductTypes, truncate(t, googleMaxTypeLength))
	}
	for _, d := range it.Details[:min(len(it.Details), googleMaxDetails)] {
		gi.Details = append(gi.Details, googleDetail(d))
	}
	return g.enc.Encode(&gi)
}

func (g *googleWriter) flush() error {
	if err := g.enc.Flush(); err != nil {
		return err
	}
	return g.buf.Flush()
}

func (g *googleWriter) end() error {
	if err := g.enc.EncodeToken(xml.EndElement{Name: xml.Name{Local: "channel"}}); err != nil {
		return err
	}
	if err := g.enc.EncodeToken(xml.EndElement{Name: xml.Name{Local: "rss"}}); err != nil {
		return err
	}
	if err := g.enc.Close(); err != nil {
		return err
	}
	if _, err := io.WriteString(g.buf, "\n"); err != nil {
		return err
	}
	return g.buf.Flush()
}
