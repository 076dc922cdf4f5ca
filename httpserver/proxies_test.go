package httpserver_test

import (
	"net/http"
	"net/netip"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// Behind a trusted proxy, the per-address limit counts each client the
// proxy names in X-Forwarded-For; from anyone else, the header is ignored.
func TestTrustedProxies(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	limits := httpserver.Limits{IPRate: 0.01, IPBurst: 1, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	proxied := limitedServer(t, w, limits, nil)
	xff := func(addr string) []string { return []string{"X-Forwarded-For", addr} }
	if res := request(t, proxied.URL, w.tokens[owner], initialize, xff("203.0.113.1")...); res.StatusCode != http.StatusOK {
		t.Fatalf("first client: %d", res.StatusCode)
	}
	tooMany(t, request(t, proxied.URL, w.tokens[owner], initialize, xff("203.0.113.1")...), "the first client again")
	// A second client behind the proxy has a bucket of its own, also when
	// it forges hops to the left of what the proxy appended.
	if res := request(t, proxied.URL, w.tokens[owner], initialize, xff("203.0.113.1, 203.0.113.2")...); res.StatusCode != http.StatusOK {
		t.Errorf("second client: %d", res.StatusCode)
	}

	// IPv6 clients count by their /64, the network one subscriber gets.
	if res := request(t, proxied.URL, w.tokens[owner], initialize, xff("2001:db8:1:2::1")...); res.StatusCode != http.StatusOK {
		t.Fatalf("an IPv6 client: %d", res.StatusCode)
	}
	tooMany(t, request(t, proxied.URL, w.tokens[owner], initialize, xff("2001:db8:1:2:ffff::7")...), "another address of the same /64")
	if res := request(t, proxied.URL, w.tokens[owner], initialize, xff("2001:db8:1:3::1")...); res.StatusCode != http.StatusOK {
		t.Errorf("an address of another /64: %d", res.StatusCode)
	}

	limits.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	direct := limitedServer(t, w, limits, nil)
	request(t, direct.URL, w.tokens[owner], initialize, xff("203.0.113.3")...)
	tooMany(t, request(t, direct.URL, w.tokens[owner], initialize, xff("203.0.113.4")...), "a forged X-Forwarded-For from an untrusted peer")
}

// One user holds at most Limits.SessionsPerUser sessions on an instance:
// opening one more closes their least recently used idle session, and
// nobody else's.
func TestSessionsPerUser(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	hs := limitedServer(t, w, httpserver.Limits{SessionsPerUser: 2}, nil)
	connect := func(email string) *mcp.ClientSession {
		t.Helper()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: hs.URL + httpserver.MCPPath, HTTPClient: testkit.BearerClient(w.tokens[email]), MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	other := connect(viewer)
	first, second := connect(owner), connect(owner)
	testkit.OK[map[string]any](t, first, "whoami", nil) // now second is the least recently used
	third := connect(owner)
	if _, err := second.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"}); err == nil {
		t.Error("the least recently used session is still open")
	}
	for name, cs := range map[string]*mcp.ClientSession{"first": first, "third": third, "another user's": other} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"}); err != nil {
			t.Errorf("%s session: %v", name, err)
		}
	}
}
