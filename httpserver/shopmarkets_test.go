package httpserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/shopwindow"
)

// A market's window is under each root of its company's, at
// /markets/{handle}/: a handle the company has no market of answers the
// window's one 404, at every path and host, whether the company's window
// is open or not; the market's root without its slash is redirected to it.
func TestShopMarketWindowUnknownMarket(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		sw := newShopWorld(t, url, nil)
		sw.open("technova")
		absent := sw.do("GET", "", "/shops/nobody/.well-known/ucp", "", nil)
		paths := []string{"/.well-known/ucp", "/ucp/mcp", "/ucp/catalog/search", "/feeds/google.xml", "/feeds/openai.jsonl.gz",
			"/", "/products/mouse-logitech-mx-master-3s", "/sitemap.xml", "/robots.txt"}
		for _, root := range []struct{ host, path string }{
			{"", "/shops/technova/markets/nope"},
			{"", "/shops/technova/markets/NOPE%2F"},
			{"", "/shops/technova/markets/" + string(bytes.Repeat([]byte("x"), 5000))},
			{"", "/shops/nobody/markets/us"},
			{"", "/shops/mercado-verde/markets/us"},
			{"technova." + shopDomain, "/markets/nope"},
			{"technova." + shopDomain, "/markets/us/markets/us"},
		} {
			for _, p := range paths {
				for _, method := range []string{"GET", "POST"} {
					if res := sw.do(method, root.host, root.path+p, `{}`, nil); res.status != 404 || !bytes.Equal(res.body, absent.body) {
						t.Errorf("%s %s%s%s: %d %.200s", method, root.host, root.path, p, res.status, res.body)
					}
				}
			}
		}
		// A market's root without its slash, as a company's: redirected,
		// whatever is there (the redirect says nothing of a market).
		noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := noFollow.Get(sw.hs.URL + "/shops/technova/markets/nope?locale=es")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != "/shops/technova/markets/nope/?locale=es" {
			t.Errorf("a market's root without its slash: %d %q", res.StatusCode, res.Header.Get("Location"))
		}
	})
}

// A market's window, through the handler stack vitrine serve mounts: its
// assortment only (a product outside it, a draft, absent by every
// identifier and at every path), in its currency at its prices (explicit,
// else converted and rounded), at its path, at its domain, and on the
// company's window for a buyer of its country; another company's market
// is no window here; its ETags move when it or its prices change.
func TestShopMarketWindow(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		sw := newShopWorld(t, url, nil)
		sw.open("technova")
		tn := sw.tenants["technova"]
		var notebooks string
		cats, err := sw.db.Categories(ctx, tn)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cats {
			if c.Name == "Notebooks" {
				notebooks = c.ID
			}
		}
		us := &vitrine.Market{TenantID: tn, Handle: "us", Name: "United States", Countries: []string{"US"}, Currency: "USD", Locales: []string{"pt-BR"},
			ExchangeRate: "0.2", Rounding: vitrine.Rounding99, Include: vitrine.MarketInclude{CategoryIDs: []string{notebooks}, Tags: []string{"UltraWide", "vestuário"}},
			Domain: "us.technova.example", UpdatedAt: vitrine.Now()}
		call := func(tool string) vitrine.Change {
			return vitrine.Change{UserID: vitrine.NewID(), Call: vitrine.Call{RequestID: vitrine.NewID(), Tool: tool, At: vitrine.Now()}}
		}
		if err := sw.db.SaveMarket(ctx, call("save_market"), us); err != nil {
			t.Fatal(err)
		}
		verde := &vitrine.Market{TenantID: sw.tenants["mercado-verde"], Handle: "pt", Name: "Portugal", Countries: []string{"PT"}, Currency: "EUR",
			Locales: []string{"pt-BR"}, ExchangeRate: "0.17", Rounding: vitrine.RoundingNone, UpdatedAt: vitrine.Now()}
		if err := sw.db.SaveMarket(ctx, call("save_market"), verde); err != nil {
			t.Fatal(err)
		}
		sw.open("mercado-verde")
		nb, err := sw.db.ProductBySKU(ctx, tn, "NB-DELL-5440")
		if err != nil {
			t.Fatal(err)
		}
		compare := int64(129900)
		if err := sw.db.SetMarketPrices(ctx, call("set_market_prices"), tn, us.ID, []vitrine.MarketPrice{{VariantID: nb.Variants[0].ID, Price: 99900, CompareAtPrice: &compare}}, nil); err != nil {
			t.Fatal(err)
		}
		agent := map[string]string{"UCP-Agent": `profile="` + sw.profile + `"`}
		rest := func(host, root, op, body string) answer {
			return sw.do("POST", host, root+"/ucp/catalog/"+op, body, agent)
		}
		const root = "/shops/technova/markets/us"
		prices := func(a answer) map[string]string {
			t.Helper()
			if a.status != 200 {
				t.Fatalf("%d %s", a.status, a.body)
			}
			out := map[string]string{}
			for _, p := range productsOf(t, a.json(t)) {
				min := p["price_range"].(map[string]any)["min"].(map[string]any)
				out[p["title"].(string)] = fmt.Sprintf("%v %v", min["amount"], min["currency"])
			}
			return out
		}
		// The assortment, in dollars: the notebook at its own price, the
		// monitor (R$ 1299.00 × 0.2 = 259.80) up to 259.99.
		got := prices(rest("", root, "search", `{"filters":{"price":{"min":0}},"pagination":{"limit":100}}`))
		if got["Notebook Dell Inspiron 15"] != "99900 USD" || got[`Monitor LG UltraWide 29"`] != "25999 USD" {
			t.Errorf("the market's prices: %v", got)
		}
		for title := range got {
			if strings.Contains(title, "Mouse") || strings.Contains(title, "Boné") || strings.Contains(title, "Teclado") {
				t.Errorf("outside the assortment, or a draft, in the market's search: %s", title)
			}
		}
		if len(got) < 3 {
			t.Errorf("the apparel (tag vestuário) is missing: %v", got)
		}
		// The company's own window is unchanged: reais, every product.
		if own := prices(sw.rest("technova", "search", `{"query":"monitor"}`)); own[`Monitor LG UltraWide 29"`] != "129900 BRL" {
			t.Errorf("the company's window: %v", own)
		}
		// A buyer in the US on the company's window gets the market.
		if ctxd := prices(sw.rest("technova", "search", `{"query":"monitor","context":{"address_country":"US"}}`)); ctxd[`Monitor LG UltraWide 29"`] != "25999 USD" {
			t.Errorf("address_country US on the company's window: %v", ctxd)
		}
		// The market's domain serves its window.
		if byHost := prices(rest("us.technova.example", "", "search", `{"query":"notebook"}`)); byHost["Notebook Dell Inspiron 15"] != "99900 USD" {
			t.Errorf("at the market's domain: %v", byHost)
		}

		// What is outside, by every identifier and path: absent.
		mouse, err := sw.db.ProductBySKU(ctx, tn, "MS-LOGI-MX3S")
		if err != nil {
			t.Fatal(err)
		}
		bone, err := sw.db.ProductBySKU(ctx, tn, "BONE-TN")
		if err != nil {
			t.Fatal(err)
		}
		for _, host := range []struct{ host, root string }{{"", root}, {"us.technova.example", ""}} {
			for _, id := range []string{mouse.ID, mouse.Variants[0].ID, "MS-LOGI-MX3S", mouse.Handle, bone.ID, "BONE-TN", bone.Handle} {
				look := rest(host.host, host.root, "lookup", `{"ids":["`+id+`"]}`)
				if look.status != 200 || len(productsOf(t, look.json(t))) != 0 {
					t.Errorf("%s%s: lookup of %s: %d %.300s", host.host, host.root, id, look.status, look.body)
				}
				if res := sw.do("GET", host.host, host.root+"/products/"+id, "", nil); res.status != 404 {
					t.Errorf("%s%s: the page of %s: %d", host.host, host.root, id, res.status)
				}
			}
			if res := rest(host.host, host.root, "search", `{"query":"mouse"}`); len(productsOf(t, res.json(t))) != 0 {
				t.Errorf("%s%s: a search for the mouse: %.300s", host.host, host.root, res.body)
			}
			for _, feed := range []string{"/feeds/google.xml", "/sitemap.xml"} {
				res := sw.do("GET", host.host, host.root+feed, "", nil)
				if res.status != 200 || bytes.Contains(res.body, []byte("MS-LOGI-MX3S")) || bytes.Contains(res.body, []byte(mouse.Handle)) ||
					bytes.Contains(res.body, []byte("BONE-TN")) || bytes.Contains(res.body, []byte(bone.Handle)) {
					t.Errorf("%s%s%s shows what is outside: %d", host.host, host.root, feed, res.status)
				}
			}
		}
		google := sw.do("GET", "", root+"/feeds/google.xml", "", nil)
		if !bytes.Contains(google.body, []byte("259.99 USD")) || !bytes.Contains(google.body, []byte(nb.Variants[0].ID)) || bytes.Contains(google.body, []byte(" BRL")) {
			t.Errorf("the market's Google feed: %.2000s", google.body)
		}
		if look := rest("", root, "lookup", `{"ids":["NB-DELL-5440"]}`); !bytes.Contains(look.body, []byte(`"USD"`)) || bytes.Contains(look.body, []byte(`"BRL"`)) {
			t.Errorf("a lookup in the market: %.1000s", look.body)
		}

		// Another company's market is no window of this one's; its own is
		// its company's.
		for _, p := range []string{"/shops/technova/markets/pt/ucp/catalog/search", "/shops/mercado-verde/markets/us/ucp/catalog/search"} {
			if res := sw.do("POST", "", p, `{"query":"notebook"}`, agent); res.status != 404 {
				t.Errorf("%s: %d", p, res.status)
			}
		}
		if res := sw.do("POST", "", "/shops/mercado-verde/markets/pt/ucp/catalog/search", `{"query":"notebook"}`, agent); res.status != 200 || len(productsOf(t, res.json(t))) != 0 {
			t.Errorf("verde's market shows technova's notebook: %d %.300s", res.status, res.body)
		}

		// The ETags move with the market's prices, and with the market.
		etag := google.header.Get("ETag")
		if err := sw.db.SetMarketPrices(ctx, call("set_market_prices"), tn, us.ID, nil, []string{nb.Variants[0].ID}); err != nil {
			t.Fatal(err)
		}
		again := sw.do("GET", "", root+"/feeds/google.xml", "", map[string]string{"If-None-Match": etag})
		if again.status != 200 || again.header.Get("ETag") == etag || !bytes.Contains(again.body, []byte("919.99 USD")) {
			t.Errorf("after the price's removal: %d %q", again.status, again.header.Get("ETag"))
		}
		etag = again.header.Get("ETag")
		us.ExchangeRate = "0.25"
		if err := sw.db.SaveMarket(ctx, call("save_market"), us); err != nil {
			t.Fatal(err)
		}
		if again := sw.do("GET", "", root+"/feeds/google.xml", "", map[string]string{"If-None-Match": etag}); again.status != 200 || again.header.Get("ETag") == etag {
			t.Errorf("after the market's change: %d", again.status)
		}
	})
}

// A price filter in a market's window is in the market's currency and
// exact: it keeps the products a variant of which the market sells within
// the range (its catalog price converted and rounded), no other; in a
// market with prices of its own, a variant's explicit price there counts,
// not its conversion, over REST and MCP at each UCP release the window
// serves, through every page, each row showing a variant within the range;
// a draft priced in range stays absent, and another company's market's
// prices count for nothing here.
func TestShopMarketPriceFilter(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		sw := newShopWorld(t, url, nil)
		sw.open("technova")
		tn := sw.tenants["technova"]
		call := func(tool string) vitrine.Change {
			return vitrine.Change{UserID: vitrine.NewID(), Call: vitrine.Call{RequestID: vitrine.NewID(), Tool: tool, At: vitrine.Now()}}
		}
		us := &vitrine.Market{TenantID: tn, Handle: "us", Name: "United States", Countries: []string{"US"}, Currency: "USD", Locales: []string{"pt-BR"},
			ExchangeRate: "0.2", Rounding: vitrine.Rounding99, UpdatedAt: vitrine.Now()}
		if err := sw.db.SaveMarket(ctx, call("save_market"), us); err != nil {
			t.Fatal(err)
		}
		agent := map[string]string{"UCP-Agent": `profile="` + sw.profile + `"`}
		search := func(body string) map[string]any {
			t.Helper()
			res := sw.do("POST", "", "/shops/technova/markets/us/ucp/catalog/search", body, agent)
			if res.status != 200 {
				t.Fatalf("%d %s", res.status, res.body)
			}
			return res.json(t)
		}
		all := titles(productsOf(t, search(`{"filters":{"price":{"min":0}},"pagination":{"limit":100}}`)))
		f, err := vitrine.NewProductFilter(vitrine.ProductQuery{Status: vitrine.ProductActive})
		if err != nil {
			t.Fatal(err)
		}
		ps, err := sw.db.ListProducts(ctx, tn, f.Page(500, nil))
		if err != nil {
			t.Fatal(err)
		}
		cv, err := vitrine.NewConverter(us.ExchangeRate, us.Rounding, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range [][2]int64{{5000, 30000}, {0, 9999}, {25999, 25999}, {100000, 10000000}} {
			var want []string
			for _, p := range ps {
				for _, v := range p.Variants {
					if c, _ := cv.Convert(v.Price, 2); c >= r[0] && c <= r[1] && slices.Contains(all, p.Name) {
						want = append(want, p.Name)
						break
					}
				}
			}
			slices.Sort(want)
			if r[0] == 5000 && (len(want) == 0 || len(want) == len(all)) {
				t.Fatalf("a range that keeps %d of %d products tells nothing", len(want), len(all))
			}
			res := search(fmt.Sprintf(`{"filters":{"price":{"min":%d,"max":%d}},"pagination":{"limit":100}}`, r[0], r[1]))
			got := titles(productsOf(t, res))
			slices.Sort(got)
			if !slices.Equal(got, want) || res["messages"] != nil {
				t.Errorf("USD %d to %d: %v, want %v (%v)", r[0], r[1], got, want, res["messages"])
			}
		}
		if len(all) < 5 {
			t.Fatalf("the market shows %v", all)
		}
		// Prices of its own. The notebook at $1.00 there, whatever its
		// conversion; the monitor's and the first shirt's variants within
		// $50.00 to $50.01; the draft cap too; and Mercado Verde's market
		// prices its own products, which are no product of this window.
		variantOf := func(tenant, sku string) *vitrine.Variant {
			p, err := sw.db.ProductBySKU(ctx, tenant, sku)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range p.Variants {
				if v.SKU == sku {
					return v
				}
			}
			t.Fatalf("no variant %s", sku)
			return nil
		}
		nb := variantOf(tn, "NB-DELL-5440")
		var shirt *vitrine.Product
		for _, p := range ps {
			if len(p.Variants) > 1 && strings.Contains(p.Name, "Camiseta") && slices.Contains(all, p.Name) {
				shirt = p
				break
			}
		}
		if shirt == nil {
			t.Fatal("no shirt of several variants in the market")
		}
		explicit := map[string]int64{nb.ID: 100, variantOf(tn, "BONE-TN").ID: 5000, shirt.Variants[1].ID: 5001}
		for _, p := range ps {
			if strings.HasPrefix(p.Name, "Monitor") {
				explicit[p.Variants[0].ID] = 5000
			}
		}
		var prices []vitrine.MarketPrice
		for id, price := range explicit {
			prices = append(prices, vitrine.MarketPrice{VariantID: id, Price: price})
		}
		if err := sw.db.SetMarketPrices(ctx, call("set_market_prices"), tn, us.ID, prices, nil); err != nil {
			t.Fatal(err)
		}
		verde := &vitrine.Market{TenantID: sw.tenants["mercado-verde"], Handle: "us", Name: "United States", Countries: []string{"US"}, Currency: "USD",
			Locales: []string{"pt-BR"}, ExchangeRate: "0.2", Rounding: vitrine.Rounding99, UpdatedAt: vitrine.Now()}
		if err := sw.db.SaveMarket(ctx, call("save_market"), verde); err != nil {
			t.Fatal(err)
		}
		if err := sw.db.SetMarketPrices(ctx, call("set_market_prices"), sw.tenants["mercado-verde"], verde.ID,
			[]vitrine.MarketPrice{{VariantID: variantOf(sw.tenants["mercado-verde"], "FR-MACA-FUJI").ID, Price: 5000}}, nil); err != nil {
			t.Fatal(err)
		}
		priceIn := func(v *vitrine.Variant) int64 {
			if e, ok := explicit[v.ID]; ok {
				return e
			}
			c, _ := cv.Convert(v.Price, 2)
			return c
		}
		nbConverted, _ := cv.Convert(nb.Price, 2)
		// searchAll walks every page of a search, limit 2, over REST or MCP
		// at a release, and checks each row's variant is within the range.
		agentAt := agentAt(t)
		searchAll := func(transport, release string, min, max int64) []string {
			t.Helper()
			profile := agentAt.URL + "/" + release + ".json"
			var got []string
			cursor := ""
			for page := 0; ; page++ {
				if page > 50 {
					t.Fatal("more than 50 pages")
				}
				body := fmt.Sprintf(`{"filters":{"price":{"min":%d,"max":%d}},"pagination":{"limit":2%s}}`, min, max,
					map[bool]string{true: `,"cursor":"` + cursor + `"`}[cursor != ""])
				var m map[string]any
				if transport == "REST" {
					res := sw.do("POST", "", "/shops/technova/markets/us/ucp/catalog/search", body, map[string]string{"UCP-Agent": `profile="` + profile + `"`})
					if res.status != 200 {
						t.Fatalf("%d %s", res.status, res.body)
					}
					m = res.json(t)
				} else {
					res := sw.do("POST", "", "/shops/technova/markets/us/ucp/mcp", toolCall("search_catalog", profile, body),
						map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Accept": "application/json"})
					var a struct {
						Result struct {
							StructuredContent map[string]any `json:"structuredContent"`
						} `json:"result"`
					}
					if res.status != 200 || json.Unmarshal(res.body, &a) != nil || a.Result.StructuredContent == nil {
						t.Fatalf("%d %s", res.status, res.body)
					}
					m = a.Result.StructuredContent
				}
				if ucp, _ := m["ucp"].(map[string]any); ucp["version"] != release {
					t.Errorf("%s answered at %v, not %s", transport, ucp["version"], release)
				}
				if m["messages"] != nil {
					t.Errorf("%s %s, %d to %d: messages %v", transport, release, min, max, m["messages"])
				}
				for _, p := range productsOf(t, m) {
					got = append(got, p["title"].(string))
					for _, v := range p["variants"].([]any) {
						amount := int64(v.(map[string]any)["price"].(map[string]any)["amount"].(float64))
						if amount < min || amount > max {
							t.Errorf("%s %s, %d to %d: %s's row shows %d", transport, release, min, max, p["title"], amount)
						}
					}
				}
				pg, _ := m["pagination"].(map[string]any)
				if next, _ := pg["cursor"].(string); next != "" && pg["has_next_page"] == true {
					cursor = next
					continue
				}
				break
			}
			slices.Sort(got)
			return got
		}
		checked := 0
		for _, r := range [][2]int64{{5000, 5001}, {100, 100}, {nbConverted, nbConverted}, {0, 9999}, {5000, 30000}, {0, 10000000}} {
			var want []string
			for _, p := range ps {
				if !slices.Contains(all, p.Name) {
					continue
				}
				for _, v := range p.Variants {
					if c := priceIn(v); c >= r[0] && c <= r[1] {
						want = append(want, p.Name)
						break
					}
				}
			}
			slices.Sort(want)
			for _, transport := range []string{"REST", "MCP"} {
				for _, release := range shopwindow.Versions {
					if got := searchAll(transport, release, r[0], r[1]); !slices.Equal(got, want) {
						t.Errorf("%s %s, USD %d to %d with prices of its own: %v, want %v", transport, release, r[0], r[1], got, want)
					}
					checked++
				}
			}
			switch r {
			case [2]int64{5000, 5001}:
				// The monitor and the shirt by their explicit prices; never
				// the draft cap, nor Mercado Verde's apples.
				if !slices.ContainsFunc(want, func(n string) bool { return strings.HasPrefix(n, "Monitor") }) || !slices.Contains(want, shirt.Name) {
					t.Errorf("$50.00 to $50.01 keeps %v: the monitor and %s are priced there", want, shirt.Name)
				}
			case [2]int64{100, 100}:
				if !slices.Equal(want, []string{"Notebook Dell Inspiron 15"}) {
					t.Errorf("$1.00 keeps %v: the notebook is priced there", want)
				}
			case [2]int64{nbConverted, nbConverted}:
				if slices.Contains(want, "Notebook Dell Inspiron 15") {
					t.Errorf("the notebook's conversion, %d, keeps it: its price there is $1.00", nbConverted)
				}
			}
		}
		t.Logf("%d searches compared with the products' prices in the market", checked)
		// A lookup's filter alike: the notebook by its SKU at its price
		// there, not at its conversion.
		for _, c := range []struct {
			price int64
			found bool
		}{{100, true}, {nbConverted, false}} {
			res := sw.do("POST", "", "/shops/technova/markets/us/ucp/catalog/lookup",
				fmt.Sprintf(`{"ids":["NB-DELL-5440"],"filters":{"price":{"min":%d,"max":%[1]d}}}`, c.price), agent)
			m := res.json(t)
			if got := titles(productsOf(t, m)); res.status != 200 || (len(got) == 1) != c.found || m["messages"] != nil {
				t.Errorf("lookup of the notebook at USD %d: %v %v", c.price, got, m["messages"])
			}
		}
	})
}
