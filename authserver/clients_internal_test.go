package authserver

import (
	"testing"
)

// Finding 11: the pages show a host in ASCII, a Unicode lookalike as its
// punycode.
func TestDisplayHost(t *testing.T) {
	for host, want := range map[string]string{
		"apple.com":        "apple.com",
		"аpple.com":        "xn--pple-43d.com",
		"exämple.com:8443": "xn--exmple-cua.com:8443",
		"127.0.0.1:9":      "127.0.0.1:9",
	} {
		if got := displayHost(host); got != want {
			t.Errorf("displayHost(%q) = %q, want %q", host, got, want)
		}
	}
}
