package httpserver_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/shopwindow"
)

// A profile that cannot be fetched is refused in words that tell the
// stranger who named it nothing of the inside: not the address a host name
// resolved to (a name of the inside network would say where it is), not
// the resolver's address, not the network's raw error. Issue 45's closing
// review: `https://localhost/…` answered "dial tcp 127.0.0.1:443: the
// address 127.0.0.1 is not a public one", a name nobody resolves answered
// "lookup x on 10.255.255.53:53: no such host".
func TestShopWindowProfileFetchErrorsTellNothingOfTheInside(t *testing.T) {
	sw := &shopWorld{world: newWorld(t, dbtest.SQLiteURL(t)), metrics: prometheus.NewRegistry()}
	sw.hs = httptest.NewServer(serveHTTP(t, sw.svc, sw.server(mcpserver.Options{}), httpserver.Options{PublicURL: "http://vitrine.test",
		Shop: &httpserver.Shop{Options: shopwindow.Options{}}}))
	t.Cleanup(sw.hs.Close)
	sw.open("technova")
	for profile, want := range map[string]string{
		"https://localhost:1/agent.json":            "not a public one",
		"https://vitrine-review.invalid/agent.json": "could not be resolved",
	} {
		r := sw.do("POST", "", "/shops/technova/ucp/catalog/search", `{"query":"camiseta"}`, map[string]string{"UCP-Agent": `profile="` + profile + `"`})
		body := string(r.body)
		if r.status != 424 || !strings.Contains(body, want) {
			t.Errorf("%s: %d %s; want 424 saying %q", profile, r.status, body, want)
		}
		for _, inside := range []string{"127.0.0.1", "::1", "dial ", "lookup ", ":53"} {
			if strings.Contains(body, inside) {
				t.Errorf("%s: the answer tells %q: %s", profile, inside, body)
			}
		}
	}
}
