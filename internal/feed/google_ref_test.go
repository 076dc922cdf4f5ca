package feed

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vitrine/vitrine"
)

// refGoogleWriter is Google's writer as it was through encoding/xml's
// Encoder, kept to prove the hand-written one writes the same bytes.
type refGoogleWriter struct {
	win *Window
	buf *bufio.Writer
	enc *xml.Encoder
}

// googleItem is an <item> of Google's RSS. The g: names are written as
// they stand: the prefix is bound once, on <rss>, as Google's own examples
// do, rather than encoding/xml's xmlns on every element.
type refGoogleItem struct {
	XMLName          xml.Name          `xml:"item"`
	ID               string            `xml:"g:id"`
	Title            string            `xml:"title"`
	Description      string            `xml:"description"`
	Link             string            `xml:"link"`
	ImageLink        string            `xml:"g:image_link"`
	AdditionalImages []string          `xml:"g:additional_image_link"`
	Availability     string            `xml:"g:availability"`
	Price            string            `xml:"g:price"`
	SalePrice        string            `xml:"g:sale_price,omitempty"`
	ItemGroupID      string            `xml:"g:item_group_id,omitempty"`
	Brand            string            `xml:"g:brand,omitempty"`
	GTIN             string            `xml:"g:gtin,omitempty"`
	MPN              string            `xml:"g:mpn,omitempty"`
	IdentifierExists string            `xml:"g:identifier_exists,omitempty"`
	Condition        string            `xml:"g:condition"`
	ProductTypes     []string          `xml:"g:product_type"`
	Size             string            `xml:"g:size,omitempty"`
	Color            string            `xml:"g:color,omitempty"`
	Material         string            `xml:"g:material,omitempty"`
	Pattern          string            `xml:"g:pattern,omitempty"`
	Gender           string            `xml:"g:gender,omitempty"`
	AgeGroup         string            `xml:"g:age_group,omitempty"`
	Details          []refGoogleDetail `xml:"g:product_detail"`
}

type refGoogleDetail struct {
	Name  string `xml:"g:attribute_name"`
	Value string `xml:"g:attribute_value"`
}

func newRefGoogleWriter(w io.Writer, win *Window) *refGoogleWriter {
	buf := bufio.NewWriterSize(w, 64<<10)
	enc := xml.NewEncoder(buf)
	enc.Indent("", " ")
	return &refGoogleWriter{win: win, buf: buf, enc: enc}
}

func (g *refGoogleWriter) begin() error {
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

func (g *refGoogleWriter) product(r rules, p *vitrine.Product) *product {
	return productOf(g.win, r, p, googleMaxDescription)
}

func (g *refGoogleWriter) item(it *item) error {
	gi := refGoogleItem{ID: it.ID, Title: it.Title, Description: it.Description, Link: it.Link, ImageLink: it.Image,
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
		gi.Details = append(gi.Details, refGoogleDetail(d))
	}
	return g.enc.Encode(&gi)
}

func (g *refGoogleWriter) flush() error {
	if err := g.enc.Flush(); err != nil {
		return err
	}
	return g.buf.Flush()
}

func (g *refGoogleWriter) end() error {
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

// hostile are pieces of text a company may type, or a store hold: markup,
// references, quotes, white space XML normalises, controls, invalid UTF-8,
// noncharacters, surrogates' encodings, and letters of every width.
var hostile = []string{"", "a", " ", "Camiseta", "<", ">", "&", "&amp;", "\"", "'", "]]>", "<![CDATA[", "\t", "\n", "\r", "\r\n",
	"\x00", "\x01", "\x0b", "\x1f", "\x7f", "\u0085", "\u00a0", "ção", "—", "€", "日本", "😀", "\ufffd", "\ufffe", "\uffff",
	"\xff", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\U0010ffff", "\U000e0001", "\u2028", "&#x1;", "<g:price>0.01</g:price>"}

func hostileText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(8) {
		b.WriteString(hostile[r.IntN(len(hostile))])
	}
	return b.String()
}

// randomItem is an item of hostile text in every field, lists of every
// length (past Google's bounds too), any field empty.
func randomItem(r *rand.Rand) *item {
	t := func() string { return hostileText(r) }
	list := func(n int) []string {
		out := make([]string, r.IntN(n))
		for i := range out {
			out[i] = t()
		}
		return out
	}
	it := &item{ID: t(), GroupID: t(), Variants: r.IntN(3), Title: t(), Description: t(), Link: t(), Image: t(), Images: list(14),
		Price: t(), SalePrice: t(), Availability: availability(r.IntN(3)), Brand: t(), GTIN: t(), MPN: t(), ProductType: list(8)}
	if r.IntN(4) == 0 {
		it.ProductType = append(it.ProductType, strings.Repeat("Vestuário > ", 80))
	}
	if r.IntN(2) == 0 {
		it.Attrs = map[string]string{}
		for _, a := range []string{"size", "color", "material", "pattern", "gender", "age_group", "mpn"} {
			if r.IntN(2) == 0 {
				it.Attrs[a] = t()
			}
		}
	}
	for range r.IntN(4) {
		it.Details = append(it.Details, detail{Name: t(), Value: t()})
	}
	return it
}

// The hand-written Google writer writes what encoding/xml's Encoder wrote,
// byte for byte: items of hostile text in every field, and whole feeds.
func TestGoogleWriterAsEncodingXML(t *testing.T) {
	win := &Window{Tenant: &vitrine.Tenant{ID: "t", Name: "Caneca & \"Cia\" <x>\x01"}, Shop: vitrine.NewShop("t"),
		BaseURL: "https://vitrine.example/shops/a&b?c='d'"}
	r := rand.New(rand.NewPCG(47, 1))
	for run := range 200 {
		var got, want bytes.Buffer
		fw, ref := newGoogleWriter(&got, win), newRefGoogleWriter(&want, win)
		if err := fw.begin(); err != nil {
			t.Fatal(err)
		}
		if err := ref.begin(); err != nil {
			t.Fatal(err)
		}
		for range run % 5 {
			it := randomItem(r)
			if err := fw.item(it); err != nil {
				t.Fatal(err)
			}
			if err := ref.item(it); err != nil {
				t.Fatal(err)
			}
			if run%2 == 0 {
				fw.flush()
				ref.flush()
			}
		}
		if err := fw.end(); err != nil {
			t.Fatal(err)
		}
		if err := ref.end(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("run %d:\n got %q\nwant %q", run, got.Bytes(), want.Bytes())
		}
	}
}

// Every text escapeText writes is encoding/xml's escape of it.
func FuzzEscapeText(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got, want bytes.Buffer
		w := bufio.NewWriter(&got)
		escapeText(w, s)
		w.Flush()
		enc := xml.NewEncoder(&want)
		if err := enc.EncodeElement(s, xml.StartElement{Name: xml.Name{Local: "x"}}); err != nil {
			t.Fatal(err)
		}
		enc.Flush()
		if inner := strings.TrimSuffix(strings.TrimPrefix(want.String(), "<x>"), "</x>"); got.String() != inner {
			t.Fatalf("escapeText(%q) = %q; encoding/xml: %q", s, got.String(), inner)
		}
		if !utf8.Valid(got.Bytes()) {
			t.Fatalf("escapeText(%q) = %q: not UTF-8", s, got.String())
		}
	})
}

// A whole feed of the test's catalog, through writeWith, is the same from
// both writers.
func TestGoogleFeedAsEncodingXML(t *testing.T) {
	win := &Window{Tenant: &vitrine.Tenant{ID: "t", Name: "TechNova"}, Shop: vitrine.NewShop("t"), BaseURL: "https://vitrine.example/shops/technova",
		Origin: "https://vitrine.example", Attributes: map[string]*vitrine.Attribute{"fabric": {Key: "fabric", Name: "Fab<ric>", Public: true}}}
	win.Shop.ProductURL = "https://shop.example/products/{handle}?a=1&b=2"
	var ps []*vitrine.Product
	r := rand.New(rand.NewPCG(47, 2))
	for i := range 30 {
		p := &vitrine.Product{ID: vitrine.NewID(), TenantID: "t", Handle: "h", Name: hostileText(r) + "x", Description: "<p>" + hostileText(r) + "</p>",
			Vendor: hostileText(r), ProductType: hostileText(r), Status: vitrine.ProductActive, Currency: "BRL",
			Options:    []vitrine.Option{{Name: "Tamanho", Values: []string{"M"}}, {Name: "Cor", Values: []string{hostileText(r)}}},
			Attributes: map[string]any{"fabric": hostileText(r)},
			Media:      []vitrine.Media{{URL: "https://cdn.example/a.jpg?x=1&y=" + hostileText(r)}, {URL: "/demo/images/b.png"}}}
		for j := range 1 + i%3 {
			p.Variants = append(p.Variants, &vitrine.Variant{ID: vitrine.NewID(), SKU: "S", Barcode: "7891234567895",
				Options: map[string]string{"Tamanho": "M", "Cor": p.Options[1].Values[0]}, Price: int64(1000 + j), CompareAtPrice: ptrTo(int64(2000)), Stock: int64(j)})
		}
		p.Summarize()
		ps = append(ps, p)
	}
	src := sliceSource(ps)
	for _, r := range channelRules {
		var got, want bytes.Buffer
		for _, c := range []struct {
			fw  feedWriter
			out *bytes.Buffer
		}{{newGoogleWriter(&got, win), &got}, {newRefGoogleWriter(&want, win), &want}} {
			pages := newPager(context.Background(), src, "t")
			first, err := pages.next()
			if err != nil {
				t.Fatal(err)
			}
			if err := writeWith(c.fw, win, pages, first, r); err != nil {
				t.Fatal(err)
			}
		}
		if got.Len() < 1000 || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("the feed differs:\n got %s\nwant %s", got.Bytes(), want.Bytes())
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// sliceSource pages through products in their order.
type sliceSource []*vitrine.Product

func (s sliceSource) PublishedProducts(_ context.Context, _, after string, limit int) ([]*vitrine.Product, error) {
	i := 0
	if after != "" {
		for i < len(s) && s[i].ID != after {
			i++
		}
		i++
	}
	return s[min(i, len(s)):min(i+limit, len(s))], nil
}
