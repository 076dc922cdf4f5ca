package httpserver_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
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
