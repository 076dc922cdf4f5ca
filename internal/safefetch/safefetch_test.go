package safefetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

// Finding 9: metadata documents are fetched from public addresses only:
// every special-purpose range is refused, and IPv6 addresses that carry an
// IPv4 one are judged by it.
func TestPublicAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"93.184.215.14":        true,
		"8.8.8.8":              true,
		"2606:4700::6810:85e5": true,
		"64:ff9b::5db8:d70e":   true, // NAT64 of 93.184.215.14

		"127.0.0.1":       false,
		"10.1.2.3":        false,
		"172.16.0.1":      false,
		"192.168.1.1":     false,
		"169.254.169.254": false,
		"100.64.0.1":      false,
		"0.0.0.0":         false,
		"0.1.2.3":         false, // 0/8
		"192.0.0.8":       false, // 192.0.0.0/24
		"192.0.2.1":       false,
		"198.18.0.1":      false, // benchmarking, 198.18.0.0/15
		"198.19.255.255":  false,
		"198.51.100.1":    false,
		"203.0.113.1":     false,
		"192.88.99.1":     false, // 6to4 relay anycast
		"224.0.0.1":       false,
		"240.0.0.1":       false, // 240/4
		"255.255.255.255": false,

		"::1":                 false,
		"::":                  false,
		"::ffff:127.0.0.1":    false,
		"::127.0.0.1":         false, // IPv4-compatible, ::/96
		"64:ff9b::7f00:1":     false, // NAT64 of 127.0.0.1
		"64:ff9b::a9fe:a9fe":  false, // NAT64 of 169.254.169.254
		"64:ff9b:1::1":        false, // NAT64 local use
		"2002:7f00:1::1":      false, // 6to4 of 127.0.0.1
		"2002:5db8:d70e::1":   false, // 6to4, whatever it carries
		"2001:0:4136:e378::1": false, // Teredo
		"2001:2::1":           false, // benchmarking
		"2001:db8::1":         false,
		"3fff::1":             false,
		"100::1":              false, // discard, 100::/64
		"fc00::1":             false,
		"fd12:3456::1":        false,
		"fe80::1":             false,
		"fe80::1%eth0":        false,
		"fec0::1":             false, // site-local
		"ff02::1":             false,
	} {
		if got := PublicAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("PublicAddr(%s) = %v, want %v", addr, got, want)
		}
	}
}

// A Loopback fetcher (the demo's) takes documents from this machine, over
// http too, and from public addresses as always; never from the rest of
// the inside network, nor over http from another host.
func TestLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{}`)) }))
	defer srv.Close()
	f := New("a document", 1024, time.Second, false)
	if _, _, err := f.Get(context.Background(), srv.URL, "application/json"); err == nil {
		t.Fatalf("a plain fetcher fetched %s", srv.URL)
	}
	f.Loopback = true
	if body, _, err := f.Get(context.Background(), srv.URL, "application/json"); err != nil || string(body) != "{}" {
		t.Fatalf("a loopback fetcher of %s: %q %v", srv.URL, body, err)
	}
	for raw, ok := range map[string]bool{
		"http://127.0.0.1:8080/demo/agent/2026-08-25.json": true,
		"http://localhost:8080/a.json":                     true,
		"http://technova.localhost:8080/a.json":            true,
		"http://[::1]/a.json":                              true,
		"https://agent.example/a.json":                     true,
		"http://agent.example/a.json":                      false,
		"http://10.0.0.1/a.json":                           false,
		"https://192.168.1.1/a.json":                       false,
		"http://169.254.169.254/latest/meta-data":          false,
	} {
		if _, err := f.CheckURL(raw); (err == nil) != ok {
			t.Errorf("CheckURL(%s): %v; want ok %v", raw, err, ok)
		}
	}
}
