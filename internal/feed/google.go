package feed

import (
	"bufio"
	"encoding/xml"
	"io"
	"unicode/utf8"

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

// googleAttrs are the feed attributes an item's options and attributes
// fill, in the order Google's feed writes them.
var googleAttrs = [...]struct{ attr, element string }{
	{"size", "g:size"}, {"color", "g:color"}, {"material", "g:material"}, {"pattern", "g:pattern"},
	{"gender", "g:gender"}, {"age_group", "g:age_group"},
}

var googleAvailability = map[availability]string{inStock: "in_stock", outOfStock: "out_of_stock", backorder: "backorder"}

// googleWriter writes Google's RSS by hand rather than through
// encoding/xml: its reflection and token bookkeeping were a third of a
// market feed's CPU (BenchmarkMarketFeed). It writes what encoding/xml's
// Encoder wrote, byte for byte (TestGoogleWriterAsEncodingXML compares
// them): one element a line, indented by one space a level, the text
// escaped by escapeText as encoding/xml escapes it. The g: names are
// written as they stand: the prefix is bound once, on <rss>, as Google's
// own examples do.
type googleWriter struct {
	win *Window
	buf *bufio.Writer
}

func newGoogleWriter(w io.Writer, win *Window) *googleWriter {
	return &googleWriter{win: win, buf: bufio.NewWriterSize(w, 64<<10)}
}

func (g *googleWriter) begin() error {
	name := clean(g.win.Tenant.Name)
	g.buf.WriteString(xml.Header)
	g.buf.WriteString(`<rss version="2.0" xmlns:g="`)
	escapeText(g.buf, GoogleNamespace)
	g.buf.WriteString("\">\n <channel>")
	g.element(2, "title", name)
	g.element(2, "link", g.win.BaseURL)
	g.element(2, "description", "The products of "+name)
	return nil
}

func (g *googleWriter) product(r rules, p *vitrine.Product) *product {
	return productOf(g.win, r, p, googleMaxDescription)
}

// element writes <name>text</name> on a line of its own, depth spaces in.
func (g *googleWriter) element(depth int, name, text string) {
	g.open(depth, name)
	escapeText(g.buf, text)
	g.buf.WriteString("</")
	g.buf.WriteString(name)
	g.buf.WriteByte('>')
}

// optional writes element unless text is "" (encoding/xml's omitempty).
func (g *googleWriter) optional(depth int, name, text string) {
	if text != "" {
		g.element(depth, name, text)
	}
}

// open writes <name> on a line of its own, depth spaces in.
func (g *googleWriter) open(depth int, name string) { g.tag(depth, "<", name) }

// close writes </name> on a line of its own, depth spaces in.
func (g *googleWriter) close(depth int, name string) { g.tag(depth, "</", name) }

// tag writes start, name and '>' on a line of their own, depth spaces in.
func (g *googleWriter) tag(depth int, start, name string) {
	g.buf.WriteByte('\n')
	for range depth {
		g.buf.WriteByte(' ')
	}
	g.buf.WriteString(start)
	g.buf.WriteString(name)
	g.buf.WriteByte('>')
}

func (g *googleWriter) item(it *item) error {
	const d = 3 // rss > channel > item > its elements
	g.open(2, "item")
	g.element(d, "g:id", it.ID)
	g.element(d, "title", it.Title)
	g.element(d, "description", it.Description)
	g.element(d, "link", it.Link)
	g.element(d, "g:image_link", it.Image)
	for _, u := range it.Images[:min(len(it.Images), googleMaxImages)] {
		g.element(d, "g:additional_image_link", u)
	}
	g.element(d, "g:availability", googleAvailability[it.Availability])
	g.element(d, "g:price", it.Price)
	g.optional(d, "g:sale_price", it.SalePrice)
	if it.Variants > 1 {
		g.optional(d, "g:item_group_id", it.GroupID)
	}
	g.optional(d, "g:brand", it.Brand)
	g.optional(d, "g:gtin", it.GTIN)
	g.optional(d, "g:mpn", it.MPN)
	if it.GTIN == "" && it.MPN == "" {
		g.element(d, "g:identifier_exists", "no")
	}
	g.element(d, "g:condition", "new")
	for _, t := range it.ProductType[:min(len(it.ProductType), googleMaxTypes)] {
		g.element(d, "g:product_type", truncate(t, googleMaxTypeLength))
	}
	for _, a := range googleAttrs {
		g.optional(d, a.element, it.Attrs[a.attr])
	}
	for _, dt := range it.Details[:min(len(it.Details), googleMaxDetails)] {
		g.open(d, "g:product_detail")
		g.element(d+1, "g:attribute_name", dt.Name)
		g.element(d+1, "g:attribute_value", dt.Value)
		g.close(d, "g:product_detail")
	}
	g.close(2, "item")
	return nil
}

func (g *googleWriter) flush() error {
	return g.buf.Flush()
}

func (g *googleWriter) end() error {
	g.buf.WriteString("\n </channel>\n</rss>\n")
	return g.buf.Flush()
}

// The escapes of escapeText, encoding/xml's.
var (
	escQuot = []byte("&#34;") // shorter than "&quot;"
	escApos = []byte("&#39;") // shorter than "&apos;"
	escAmp  = []byte("&amp;")
	escLT   = []byte("&lt;")
	escGT   = []byte("&gt;")
	escTab  = []byte("&#x9;")
	escNL   = []byte("&#xA;")
	escCR   = []byte("&#xD;")
	escFFFD = []byte("\uFFFD") // Unicode replacement character
)

// escapeText writes s as XML character data, escaped exactly as
// encoding/xml's Encoder escapes a string's text (its printer's
// EscapeString): the five markup characters as character references
// (quotes too, so that the same function serves attribute values), tab,
// newline and return as character references (an XML parser would
// normalise them otherwise), and what XML 1.0 cannot hold, invalid UTF-8
// included, as U+FFFD. What is written is what was written before the
// writer was hand-made; clean has dropped most of the last kind already.
func escapeText(w *bufio.Writer, s string) {
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, width := utf8.DecodeRuneInString(s[i:])
			i += width
			if !(r >= 0x80 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF) || (r == utf8.RuneError && width == 1) {
				w.WriteString(s[last : i-width])
				w.Write(escFFFD)
				last = i
			}
			continue
		}
		i++
		var esc []byte
		switch c {
		case '"':
			esc = escQuot
		case '\'':
			esc = escApos
		case '&':
			esc = escAmp
		case '<':
			esc = escLT
		case '>':
			esc = escGT
		case '\t':
			esc = escTab
		case '\n':
			esc = escNL
		case '\r':
			esc = escCR
		default:
			if c >= 0x20 {
				continue
			}
			esc = escFFFD
		}
		w.WriteString(s[last : i-1])
		w.Write(esc)
		last = i
	}
	w.WriteString(s[last:])
}
