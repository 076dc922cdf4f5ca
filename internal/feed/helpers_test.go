package feed_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"encoding/xml"
	"slices"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/feed"
	"github.com/vitrine/vitrine/store"
)

var ctx = context.Background()

// memSource is a Source over products in memory, paged as the store pages
// them: by id, after the last one read, the company's active ones.
type memSource struct {
	products []*vitrine.Product
	// lax pages through every product, whatever its status and company:
	// a source that got the filter wrong.
	lax bool
}

func (m *memSource) PublishedProducts(_ context.Context, tenantID, after string, limit int) ([]*vitrine.Product, error) {
	ps := slices.Clone(m.products)
	slices.SortFunc(ps, func(a, b *vitrine.Product) int { return strings.Compare(a.ID, b.ID) })
	var out []*vitrine.Product
	for _, p := range ps {
		if !m.lax && (p.TenantID != tenantID || p.Status != vitrine.ProductActive) || (after != "" && p.ID <= after) {
			continue
		}
		if len(out) == limit {
			break
		}
		out = append(out, p)
	}
	return out, nil
}

const tenantID = "0190a1b2-0000-7000-8000-000000000001"

func window() feed.Window {
	shop := vitrine.NewShop(tenantID)
	shop.Open = true
	shop.ProductURL = "https://shop.example/products/{handle}"
	shop.Country = "BR"
	return feed.Window{
		Tenant:  &vitrine.Tenant{ID: tenantID, Name: "TechNova", Slug: "technova", Currency: "BRL"},
		Shop:    shop,
		BaseURL: "https://vitrine.example/shops/technova",
		Origin:  "https://vitrine.example",
		Attributes: map[string]*vitrine.Attribute{
			"fabric":        {Key: "fabric", Name: "Fabric", Type: vitrine.AttributeText, Public: true},
			"margin":        {Key: "margin", Name: "Margin", Type: vitrine.AttributeText},
			"genero":        {Key: "genero", Name: "Gênero", Type: vitrine.AttributeText, Public: true},
			"age_group":     {Key: "age_group", Name: "Age group", Type: vitrine.AttributeText, Public: true},
			"part_number":   {Key: "part_number", Name: "Part number", Type: vitrine.AttributeText, Public: true},
			"supplier_code": {Key: "supplier_code", Name: "Supplier code", Type: vitrine.AttributeText},
		},
		Categories: map[string]*vitrine.Category{
			apparelID: {ID: apparelID, Name: "Vestuário"},
			shirtsID:  {ID: shirtsID, ParentID: apparelID, Name: "Camisetas"},
			kitchenID: {ID: kitchenID, Name: "Cozinha"},
		},
	}
}

const (
	apparelID = "0190a1b2-0000-7000-8000-0000000c0001"
	shirtsID  = "0190a1b2-0000-7000-8000-0000000c0002"
	kitchenID = "0190a1b2-0000-7000-8000-0000000c0003"
)

func ptr[T any](v T) *T { return &v }

// shirt is a product of two variants: one with a GTIN on sale, in stock;
// one with only a SKU, sold out and sold on backorder. It is apparel (in
// Vestuário > Camisetas) and says its gender and age group by public
// attributes.
func shirt(id string) *vitrine.Product {
	p := &vitrine.Product{ID: id, TenantID: tenantID, Handle: "camiseta-" + id[len(id)-4:], Name: "Camiseta Básica",
		Description: "<p>Algodão <b>macio</b> &amp; fresco</p>", Vendor: "Malharia Sul", ProductType: "Camisetas",
		Status: vitrine.ProductActive, Currency: "BRL",
		Options:    []vitrine.Option{{Name: "Tamanho", Values: []string{"M", "G"}}, {Name: "Cor", Values: []string{"Azul"}}},
		Media:      []vitrine.Media{{URL: "https://cdn.example/shirt.jpg", Position: 1}, {URL: "/demo/images/shirt-back.png", Position: 2}},
		Categories: []vitrine.ProductCategory{{ID: shirtsID, Name: "Camisetas"}},
		Attributes: map[string]any{"fabric": "Algodão", "margin": "62% secret", "genero": "Unissex", "age_group": "adult"},
		Variants: []*vitrine.Variant{
			{ID: id + "-v1", SKU: "CAM-" + id[len(id)-4:] + "-M", Options: map[string]string{"Tamanho": "M", "Cor": "Azul"}, Price: 4990, CompareAtPrice: ptr[int64](5990),
				Barcode: "7891234567895", Stock: 7, Policy: vitrine.PolicyDeny},
			{ID: id + "-v2", SKU: "CAM-" + id[len(id)-4:] + "-G", Options: map[string]string{"Tamanho": "G", "Cor": "Azul"}, Price: 4990,
				Stock: 0, Policy: vitrine.PolicyContinue},
		}}
	p.Summarize()
	return p
}

// mug is a product of one variant without options, SKU or barcode.
func mug(id string) *vitrine.Product {
	p := &vitrine.Product{ID: id, TenantID: tenantID, Handle: "caneca-" + id[len(id)-4:], Name: "Caneca", Description: "Cerâmica.",
		Vendor: "Louças", Status: vitrine.ProductActive, Currency: "BRL", Media: []vitrine.Media{{URL: "https://cdn.example/mug.jpg"}},
		Variants: []*vitrine.Variant{{ID: id + "-v1", Options: map[string]string{}, Price: 2500, Stock: 0, Policy: vitrine.PolicyDeny}}}
	p.Summarize()
	return p
}

func writeFeed(t testing.TB, win feed.Window, src feed.Source, kind feed.Kind) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := feed.Write(ctx, &b, win, src, kind); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const g = feed.GoogleNamespace

// rss is Google's feed as a namespace-aware XML parser reads it.
type rss struct {
	XMLName xml.Name `xml:"rss"`
	Version string   `xml:"version,attr"`
	Channel struct {
		Title string       `xml:"title"`
		Link  string       `xml:"link"`
		Items []googleItem `xml:"item"`
	} `xml:"channel"`
}

type googleItem struct {
	ID               string   `xml:"http://base.google.com/ns/1.0 id"`
	Title            string   `xml:"title"`
	Description      string   `xml:"description"`
	Link             string   `xml:"link"`
	ImageLink        string   `xml:"http://base.google.com/ns/1.0 image_link"`
	AdditionalImages []string `xml:"http://base.google.com/ns/1.0 additional_image_link"`
	Availability     string   `xml:"http://base.google.com/ns/1.0 availability"`
	Price            string   `xml:"http://base.google.com/ns/1.0 price"`
	SalePrice        string   `xml:"http://base.google.com/ns/1.0 sale_price"`
	ItemGroupID      string   `xml:"http://base.google.com/ns/1.0 item_group_id"`
	Brand            string   `xml:"http://base.google.com/ns/1.0 brand"`
	GTIN             string   `xml:"http://base.google.com/ns/1.0 gtin"`
	MPN              string   `xml:"http://base.google.com/ns/1.0 mpn"`
	IdentifierExists string   `xml:"http://base.google.com/ns/1.0 identifier_exists"`
	Condition        string   `xml:"http://base.google.com/ns/1.0 condition"`
	ProductTypes     []string `xml:"http://base.google.com/ns/1.0 product_type"`
	Size             string   `xml:"http://base.google.com/ns/1.0 size"`
	Color            string   `xml:"http://base.google.com/ns/1.0 color"`
	Gender           string   `xml:"http://base.google.com/ns/1.0 gender"`
	Details          []struct {
		Name  string `xml:"http://base.google.com/ns/1.0 attribute_name"`
		Value string `xml:"http://base.google.com/ns/1.0 attribute_value"`
	} `xml:"http://base.google.com/ns/1.0 product_detail"`
	// Unprefixed copies of the g: fields catch an element written
	// without its namespace.
	BareID string `xml:"id"`
}

// parseGoogle parses a Google feed strictly and checks every item holds
// what Merchant Center requires of it.
func parseGoogle(t testing.TB, body []byte) map[string]googleItem {
	t.Helper()
	var doc rss
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = true
	if err := d.Decode(&doc); err != nil {
		t.Fatalf("the Google feed does not parse: %v\n%s", err, body)
	}
	if doc.Version != "2.0" {
		t.Errorf("rss version %q", doc.Version)
	}
	if !bytes.Contains(body, []byte(`xmlns:g="`+g+`"`)) {
		t.Errorf("the feed does not bind g: to %s", g)
	}
	out := map[string]googleItem{}
	for _, it := range doc.Channel.Items {
		for name, v := range map[string]string{"id": it.ID, "title": it.Title, "description": it.Description, "link": it.Link,
			"image_link": it.ImageLink, "availability": it.Availability, "price": it.Price, "brand": it.Brand, "condition": it.Condition} {
			if v == "" {
				t.Errorf("item %s has no %s", it.ID, name)
			}
		}
		if it.BareID != "" {
			t.Errorf("item %s has an id outside the g: namespace", it.ID)
		}
		if !slices.Contains([]string{"in_stock", "out_of_stock", "backorder", "preorder"}, it.Availability) {
			t.Errorf("item %s: availability %q", it.ID, it.Availability)
		}
		if it.GTIN == "" && it.MPN == "" && it.IdentifierExists != "no" {
			t.Errorf("item %s has neither GTIN nor MPN, and does not say identifier_exists no", it.ID)
		}
		if _, dup := out[it.ID]; dup {
			t.Errorf("item %s twice", it.ID)
		}
		out[it.ID] = it
	}
	return out
}

// parseOpenAI reads OpenAI's feed through a gzip reader, a JSON object a
// line, and checks every line holds what OpenAI's specification requires.
func parseOpenAI(t testing.TB, body []byte) map[string]map[string]any {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("the OpenAI feed is not gzip: %v", err)
	}
	out := map[string]map[string]any{}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var it map[string]any
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		id, _ := it["item_id"].(string)
		// The nine fields OpenAI's Products reference requires, and what
		// Vitrine always sends.
		for _, name := range []string{"item_id", "title", "description", "url", "brand", "seller_name", "image_url", "availability", "price",
			"group_id", "condition"} {
			if s, _ := it[name].(string); s == "" {
				t.Errorf("item %s has no %s", id, name)
			}
		}
		for _, name := range []string{"is_eligible_search", "is_eligible_checkout", "listing_has_variations"} {
			if _, ok := it[name].(bool); !ok {
				t.Errorf("item %s: %s is %v, not a boolean", id, name, it[name])
			}
		}
		if _, ok := it["store_country"]; ok {
			t.Errorf("item %s has a store_country, which Vitrine does not know", id)
		}
		if !slices.Contains([]string{"in_stock", "out_of_stock", "backorder", "pre_order", "unknown"}, it["availability"].(string)) {
			t.Errorf("item %s: availability %q", id, it["availability"])
		}
		if _, dup := out[id]; dup {
			t.Errorf("item %s twice", id)
		}
		out[id] = it
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the OpenAI feed: %v", err)
	}
	return out
}

// storeSource is a Source over a store, as the window's Shopper reads it:
// the company's active products, by creation.
type storeSource struct{ db *store.DB }

func (s storeSource) PublishedProducts(ctx context.Context, tenantID, after string, limit int) ([]*vitrine.Product, error) {
	f, err := vitrine.NewProductFilter(vitrine.ProductQuery{Status: vitrine.ProductActive, Sort: vitrine.SortCreated})
	if err != nil {
		return nil, err
	}
	var from *vitrine.ProductKey
	if after != "" {
		from = &vitrine.ProductKey{ID: after}
	}
	return s.db.ListProducts(ctx, tenantID, f.Page(limit, from))
}
