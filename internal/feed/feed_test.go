package feed_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/feed"
)

const (
	shirtID = "0190a1b2-0000-7000-8000-00000000a001"
	mugID   = "0190a1b2-0000-7000-8000-00000000a002"
	draftID = "0190a1b2-0000-7000-8000-00000000a003"
	oldID   = "0190a1b2-0000-7000-8000-00000000a004"
	otherID = "0190a1b2-0000-7000-8000-00000000a005"
)

// catalog is a company's products beside a draft, an archived product and
// another company's product, none of which a feed may show.
func catalog() *memSource {
	draft := shirt(draftID)
	draft.Status = vitrine.ProductDraft
	old := mug(oldID)
	old.Status = vitrine.ProductArchived
	other := mug(otherID)
	other.TenantID = "0190a1b2-0000-7000-8000-000000000002"
	return &memSource{products: []*vitrine.Product{shirt(shirtID), mug(mugID), draft, old, other}}
}

func TestGoogleFeed(t *testing.T) {
	win := window()
	src := catalog()
	items := parseGoogle(t, writeFeed(t, win, src, feed.Google))
	if got := slices.Sorted(maps.Keys(items)); !slices.Equal(got, []string{shirtID + "-v1", shirtID + "-v2", mugID + "-v1"}) {
		t.Fatalf("items %v; want the shirt's two variants and the mug (no draft, archived or other company's product)", got)
	}
	// A store that hands over drafts and another company's products does
	// not get them published: the feed checks each product again.
	src.lax = true
	if lax := parseGoogle(t, writeFeed(t, win, src, feed.Google)); len(lax) != len(items) {
		t.Errorf("from a lax store, %d items; want %d", len(lax), len(items))
	}
	m, gg := items[shirtID+"-v1"], items[shirtID+"-v2"]
	want := googleItem{ID: shirtID + "-v1", Title: "Camiseta Básica — M / Azul", Description: "Algodão macio & fresco",
		Link: "https://shop.example/products/camiseta-a001?variant=" + shirtID + "-v1", ImageLink: "https://cdn.example/shirt.jpg",
		AdditionalImages: []string{"https://vitrine.example/demo/images/shirt-back.png"}, Availability: "in_stock",
		Price: "59.90 BRL", SalePrice: "49.90 BRL", ItemGroupID: shirtID, Brand: "Malharia Sul", GTIN: "7891234567895",
		Condition: "new", ProductTypes: []string{"Vestuário > Camisetas"}, Size: "M", Color: "Azul", Gender: "unisex"}
	want.Details = m.Details
	if !equalItems(m, want) {
		t.Errorf("the shirt's M:\n got %+v\nwant %+v", m, want)
	}
	if len(m.Details) != 3 || m.Details[1].Name != "Fabric" || m.Details[1].Value != "Algodão" || strings.Contains(fmt.Sprint(m.Details), "secret") {
		t.Errorf("product details %+v; want the public ones only", m.Details)
	}
	// A SKU is the company's, not the manufacturer's part number: no MPN.
	if gg.Availability != "backorder" || gg.GTIN != "" || gg.MPN != "" || gg.IdentifierExists != "no" || gg.SalePrice != "" || gg.Price != "49.90 BRL" || gg.Size != "G" {
		t.Errorf("the shirt's G (sold out, sold on backorder, SKU only, no compare-at): %+v", gg)
	}
	mg := items[mugID+"-v1"]
	if mg.Title != "Caneca" || mg.ItemGroupID != "" || mg.Availability != "out_of_stock" || mg.IdentifierExists != "no" || mg.Price != "25.00 BRL" {
		t.Errorf("the mug (one variant, no identifiers, sold out): %+v", mg)
	}
}

func TestOpenAIFeed(t *testing.T) {
	win := window()
	body := writeFeed(t, win, catalog(), feed.OpenAI)
	items := parseOpenAI(t, body)
	// The mug has neither GTIN nor MPN, which OpenAI's reference makes
	// optional: it is in the feed all the same.
	if got := slices.Sorted(maps.Keys(items)); !slices.Equal(got, []string{shirtID + "-v1", shirtID + "-v2", mugID + "-v1"}) {
		t.Fatalf("items %v; want the shirt's two variants and the mug", got)
	}
	m := items[shirtID+"-v1"]
	for k, v := range map[string]any{
		"title": "Camiseta Básica — M / Azul", "description": "Algodão macio & fresco",
		"url": "https://shop.example/products/camiseta-a001?variant=" + shirtID + "-v1", "image_url": "https://cdn.example/shirt.jpg",
		"price": "59.90 BRL", "sale_price": "49.90 BRL", "availability": "in_stock", "group_id": shirtID, "listing_has_variations": true,
		"brand": "Malharia Sul", "gtin": "7891234567895", "size": "M", "color": "Azul", "seller_name": "TechNova",
		"is_eligible_search": true, "is_eligible_checkout": false, "product_category": "Vestuário > Camisetas", "gender": "unisex", "age_group": "adult",
	} {
		if m[k] != v {
			t.Errorf("%s = %v; want %v", k, m[k], v)
		}
	}
	if d, _ := m["variant_dict"].(map[string]any); d["Tamanho"] != "M" || d["Cor"] != "Azul" {
		t.Errorf("variant_dict %v", m["variant_dict"])
	}
	if imgs, _ := m["additional_image_urls"].([]any); len(imgs) != 1 || imgs[0] != "https://vitrine.example/demo/images/shirt-back.png" {
		t.Errorf("additional_image_urls %v", m["additional_image_urls"])
	}
	if g := items[shirtID+"-v2"]; g["availability"] != "backorder" || g["mpn"] != nil || g["gtin"] != nil {
		t.Errorf("the shirt's G: %v", g)
	}
	for _, it := range items {
		if _, ok := it["inventory_quantity"]; ok {
			t.Errorf("item %s discloses its stock, which the window keeps to availability", it["item_id"])
		}
		if strings.Contains(string(mustJSON(t, it)), "secret") {
			t.Errorf("item %s holds the private attribute's value", it["item_id"])
		}
	}
}

// The feeds write what a company typed, whatever it is, as text: markup
// and CDATA ends escaped, control characters dropped.
func TestFeedsEscapeHostileText(t *testing.T) {
	p := shirt(shirtID)
	p.Name = "Caneca <script>alert(1)</script> ]]> & \"aspas\"\x01\x1b"
	p.Vendor = "Marca ]]><g:price>0.01 BRL</g:price>\x00"
	p.Description = "<p>Texto\x07 com <![CDATA[ ]]> e &lt;b&gt;</p>"
	p.Options[0].Values = []string{"M\x0b", "G"}
	p.Variants[0].Options["Tamanho"] = "M\x0b"
	src := &memSource{products: []*vitrine.Product{p}}
	win := window()
	body := writeFeed(t, win, src, feed.Google)
	items := parseGoogle(t, body)
	m := items[shirtID+"-v1"]
	if want := `Caneca <script>alert(1)</script> ]]> & "aspas" — M / Azul`; m.Title != want {
		t.Errorf("title %q; want %q", m.Title, want)
	}
	if m.Brand != "Marca ]]><g:price>0.01 BRL</g:price>" || m.Price != "59.90 BRL" {
		t.Errorf("brand %q, price %q: the vendor's markup must stay text", m.Brand, m.Price)
	}
	// The description's text, the HTML's own escapes read: "&lt;b&gt;"
	// was the text "<b>", and stays text.
	if m.Description != "Texto com e <b>" {
		t.Errorf("description %q", m.Description)
	}
	for _, c := range []string{"\x00", "\x01", "\x07", "\x0b", "\x1b", "<script>"} {
		if bytes.Contains(body, []byte(c)) {
			t.Errorf("the Google feed holds %q as written", c)
		}
	}
	oi := parseOpenAI(t, writeFeed(t, win, src, feed.OpenAI))[shirtID+"-v1"]
	if oi["title"] != `Caneca <script>alert(1)</script> ]]> & "aspas" — M / Azul` || oi["brand"] != "Marca ]]><g:price>0.01 BRL</g:price>" {
		t.Errorf("OpenAI's title %q, brand %q", oi["title"], oi["brand"])
	}
}

// Exact stock is published only when the window says so, and only where
// the feed has a field for it (OpenAI's inventory_quantity); an untracked
// variant has no quantity to publish.
func TestExactStockOnlyWhenAllowed(t *testing.T) {
	p := shirt(shirtID)
	p.Variants[1].Untracked = true
	src := &memSource{products: []*vitrine.Product{p}}
	win := window()
	for _, it := range parseOpenAI(t, writeFeed(t, win, src, feed.OpenAI)) {
		if _, ok := it["inventory_quantity"]; ok {
			t.Errorf("availability only: item %s has inventory_quantity", it["item_id"])
		}
	}
	win.Shop.Stock = vitrine.StockExact
	items := parseOpenAI(t, writeFeed(t, win, src, feed.OpenAI))
	if q := items[shirtID+"-v1"]["inventory_quantity"]; q != float64(7) {
		t.Errorf("exact: inventory_quantity %v; want 7", q)
	}
	if q, ok := items[shirtID+"-v2"]["inventory_quantity"]; ok || items[shirtID+"-v2"]["availability"] != "in_stock" {
		t.Errorf("exact, untracked: inventory_quantity %v, availability %v; want none, in_stock", q, items[shirtID+"-v2"]["availability"])
	}
	if body := writeFeed(t, win, src, feed.Google); bytes.Contains(body, []byte(">7<")) {
		t.Errorf("the Google feed, which has no stock field, shows a quantity")
	}
}

// A product a channel cannot take is left out of its feed, not sent
// broken; a variant's own problem leaves out only that variant.
func TestFeedsLeaveOutWhatTheChannelRefuses(t *testing.T) {
	noImage := shirt("0190a1b2-0000-7000-8000-00000000b001")
	noImage.Media = nil
	noBrand := shirt("0190a1b2-0000-7000-8000-00000000b002")
	noBrand.Vendor = " "
	free := shirt("0190a1b2-0000-7000-8000-00000000b003")
	free.Variants[1].Price = 0
	long := shirt("0190a1b2-0000-7000-8000-00000000b004")
	long.Name = strings.Repeat("Palavra ", 18) // 144 characters, over 150 with " — M / Azul"
	src := &memSource{products: []*vitrine.Product{noImage, noBrand, free, long}}
	win := window()
	items := parseGoogle(t, writeFeed(t, win, src, feed.Google))
	if got := slices.Sorted(maps.Keys(items)); !slices.Equal(got, []string{free.ID + "-v1"}) {
		t.Errorf("Google's items %v; want only the priced variant of the free product", got)
	}
	win.Shop.ProductURL = ""
	if items := parseGoogle(t, writeFeed(t, win, &memSource{products: []*vitrine.Product{shirt(shirtID)}}, feed.Google)); len(items) != 0 {
		t.Errorf("without a product URL template, Google's feed has %d items; want none (items need a link)", len(items))
	}
}

func TestProblems(t *testing.T) {
	win := window()
	ok := shirt(shirtID)
	for _, ch := range vitrine.ShopChannels {
		if ps := feed.Problems(ch, &win, ok); ps != nil {
			t.Errorf("%s: a complete product has problems %+v", ch, ps)
		}
	}
	bare := mug(mugID)
	bare.Description, bare.Vendor, bare.Media = "<p> </p>", "", nil
	bare.Name = strings.Repeat("x", 151)
	bare.Variants[0].Price = 0
	empty := &feed.Window{Shop: vitrine.NewShop(tenantID)}
	reasons := func(ps []feed.Problem) []feed.Reason {
		var out []feed.Reason
		for _, p := range ps {
			out = append(out, p.Reason)
			if p.Detail == "" {
				t.Errorf("%s has no detail", p.Reason)
			}
		}
		return out
	}
	for ch, want := range map[string][]feed.Reason{
		// UCP requires a description; url, media and brand are optional,
		// and an amount may be 0.
		vitrine.ChannelUCP:    {feed.NoDescription},
		vitrine.ChannelGoogle: {feed.NoProductURL, feed.NoDescription, feed.NoImage, feed.NoBrand, feed.PriceZero, feed.TitleTooLong},
		// OpenAI's GTIN, MPN and countries are optional.
		vitrine.ChannelOpenAI: {feed.NoProductURL, feed.NoDescription, feed.NoImage, feed.NoBrand, feed.PriceZero, feed.TitleTooLong},
	} {
		if got := reasons(feed.Problems(ch, empty, bare)); !slices.Equal(got, want) {
			t.Errorf("%s: %v; want %v", ch, got, want)
		}
	}
	ps := feed.Problems(vitrine.ChannelGoogle, &win, bare)
	for _, p := range ps {
		if (p.Reason == feed.PriceZero || p.Reason == feed.TitleTooLong) != (p.VariantID == bare.Variants[0].ID) {
			t.Errorf("%s is of variant %q", p.Reason, p.VariantID)
		}
	}
	if got := feed.Problems("bing", &win, bare); got != nil {
		t.Errorf("an unknown channel: %v", got)
	}
}

func equalItems(a, b googleItem) bool {
	return a.ID == b.ID && a.Title == b.Title && a.Description == b.Description && a.Link == b.Link && a.ImageLink == b.ImageLink &&
		slices.Equal(a.AdditionalImages, b.AdditionalImages) && a.Availability == b.Availability && a.Price == b.Price &&
		a.SalePrice == b.SalePrice && a.ItemGroupID == b.ItemGroupID && a.Brand == b.Brand && a.GTIN == b.GTIN && a.MPN == b.MPN &&
		a.IdentifierExists == b.IdentifierExists && a.Condition == b.Condition && slices.Equal(a.ProductTypes, b.ProductTypes) &&
		a.Size == b.Size && a.Color == b.Color && a.Gender == b.Gender
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Options fill the feeds' size, color, material, gender and age group by
// the window's mapping and its defaults; gender and age group only with
// the values the surfaces know.
func TestOptionsFillFeedAttributes(t *testing.T) {
	p := shirt(shirtID)
	p.Attributes = nil
	p.Options = []vitrine.Option{{Name: "Gênero", Values: []string{"Feminino", "Outro"}}, {Name: "Faixa etária", Values: []string{"Infantil"}}, {Name: "Modelo", Values: []string{"Linho"}}}
	p.Variants[0].Options = map[string]string{"Gênero": "Feminino", "Faixa etária": "Infantil", "Modelo": "Linho"}
	p.Variants[1].Options = map[string]string{"Gênero": "Outro", "Faixa etária": "Infantil", "Modelo": "Linho"}
	win := window()
	win.Shop.Options = map[string]string{"modelo": "material"}
	body := writeFeed(t, win, &memSource{products: []*vitrine.Product{p}}, feed.Google)
	items := parseGoogle(t, body)
	if it := items[shirtID+"-v1"]; it.Gender != "female" || it.Title != "Camiseta Básica — Feminino / Infantil / Linho" {
		t.Errorf("v1: gender %q, title %q", it.Gender, it.Title)
	}
	if it := items[shirtID+"-v2"]; it.Gender != "" {
		t.Errorf("v2: gender %q; want none for Outro", it.Gender)
	}
	for _, want := range []string{"<g:age_group>kids</g:age_group>", "<g:material>Linho</g:material>"} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("the feed has no %s", want)
		}
	}
	oi := parseOpenAI(t, writeFeed(t, win, &memSource{products: []*vitrine.Product{p}}, feed.OpenAI))[shirtID+"-v1"]
	if oi["gender"] != "female" || oi["age_group"] != "kids" || oi["material"] != "Linho" {
		t.Errorf("OpenAI: gender %v, age_group %v, material %v", oi["gender"], oi["age_group"], oi["material"])
	}
}

// Bytes that are not UTF-8 never reach a feed: both parsers would refuse
// the file, or a surface show garbage.
func TestFeedsDropInvalidUTF8(t *testing.T) {
	p := shirt(shirtID)
	p.Name = "Caneca \xff\xfe Azul \xef\xbf\xbe"
	win := window()
	items := parseGoogle(t, writeFeed(t, win, &memSource{products: []*vitrine.Product{p}}, feed.Google))
	if got := items[shirtID+"-v1"].Title; got != "Caneca Azul — M / Azul" {
		t.Errorf("title %q", got)
	}
}
