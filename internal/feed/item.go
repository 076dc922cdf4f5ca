package feed

import (
	"maps"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
)

// item is one variant as both feeds see it: what it is called, where it
// is, what it costs, whether it can be bought. The feeds differ only in
// how they name and write these.
type item struct {
	ID, GroupID string
	Variants    int // of the product: more than one makes a group
	Title       string
	Description string
	Link        string
	Image       string
	Images      []string // the others, in the product's order
	// Price is what is asked before a sale; SalePrice, when not "", what
	// is asked now.
	Price, SalePrice string
	Availability     availability
	// Quantity is the stock, when the window discloses it exactly and the
	// variant's stock is tracked.
	Quantity    *int64
	Brand       string
	GTIN, MPN   string
	ProductType []string
	// Attrs are the feed attributes the variant's options fill (size,
	// color...), by feed attribute.
	Attrs map[string]string
	// Options are the variant's options, by option name, in the product's
	// order.
	Options []option
	// Details are the product's public attributes.
	Details []detail
}

type option struct{ Name, Value string }

type detail struct{ Name, Value string }

// availability is whether a variant can be bought.
type availability int

const (
	inStock availability = iota
	outOfStock
	backorder
)

// availabilityOf reads a variant's availability: an untracked stock is
// always available; a sold out variant whose policy continues selling is
// on backorder.
func availabilityOf(v *vitrine.Variant) availability {
	switch {
	case v.Untracked || v.Stock > 0:
		return inStock
	case v.Policy == vitrine.PolicyContinue:
		return backorder
	}
	return outOfStock
}

// product is what the items of one product share on one channel,
// computed once.
type product struct {
	p           *vitrine.Product
	description string
	brand       string
	// images are the product's media in a format the channel takes (or
	// whose format its URL does not say), in order; refused counts those
	// left out.
	images  []string
	refused int
	// types are the product's categories, each as its whole path
	// ("Vestuário > Camisetas"), or else its product type.
	types   []string
	details []detail
	// attrs are the feed attributes the product's options fill, by the
	// options' order ("" for none).
	attrs []string
	// fills are the feed attributes the product's public attributes fill
	// (by the window's mapping), under what a variant's options fill.
	fills map[string]string
	// apparel is whether Google reads the product as Apparel &
	// Accessories (apparel.go).
	apparel bool
	// scale is the decimals of the product's currency.
	scale int
}

// productOf reads what p's items share on a channel of rules r;
// maxDescription bounds the description's characters.
func productOf(win *Window, r rules, p *vitrine.Product, maxDescription int) *product {
	pr := &product{p: p, description: plainText(p.Description, maxDescription), brand: clean(p.Vendor),
		scale: vitrine.CurrencyScale(p.Currency)}
	for _, m := range p.Media {
		if u := win.mediaURL(m.URL); r.takesImage(u) {
			pr.images = append(pr.images, u)
		} else {
			pr.refused++
		}
	}
	for _, c := range p.Categories {
		if path := win.categoryPath(c); path != "" {
			pr.types = append(pr.types, path)
		}
	}
	if len(pr.types) == 0 {
		if t := clean(p.ProductType); t != "" {
			pr.types = []string{t}
		}
	}
	pr.apparel = isApparel(p.ProductType, pr.types)
	pr.attrs = make([]string, len(p.Options))
	for i, o := range p.Options {
		pr.attrs[i], _ = win.Shop.FeedAttribute(o.Name)
	}
	for _, k := range slices.Sorted(maps.Keys(p.Attributes)) {
		def := win.Attributes[k]
		if def == nil || !def.Public {
			continue
		}
		v := clean(vitrine.AttributeString(p.Attributes[k]))
		if v == "" {
			continue
		}
		pr.details = append(pr.details, detail{Name: clean(def.Name), Value: v})
		if attr, ok := win.Shop.FeedAttribute(k); ok {
			if v = feedValue(attr, v); v != "" {
				if pr.fills == nil {
					pr.fills = map[string]string{}
				}
				if _, taken := pr.fills[attr]; !taken {
					pr.fills[attr] = v
				}
			}
		}
	}
	return pr
}

// attrsOf are the feed attributes of a variant of pr's product: what its
// options fill, then what the product's public attributes do.
func attrsOf(pr *product, v *vitrine.Variant) (attrs map[string]string, options []option) {
	p := pr.p
	for i, o := range p.Options {
		val := clean(v.Options[o.Name])
		if val == "" {
			continue
		}
		options = append(options, option{Name: clean(o.Name), Value: val})
		attr := pr.attrs[i]
		if attr == "" {
			continue
		}
		if val = feedValue(attr, val); val == "" {
			continue
		}
		if attrs == nil {
			attrs = map[string]string{}
		}
		if _, taken := attrs[attr]; !taken {
			attrs[attr] = val
		}
	}
	for attr, val := range pr.fills {
		if attrs == nil {
			attrs = map[string]string{}
		}
		if _, taken := attrs[attr]; !taken {
			attrs[attr] = val
		}
	}
	return attrs, options
}

// feedValue is val as the feeds take it for attr: gender and age group
// only in the values the surfaces know, read from common words; "" for
// another.
func feedValue(attr, val string) string {
	switch attr {
	case "gender":
		return genders[vitrine.Fold(val)]
	case "age_group":
		return ageGroups[vitrine.Fold(val)]
	}
	return val
}

// itemOf maps a variant of pr's product.
func itemOf(win *Window, pr *product, v *vitrine.Variant) *item {
	p := pr.p
	it := &item{ID: v.ID, GroupID: p.ID, Variants: len(p.Variants), Title: itemTitle(p, v), Description: pr.description,
		Link: variantLink(win.Shop, p, v), Brand: pr.brand, ProductType: pr.types, Details: pr.details,
		Availability: availabilityOf(v)}
	if len(pr.images) > 0 {
		it.Image, it.Images = pr.images[0], pr.images[1:]
	}
	if img := win.mediaURL(v.Image); v.Image != "" && slices.Contains(pr.images, img) {
		// The variant's own image first, then the product's others.
		it.Image, it.Images = img, make([]string, 0, len(pr.images))
		for _, u := range pr.images {
			if u != img {
				it.Images = append(it.Images, u)
			}
		}
	}
	money := func(minor int64) string { return vitrine.FormatPrice(minor, pr.scale) + " " + p.Currency }
	it.Price = money(v.Price)
	if v.CompareAtPrice != nil && *v.CompareAtPrice > v.Price {
		it.Price, it.SalePrice = money(*v.CompareAtPrice), money(v.Price)
	}
	if win.Shop.Stock == vitrine.StockExact && !v.Untracked {
		q := max(v.Stock, 0)
		it.Quantity = &q
	}
	it.Attrs, it.Options = attrsOf(pr, v)
	// A GTIN from the barcode, when it is one; an MPN only from what the
	// company maps to mpn: neither channel takes a guessed one.
	it.GTIN, it.MPN = gtin(v.Barcode), it.Attrs["mpn"]
	return it
}

// genders and ageGroups map option values (folded) to the values both
// feeds take; a value not here is left out rather than sent wrong.
var (
	genders = map[string]string{
		"male": "male", "men": "male", "man": "male", "masculino": "male", "homem": "male", "homens": "male", "hombre": "male", "homme": "male",
		"female": "female", "women": "female", "woman": "female", "feminino": "female", "mulher": "female", "mulheres": "female", "mujer": "female", "femme": "female",
		"unisex": "unisex", "unissex": "unisex",
	}
	ageGroups = map[string]string{
		"adult": "adult", "adults": "adult", "adulto": "adult", "adultos": "adult",
		"kids": "kids", "kid": "kids", "child": "kids", "children": "kids", "infantil": "kids", "crianca": "kids", "criancas": "kids", "nino": "kids", "ninos": "kids",
		"toddler": "toddler", "infant": "infant", "bebe": "infant", "baby": "infant",
		"newborn": "newborn", "recem-nascido": "newborn", "recem nascido": "newborn",
	}
)

// itemTitle is a variant's title: the product's name, then its option
// values in the product's order ("Camiseta — M / Azul").
func itemTitle(p *vitrine.Product, v *vitrine.Variant) string {
	name := oneLine(p.Name)
	if w := variantWords(p, v); w != "" {
		return name + " — " + w
	}
	return name
}

// oneLine is s cleaned, its runs of white space made one space.
func oneLine(s string) string {
	s = clean(s)
	if strings.Contains(s, "  ") || strings.ContainsAny(s, "\t\n\r") {
		s = strings.Join(strings.Fields(s), " ")
	}
	return s
}

// variantWords are a variant's option values in the product's order: "M /
// Azul"; "" for a product without options.
func variantWords(p *vitrine.Product, v *vitrine.Variant) string {
	var words []string
	for _, o := range p.Options {
		if val := clean(v.Options[o.Name]); val != "" {
			words = append(words, val)
		}
	}
	return strings.Join(words, " / ")
}

// variantLink is the product's page with the variant preselected:
// ?variant=<id>, as Shopify's pages take it.
func variantLink(shop *vitrine.Shop, p *vitrine.Product, v *vitrine.Variant) string {
	u := shop.ProductPageURL(p.Handle)
	if u == "" {
		return ""
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + "variant=" + v.ID
}

// mediaURL makes a media path absolute against the server's public URL
// (the demo's images are kept as /demo/images/x.png); absolute URLs are
// kept.
func (w *Window) mediaURL(u string) string {
	if strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//") {
		return strings.TrimSuffix(w.Origin, "/") + u
	}
	return u
}

// categoryPath is a product's category as its whole path from the root,
// " > " between levels, as Google's product_type and OpenAI's
// product_category take it ("Vestuário > Camisetas"); the category's own
// name when the window does not hold its tree.
func (w *Window) categoryPath(c vitrine.ProductCategory) string {
	cat := w.Categories[c.ID]
	if cat == nil {
		return oneLine(c.Name)
	}
	var names []string
	for depth := 0; cat != nil && depth < 64; depth++ {
		if n := oneLine(cat.Name); n != "" {
			names = append(names, n)
		}
		if cat.ParentID == "" {
			break
		}
		cat = w.Categories[cat.ParentID]
	}
	slices.Reverse(names)
	return strings.Join(names, " > ")
}

// gtin returns a barcode that is a GTIN a product is traded under: 8, 12,
// 13 or 14 digits whose last checks the others (GS1's check digit), and
// not of GS1's restricted circulation (a store's own codes, such as those
// of goods sold by weight, and coupons: GTIN-8s starting 0 or 2; GTIN-12s
// and -13s starting 02, 04 or 2 once read as 13 digits), which Google
// refuses; or "".
func gtin(barcode string) string {
	barcode = strings.TrimSpace(barcode)
	switch len(barcode) {
	case 8, 12, 13, 14:
	default:
		return ""
	}
	sum := 0
	for i := len(barcode) - 1; i >= 0; i-- {
		c := barcode[i]
		if c < '0' || c > '9' {
			return ""
		}
		if i == len(barcode)-1 {
			continue
		}
		d := int(c - '0')
		if (len(barcode)-2-i)%2 == 0 {
			d *= 3
		}
		sum += d
	}
	if int(barcode[len(barcode)-1]-'0') != (10-sum%10)%10 {
		return ""
	}
	if strings.Trim(barcode, "0") == "" {
		return ""
	}
	if len(barcode) == 8 {
		if barcode[0] == '0' || barcode[0] == '2' {
			return ""
		}
		return barcode
	}
	// As 13 digits: a GTIN-14's without its packaging indicator, a
	// GTIN-12's with a leading 0.
	g13 := barcode
	switch len(barcode) {
	case 12:
		g13 = "0" + barcode
	case 14:
		g13 = barcode[1:]
	}
	if g13[0] == '2' || strings.HasPrefix(g13, "02") || strings.HasPrefix(g13, "04") {
		return ""
	}
	return barcode
}
