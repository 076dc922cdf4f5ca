package httpserver_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/shopwindow"
)

// The window's pages as people and search engines meet them: through the
// handler stack `vitrine serve` mounts.

// openPages opens a company's window without a product page template of
// its own: the window's pages are its product pages.
func (sw *shopWorld) openPages(slug string) {
	sw.setShop(slug, func(s *vitrine.Shop) { s.Open, s.ProductURL = true, "" })
}

// get fetches an absolute URL the window handed out, at the host it names.
func (sw *shopWorld) get(raw string, header map[string]string) answer {
	sw.t.Helper()
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		sw.t.Fatalf("not an absolute URL: %q", raw)
	}
	return sw.do("GET", u.Host, u.RequestURI(), "", header)
}

func (sw *shopWorld) handle(slug, sku string) string {
	sw.t.Helper()
	p, err := sw.db.ProductBySKU(ctx, sw.tenants[slug], sku)
	if err != nil {
		sw.t.Fatal(err)
	}
	return p.Handle
}

var ldScript = regexp.MustCompile(`(?s)<script type="application/ld\+json">(.*?)</script>`)

// jsonLD is a page's one JSON-LD block, parsed.
func jsonLD(t *testing.T, body []byte) map[string]any {
	t.Helper()
	m := ldScript.FindAllSubmatch(body, -1)
	if len(m) != 1 {
		t.Fatalf("%d JSON-LD blocks in %s", len(m), body)
	}
	var ld map[string]any
	if err := json.Unmarshal(m[0][1], &ld); err != nil {
		t.Fatalf("JSON-LD: %v: %s", err, m[0][1])
	}
	return ld
}

// checkOffer checks an Offer as Google's merchant listings require it.
func checkOffer(t *testing.T, what string, o map[string]any, currency string) {
	t.Helper()
	if o["@type"] != "Offer" || o["priceCurrency"] != currency || o["itemCondition"] != "https://schema.org/NewCondition" {
		t.Errorf("%s: offer %v", what, o)
	}
	if p, _ := o["price"].(string); !regexp.MustCompile(`^\d+(\.\d+)?$`).MatchString(p) {
		t.Errorf("%s: offer price %q", what, o["price"])
	}
	if a, _ := o["availability"].(string); !strings.HasPrefix(a, "https://schema.org/") {
		t.Errorf("%s: availability %q", what, o["availability"])
	}
	if u, _ := o["url"].(string); !strings.HasPrefix(u, "http://vitrine.test/shops/technova/products/") {
		t.Errorf("%s: offer url %q", what, o["url"])
	}
}

func TestShopWindowPages(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbURL string) {
		sw := newShopWorld(t, dbURL, nil)
		sw.openPages("technova")
		sw.open("mercado-verde")
		absent := sw.do("GET", "", "/shops/nobody/", "", nil)

		home := sw.do("GET", "", "/shops/technova/", "", nil)
		body := string(home.body)
		if home.status != 200 || !strings.HasPrefix(home.header.Get("Content-Type"), "text/html") {
			t.Fatalf("home: %d %v %s", home.status, home.header, home.body)
		}
		for _, want := range []string{`<html lang="pt-BR">`, `name="viewport"`, "TechNova Comércio Eletrônico", `<form class="search" method="get"`,
			`name="q"`, `<label for="q"`, "Mouse Logitech MX Master 3S", "R$ 649,90", "Notebooks", `alt="Mouse Logitech MX Master 3S, grafite"`,
			"Em estoque", "Esgotado"} {
			if !strings.Contains(body, want) {
				t.Errorf("home lacks %q", want)
			}
		}
		for _, hidden := range []string{"Cadeira Ergonômica", "Boné TechNova", "Mel ", "<script"} {
			if strings.Contains(body, hidden) {
				t.Errorf("home shows %q", hidden)
			}
		}
		csp := home.header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "style-src 'sha256-") || strings.Contains(csp, "script-src") {
			t.Errorf("home's CSP: %q", csp)
		}
		// 304 while the catalog is unchanged; a change moves the tag.
		etag := home.header.Get("ETag")
		if again := sw.do("GET", "", "/shops/technova/", "", map[string]string{"If-None-Match": etag}); etag == "" || again.status != 304 {
			t.Errorf("home again: %q, %d", etag, again.status)
		}
		// At the root of the window's host too, and the path without its slash.
		if root := sw.do("GET", "technova."+shopDomain, "/", "", nil); root.status != 200 || !strings.Contains(string(root.body), `href="http://technova.shops.test/products/`) {
			t.Errorf("home at the host's root: %d", root.status)
		}
		if r := sw.do("GET", "", "/shops/technova?q=mouse", "", nil); r.status != 200 || !strings.Contains(string(r.body), "Mouse Logitech") {
			t.Errorf("the window's path without its slash: %d", r.status)
		}
		// A search, a category, and pages by cursor.
		search := sw.do("GET", "", "/shops/technova/?q=logitech", "", nil)
		if search.status != 200 || !strings.Contains(string(search.body), "Mouse Logitech") || strings.Contains(string(search.body), "Notebook Dell") ||
			!strings.Contains(string(search.body), `value="logitech"`) || !strings.Contains(string(search.body), `name="robots" content="noindex"`) {
			t.Errorf("search: %d %s", search.status, search.body)
		}
		if long := sw.do("GET", "", "/shops/technova/?q="+strings.Repeat("a", 300), "", nil); long.status != 400 || !strings.Contains(string(long.body), `role="alert"`) {
			t.Errorf("a search too long: %d", long.status)
		}
		catLink := regexp.MustCompile(`href="(http://vitrine.test/shops/technova/\?category=[^"]+)">Informática</a>`).FindStringSubmatch(body)
		if catLink == nil {
			t.Fatalf("no link to Informática on the home page")
		}
		inCat := sw.get(strings.ReplaceAll(catLink[1], "&amp;", "&"), nil)
		if inCat.status != 200 || !strings.Contains(string(inCat.body), "Notebook Dell") || strings.Contains(string(inCat.body), "Camiseta TechNova") {
			t.Errorf("a category: %d", inCat.status)
		}
		seen := map[string]bool{}
		next := "http://vitrine.test/shops/technova/"
		for pages := 0; next != "" && pages < 20; pages++ {
			r := sw.get(next, nil)
			for _, m := range regexp.MustCompile(`<h2>([^<]+)</h2></a>`).FindAllStringSubmatch(string(r.body), -1) {
				if seen[m[1]] {
					t.Errorf("%q on two pages", m[1])
				}
				seen[m[1]] = true
			}
			next = ""
			if m := regexp.MustCompile(`href="([^"]+)" rel="next"`).FindStringSubmatch(string(r.body)); m != nil {
				next = strings.ReplaceAll(m[1], "&amp;", "&")
			}
		}
		all, err := vitrine.NewProductFilter(vitrine.ProductQuery{Status: vitrine.ProductActive, Sort: vitrine.SortCreated})
		if err != nil {
			t.Fatal(err)
		}
		active, _ := sw.db.ListProducts(ctx, sw.tenants["technova"], all.Page(1000, nil))
		if len(seen) != len(active) {
			t.Errorf("pages listed %d products, the window has %d", len(seen), len(active))
		}

		// A product of many variants: a ProductGroup.
		shirt := sw.do("GET", "", "/shops/technova/products/"+sw.handle("technova", "CAM-DEV-AZ-P"), "", nil)
		if shirt.status != 200 {
			t.Fatalf("the shirt's page: %d %s", shirt.status, shirt.body)
		}
		for _, want := range []string{"<h1>Camiseta TechNova Dev</h1>", `alt="Camiseta azul, costas"`, "<strong>git push</strong>",
			`aria-label="Navegação"`, ">Vestuário</a>", ">Camisetas</a>", "Tamanho", "Preta / GG", "R$ 69,90", "<s>R$ 59,90</s>", "Gênero", "Unissex"} {
			if !strings.Contains(string(shirt.body), want) {
				t.Errorf("the shirt's page lacks %q", want)
			}
		}
		if strings.Contains(string(shirt.body), "100% algodão") {
			t.Errorf("a private attribute (material) on the page")
		}
		g := jsonLD(t, shirt.body)
		variants, _ := g["hasVariant"].([]any)
		if g["@context"] != "https://schema.org" || g["@type"] != "ProductGroup" || g["name"] != "Camiseta TechNova Dev" || g["productGroupID"] == "" ||
			len(variants) != 8 || g["brand"].(map[string]any)["name"] != "TechNova" || len(g["image"].([]any)) != 3 || g["description"] == "" {
			t.Fatalf("the shirt's JSON-LD: %v", g)
		}
		if vb, _ := json.Marshal(g["variesBy"]); string(vb) != `["https://schema.org/color","https://schema.org/size"]` {
			t.Errorf("variesBy: %s", vb)
		}
		for _, v := range variants {
			v := v.(map[string]any)
			if v["@type"] != "Product" || v["sku"] == "" || v["color"] == "" || v["size"] == "" || v["image"] == nil {
				t.Errorf("a variant: %v", v)
			}
			checkOffer(t, "shirt "+v["sku"].(string), v["offers"].(map[string]any), "BRL")
			if v["sku"] == "CAM-DEV-PR-M" && v["offers"].(map[string]any)["availability"] != "https://schema.org/OutOfStock" {
				t.Errorf("a variant out of stock: %v", v)
			}
			if v["sku"] == "CAM-DEV-PR-G" {
				o := v["offers"].(map[string]any)
				if o["price"] != "49.90" || o["priceSpecification"].(map[string]any)["price"] != "59.90" {
					t.Errorf("a variant on sale: %v", o)
				}
			}
		}
		// ?variant= preselects.
		shirtProduct, _ := sw.db.ProductBySKU(ctx, sw.tenants["technova"], "CAM-DEV-PR-GG")
		var gg string
		for _, v := range shirtProduct.Variants {
			if v.SKU == "CAM-DEV-PR-GG" {
				gg = v.ID
			}
		}
		pre := sw.do("GET", "", "/shops/technova/products/"+shirtProduct.Handle+"?variant="+gg, "", nil)
		if !regexp.MustCompile(`<tr aria-current="true"><th scope="row"><a href="[^"]+">Preta / GG</a>`).Match(pre.body) {
			t.Errorf("?variant= does not preselect Preta / GG")
		}

		// A product of one variant: one Product with its Offer.
		mouse := sw.do("GET", "", "/shops/technova/products/"+sw.handle("technova", "MS-LOGI-MX3S"), "", nil)
		p := jsonLD(t, mouse.body)
		if p["@type"] != "Product" || p["sku"] != "MS-LOGI-MX3S" || p["name"] != "Mouse Logitech MX Master 3S" || p["hasVariant"] != nil ||
			p["brand"].(map[string]any)["name"] != "Logitech" || p["image"] == nil || p["description"] == "" {
			t.Errorf("the mouse's JSON-LD: %v", p)
		}
		checkOffer(t, "mouse", p["offers"].(map[string]any), "BRL")
		if strings.Contains(string(mouse.body), "Garantia") || strings.Contains(string(mouse.body), "Sem fio") || strings.Contains(string(mouse.body), "(40)") {
			t.Errorf("a private attribute or exact stock on the mouse's page")
		}
		if again := sw.do("GET", "", "/shops/technova/products/"+sw.handle("technova", "MS-LOGI-MX3S"), "", map[string]string{"If-None-Match": mouse.header.Get("ETag")}); again.status != 304 {
			t.Errorf("the mouse again: %d", again.status)
		}
		// Exact stock only when disclosed.
		sw.setShop("technova", func(s *vitrine.Shop) { s.Stock = vitrine.StockExact })
		if m := sw.do("GET", "", "/shops/technova/products/"+sw.handle("technova", "MS-LOGI-MX3S"), "", nil); !strings.Contains(string(m.body), "Em estoque (40)") {
			t.Errorf("exact stock disclosed, not shown")
		}

		// Whatever the window does not show is the 404 of a window nobody has.
		for what, path := range map[string]string{
			"a draft":                  "/shops/technova/products/" + sw.handle("technova", "BONE-TN"),
			"an archived product":      "/shops/technova/products/" + sw.handle("technova", "CH-ERGO-01"),
			"another company's":        "/shops/technova/products/" + sw.handle("mercado-verde", "FR-MACA-FUJI"),
			"an unknown handle":        "/shops/technova/products/nothing-here",
			"a product by id":          "/shops/technova/products/" + sw.productID("technova", "MS-LOGI-MX3S"),
			"a path under a product":   "/shops/technova/products/" + sw.handle("technova", "MS-LOGI-MX3S") + "/x",
			"a closed window's home":   "/shops/nobody/",
			"a closed window's robots": "/shops/nobody/robots.txt",
		} {
			r := sw.do("GET", "", path, "", nil)
			if r.status != 404 || !bytes.Equal(r.body, absent.body) || r.header.Get("ETag") != "" || r.header.Get("Content-Type") != absent.header.Get("Content-Type") {
				t.Errorf("%s: %d %q %v", what, r.status, r.body, r.header)
			}
		}

		// An HTML-laden name renders as text.
		cs := connectTo(t, sw.hs.URL, sw.tokens[owner])
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "update_product", Arguments: map[string]any{
			"tenant_id": sw.tenants["technova"], "id": sw.productID("technova", "MS-LOGI-MX3S"), "name": `Mouse <img src=x onerror=alert(1)>`}})
		if err != nil || res.IsError {
			t.Fatalf("update_product: %v %v", err, res)
		}
		laden := sw.do("GET", "", "/shops/technova/products/"+sw.handle("technova", "MS-LOGI-MX3S"), "", nil)
		if laden.status != 200 || strings.Contains(string(laden.body), "<img src=x") || !strings.Contains(string(laden.body), "Mouse &lt;img src=x onerror=alert(1)&gt;") {
			t.Errorf("an HTML-laden name: %d", laden.status)
		}
		if h := sw.do("GET", "", "/shops/technova/", "", nil); strings.Contains(string(h.body), "<img src=x") {
			t.Errorf("an HTML-laden name on the home page")
		}

		// The sitemap lists every active product's page, each answered 200;
		// robots.txt names it.
		robots := sw.do("GET", "", "/shops/technova/robots.txt", "", nil)
		if robots.status != 200 || !strings.Contains(string(robots.body), "Sitemap: http://vitrine.test/shops/technova/sitemap.xml") {
			t.Errorf("robots.txt: %d %s", robots.status, robots.body)
		}
		sm := sw.do("GET", "", "/shops/technova/sitemap.xml", "", nil)
		var urlset struct {
			URLs []struct {
				Loc     string `xml:"loc"`
				LastMod string `xml:"lastmod"`
			} `xml:"url"`
		}
		if err := xml.Unmarshal(sm.body, &urlset); err != nil || sm.status != 200 {
			t.Fatalf("sitemap: %d %v", sm.status, err)
		}
		if len(urlset.URLs) != len(active)+1 {
			t.Errorf("sitemap: %d URLs for %d active products and the home page", len(urlset.URLs), len(active))
		}
		for _, u := range urlset.URLs {
			if r := sw.get(u.Loc, nil); r.status != 200 {
				t.Errorf("sitemap's %s: %d", u.Loc, r.status)
			}
			if strings.Contains(u.Loc, "/products/") && u.LastMod == "" {
				t.Errorf("sitemap's %s without lastmod", u.Loc)
			}
		}
	})
}

// Without a product page template, every URL the window hands out is one
// of its pages, and each answers 200: UCP's urls and continue_url, both
// feeds' links, the feeds' seller URL and channel link. With one, product URLs follow it and
// the pages stay.
func TestShopWindowLinksLeadToPages(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbURL string) {
		sw := newShopWorld(t, dbURL, nil)
		sw.openPages("technova")
		var links []string
		for _, p := range productsOf(t, sw.rest("technova", "search", `{"query":"c","pagination":{"limit":50}}`).json(t)) {
			links = append(links, p["url"].(string))
			for _, v := range p["variants"].([]any) {
				links = append(links, v.(map[string]any)["url"].(string))
			}
		}
		shirt := sw.rest("technova", "product", `{"id":"`+sw.productID("technova", "CAM-DEV-AZ-P")+`"}`).json(t)["product"].(map[string]any)
		links = append(links, shirt["url"].(string))
		for _, v := range shirt["variants"].([]any) {
			links = append(links, v.(map[string]any)["url"].(string))
		}
		if len(links) < 10 {
			t.Fatalf("UCP handed out %d URLs", len(links))
		}
		google := sw.do("GET", "", "/shops/technova/feeds/google.xml", "", nil)
		var rss struct {
			Link  string   `xml:"channel>link"`
			Items []string `xml:"channel>item>link"`
		}
		if err := xml.Unmarshal(google.body, &rss); err != nil || len(rss.Items) == 0 {
			t.Fatalf("google feed: %v, %d items: %s", err, len(rss.Items), google.body)
		}
		links = append(append(links, rss.Link), rss.Items...)
		openai := sw.do("GET", "", "/shops/technova/feeds/openai.jsonl.gz", "", nil)
		zr, err := gzip.NewReader(bytes.NewReader(openai.body))
		if err != nil {
			t.Fatal(err)
		}
		lines, _ := io.ReadAll(zr)
		n := 0
		for _, line := range bytes.Split(bytes.TrimSpace(lines), []byte("\n")) {
			var item map[string]any
			if err := json.Unmarshal(line, &item); err != nil {
				t.Fatalf("openai feed line %q: %v", line, err)
			}
			for _, k := range []string{"url", "seller_url"} {
				if u, _ := item[k].(string); u != "" {
					links = append(links, u)
				} else {
					t.Errorf("openai item without %s: %s", k, line)
				}
			}
			n++
		}
		if n == 0 {
			t.Fatalf("openai feed: no items")
		}
		// A failed negotiation sends the buyer on to the window's home page.
		bad := sw.do("POST", "", "/shops/technova/ucp/catalog/search", `{"query":"mouse"}`, map[string]string{"UCP-Agent": `profile="` + sw.agent.URL + `/malformed.json"`})
		if cu, _ := bad.json(t)["continue_url"].(string); cu != "http://vitrine.test/shops/technova/" {
			t.Errorf("continue_url without a template: %s", bad.body)
		} else {
			links = append(links, cu)
		}
		for _, l := range links {
			if !strings.HasPrefix(l, "http://vitrine.test/shops/technova") {
				t.Errorf("a link outside the window: %s", l)
				continue
			}
			if r := sw.get(l, nil); r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
				t.Errorf("%s: %d", l, r.status)
			}
		}

		// With the company's template, product URLs follow it; the pages stay.
		sw.open("technova")
		m := sw.rest("technova", "product", `{"id":"`+sw.productID("technova", "MS-LOGI-MX3S")+`"}`).json(t)["product"].(map[string]any)
		if m["url"] != "https://technova.example/products/"+sw.handle("technova", "MS-LOGI-MX3S") {
			t.Errorf("url with a template: %v", m["url"])
		}
		page := sw.do("GET", "", "/shops/technova/products/"+sw.handle("technova", "MS-LOGI-MX3S"), "", nil)
		if page.status != 200 || !strings.Contains(string(page.body), `<link rel="canonical" href="https://technova.example/products/`) {
			t.Errorf("the page with a template: %d", page.status)
		}
	})
}

// Pages count against the window's per-address limit.
func TestShopWindowPagesRateLimited(t *testing.T) {
	sw := newShopWorld(t, dbtest.SQLiteURL(t), &shopwindow.Limits{AddrRate: 0.001, AddrBurst: 2})
	sw.openPages("technova")
	for i := range 2 {
		if r := sw.do("GET", "", "/shops/technova/", "", nil); r.status != 200 {
			t.Fatalf("request %d: %d", i, r.status)
		}
	}
	if r := sw.do("GET", "", "/shops/technova/products/x", "", nil); r.status != 429 || r.header.Get("Retry-After") == "" {
		t.Errorf("past the limit: %d %v", r.status, r.header)
	}
}

// The home page names the categories a visitor can browse, never one whose
// only products are drafts or archived (the demo's "Bonés" holds only a
// draft, "Escritório" only an archived chair): naming them would tell the
// public what the company has not published.
func TestShopWindowHomeNamesOnlyShownCategories(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		sw := newShopWorld(t, url, nil)
		sw.openPages("technova")
		r := sw.do("GET", "", "/shops/technova/", "", nil)
		if r.status != 200 {
			t.Fatalf("home page: %d", r.status)
		}
		body := string(r.body)
		for _, c := range []string{"Camisetas", "Vestuário"} {
			if !strings.Contains(body, c) {
				t.Errorf("the home page does not name %q, which holds an active product (or one under it)", c)
			}
		}
		for _, c := range []string{"Bonés", "Escritório"} {
			if strings.Contains(body, c) {
				t.Errorf("the home page names %q, which holds no product the window shows", c)
			}
		}
	})
}
