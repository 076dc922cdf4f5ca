// Package safefetch fetches documents from URLs that a stranger names (an
// OAuth client's metadata document, a shopping agent's UCP profile)
// without letting the stranger point the server at itself or at the
// network behind it: only public addresses are dialled (checked on the
// address actually dialled, after DNS), redirects are refused, and the
// time and size of a fetch are bounded. Package authserver and package
// shopwindow both use it.
package safefetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Fetcher fetches documents under one set of bounds.
type Fetcher struct {
	// Insecure lets documents be fetched over http and from private and
	// loopback addresses: for development and tests only.
	Insecure bool
	// Loopback lets documents be fetched from this machine too (loopback
	// addresses, localhost and its subdomains), over http or https: the
	// demo's, which serves a shopping agent's profile of its own on a
	// laptop without the internet. Other inside addresses stay refused.
	Loopback bool
	// MaxBytes bounds a document's size.
	MaxBytes int64
	// What names the document in errors: "a client metadata document".
	What   string
	client *http.Client
}

// New returns a fetcher of documents of at most maxBytes, each fetch
// bounded by timeout (connect, TLS handshake, headers and body together).
func New(what string, maxBytes int64, timeout time.Duration, insecure bool) *Fetcher {
	f := &Fetcher{Insecure: insecure, MaxBytes: maxBytes, What: what}
	dialer := &net.Dialer{Timeout: timeout, Control: func(_, address string, _ syscall.RawConn) error {
		// Checked on the address actually dialled, after DNS: a name
		// that resolves to an inside address (or rebinds to one) is
		// refused all the same.
		if ap, err := netip.ParseAddrPort(address); err == nil && !f.Insecure && !PublicAddr(ap.Addr()) && !(f.Loopback && ap.Addr().Unmap().IsLoopback()) {
			return errNotPublic
		}
		return nil
	}}
	f.client = &http.Client{
		Timeout:   timeout,
		Transport: &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: timeout, ResponseHeaderTimeout: timeout, Proxy: nil},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errRedirect
		},
	}
	return f
}

// CheckURL checks a URL before anything is fetched from it: a plain
// absolute URL (no user info, no fragment), https unless Insecure, a host
// in ASCII, and not an IP address that is not a public one. The errors
// say what is wrong in words a client may be shown.
func (f *Fetcher) CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.User != nil || u.Fragment != "" || strings.Contains(raw, "#"):
		return nil, errors.New("it is not a plain absolute URL")
	case u.Scheme != "https" && !((f.Insecure || f.Loopback && loopbackHost(u.Hostname())) && u.Scheme == "http"):
		return nil, errors.New("it is not an https URL")
	case !ASCIIOnly(u.Host):
		return nil, errors.New("its host is not ASCII: write it in punycode (xn--…)")
	}
	if ip, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && !f.Insecure && !PublicAddr(ip) && !(f.Loopback && ip.Unmap().IsLoopback()) {
		return nil, errors.New("it names an address that is not a public one")
	}
	return u, nil
}

// loopbackHost reports whether a URL's host names this machine: a
// loopback address, localhost or a name under it (RFC 6761).
func loopbackHost(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.Unmap().IsLoopback()
	}
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// Get fetches the document at a URL CheckURL accepted: its body (at most
// MaxBytes) and its headers. A status other than 200 is an error.
func (f *Fetcher) Get(ctx context.Context, u string, accept string) ([]byte, http.Header, error) {
	if _, err := f.CheckURL(u); err != nil {
		return nil, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", accept)
	res, err := f.client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("fetching it failed (%s)", f.why(err))
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, nil, &StatusError{Status: res.Status}
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, f.MaxBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("reading it failed (%s)", f.why(err))
	}
	if int64(len(body)) > f.MaxBytes {
		return nil, nil, &TooLargeError{Max: f.MaxBytes}
	}
	return body, res.Header, nil
}

// StatusError is a fetch answered with a status other than 200.
type StatusError struct{ Status string }

func (e *StatusError) Error() string { return "it answered " + e.Status }

// TooLargeError is a document past the fetcher's bound.
type TooLargeError struct{ Max int64 }

func (e *TooLargeError) Error() string { return fmt.Sprintf("it is larger than %d bytes", e.Max) }

var (
	errNotPublic = errors.New("its host is at an address that is not a public one")
	errRedirect  = errors.New("redirected")
)

// why says why a fetch failed in words fit for the stranger who named the
// URL: never the address a host name resolved to (a name of the inside
// network would tell where it is), the resolver's address or the raw
// error of the network (issue 45's closing review).
func (f *Fetcher) why(err error) string {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var ne net.Error
	switch {
	case errors.Is(err, errNotPublic):
		return errNotPublic.Error()
	case errors.Is(err, errRedirect):
		return f.What + " must not redirect"
	case errors.As(err, &dns):
		return "its host name could not be resolved"
	case errors.As(err, &cert):
		return "its TLS certificate could not be verified"
	case errors.As(err, &ne) && ne.Timeout():
		return "it did not answer in time"
	}
	return "the connection failed"
}

// ASCIIOnly reports whether s holds only ASCII bytes.
func ASCIIOnly(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// The address ranges a document is never fetched from: every entry of
// IANA's IPv4 and IPv6 special-purpose address registries (and
// multicast), whether or not the registry calls it globally reachable,
// and, for IPv6, all that is not global unicast (2000::/3): loopback,
// unspecified, IPv4-compatible (::/96), discard (100::/64), unique local,
// link-local, site-local (fec0::/10), multicast. NAT64's well-known prefix
// carries an IPv4 address, which is checked instead.
var (
	special4 = prefixes("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.0.2.0/24", "192.31.196.0/24", "192.52.193.0/24", "192.88.99.0/24", "192.168.0.0/16",
		"192.175.48.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4")
	global6  = netip.MustParsePrefix("2000::/3")
	special6 = prefixes(
		"2001::/23",         // IETF protocol assignments: Teredo, benchmarking, AMT, AS112, ORCHID, drone remote ID
		"2001:db8::/32",     // documentation
		"2002::/16",         // 6to4, which carries any IPv4 address
		"2620:4f:8000::/48", // AS112
		"3fff::/20",         // documentation
	)
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
)

func prefixes(ps ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ps))
	for i, p := range ps {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}

// PublicAddr reports whether an address is one on the internet: in none
// of the special-purpose ranges above; an IPv4 address written as IPv6
// (::ffff:a.b.c.d, or behind NAT64's 64:ff9b::/96) is judged as the IPv4
// address it reaches.
func PublicAddr(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	if a.Is6() && nat64.Contains(a) {
		b := a.As16()
		return PublicAddr(netip.AddrFrom4([4]byte(b[12:])))
	}
	special := special4
	if a.Is6() {
		if !global6.Contains(a) || nat64Local.Contains(a) {
			return false
		}
		special = special6
	}
	for _, p := range special {
		if p.Contains(a) {
			return false
		}
	}
	return a.IsValid()
}
