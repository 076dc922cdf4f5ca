// Package shopwindow serves companies' shop windows: what an open window
// publishes to shoppers' agents, anonymously, at {public URL}/shops/{slug}/
// (and at the root of {slug}.{shop domain} and of the company's own
// domain): its UCP business profile at /.well-known/ucp, UCP's catalog
// over MCP at /ucp/mcp (search_catalog, lookup_catalog, get_product, and
// nothing else) and over REST at /ucp/catalog/{search,lookup,product},
// and the merchant feeds of package internal/feed at /feeds/.
//
// Everything here is public and hostile: no token is read, no admin tool,
// resource or page is reachable, only active products and public fields
// are shown, a closed or absent window is the same 404 everywhere, each
// address and each agent profile is rate limited, and reads are counted in
// metrics rather than written to the audit log one by one.
package shopwindow

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/addrlimit"
	"github.com/vitrine/vitrine/internal/feed"
	"github.com/vitrine/vitrine/service"
	catalogs "github.com/vitrine/vitrine/service/catalog"
	"golang.org/x/time/rate"
)

// Limits bound what one client may ask of the windows, per instance. A
// zero rate turns a limit off.
type Limits struct {
	// AddrRate and AddrBurst bound the requests of one address to every
	// window together (per second, and at once).
	AddrRate  float64
	AddrBurst int
	// ProfileRate and ProfileBurst bound the requests that name one
	// agent profile.
	ProfileRate  float64
	ProfileBurst int
	// WholeRate and WholeBurst bound one address's requests for what reads
	// a window's whole catalog, its feeds and its sitemap, which a channel
	// or a crawler fetches a few times a day; WholeInFlight bounds how many
	// of those this instance answers at once, for every address together,
	// so that the cheap routes keep their share of the cores.
	WholeRate     float64
	WholeBurst    int
	WholeInFlight int
	// MaxBodyBytes bounds a request's body; 0 is the default's.
	MaxBodyBytes int64
}

// DefaultLimits: a shopper's agent browsing a shop makes a few requests a
// second, with bursts of a few dozen; a scraper sending hundreds a second
// from one address is held to 20.
// A whole catalog (a feed, the sitemap) costs up to a second of a core at
// 20,000 products: one address gets 30 at once, then one every 2 seconds,
// and the instance answers 2 at a time.
var DefaultLimits = Limits{AddrRate: 20, AddrBurst: 100, ProfileRate: 200, ProfileBurst: 400,
	WholeRate: 0.5, WholeBurst: 30, WholeInFlight: 2, MaxBodyBytes: 64 << 10}

// Options configure the windows.
type Options struct {
	// PublicURL is the server's own base URL (https://vitrine.example):
	// windows are served under it at /shops/{slug}/, and relative media
	// paths resolve against it.
	PublicURL string
	// ShopDomain, when set, serves each open window at the root of
	// {slug}.{ShopDomain} too.
	ShopDomain string
	// InsecureProfiles lets agent profiles be fetched over http and from
	// private and loopback addresses: for development and tests only.
	InsecureProfiles bool
	// LoopbackProfiles lets agent profiles be fetched from this machine
	// (loopback addresses, localhost), over http too, and from public
	// addresses as always: the demo's, whose agent profile the server
	// itself serves.
	LoopbackProfiles bool
	// Limits are the windows' abuse limits; the zero value is DefaultLimits.
	Limits *Limits
	// ClientAddr is the address of a request's client as the server's
	// own per-address limit counts it (behind trusted proxies, the client
	// they name); by default, its TCP peer.
	ClientAddr func(*http.Request) string
	Logger     *slog.Logger
	Metrics    prometheus.Registerer
}

// Window is one open window as a request reaches it.
type Window struct {
	Tenant *vitrine.Tenant
	Shop   *vitrine.Shop
	// Base is the window's public root, without a trailing slash:
	// https://vitrine.example/shops/technova, or https://shop.example.
	Base string
	// Origin is the server's public URL, for relative media paths.
	Origin string
	// client is the key (addrlimit.Key) of the request's client address,
	// which the per-address limits count.
	client string
	// pages is set when the window's own pages are its product pages
	// (the company has no product_url: withPages).
	pages bool
	// reader reads the window's catalog: anyone, anonymous, reading the
	// company's published products.
	reader *catalogs.Shopper
}

// Server serves the windows.
type Server struct {
	cat      *catalogs.Catalog
	opts     Options
	log      *slog.Logger
	own      string // the host of PublicURL, lower case, without a port
	scheme   string // PublicURL's, https without one
	port     string // PublicURL's, if it names one
	catalog  *catalog
	profiles *profiles
	mcp      http.Handler
	addrs    *addrlimit.Table
	agents   *addrlimit.Table
	// wholeAddrs and wholeSlots are Limits.Whole*'s, nil when off.
	wholeAddrs *addrlimit.Table
	wholeSlots chan struct{}
	metrics    *metrics
	seen       stampsSeen
}

// New returns the windows of svc's companies, which it reads as their
// shoppers (service/catalog's Shopper).
func New(svc *service.Service, opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	l := DefaultLimits
	if opts.Limits != nil {
		l = *opts.Limits
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultLimits.MaxBodyBytes
	}
	opts.Limits = &l
	s := &Server{cat: catalogs.New(svc), opts: opts, log: opts.Logger, scheme: "https", catalog: &catalog{},
		metrics: newMetrics(opts.Metrics)}
	if opts.PublicURL != "" {
		u, err := url.Parse(opts.PublicURL)
		if err != nil || u.Host == "" {
			return nil, errors.New("the shop window needs an absolute public URL")
		}
		s.own, s.scheme, s.port = strings.ToLower(u.Hostname()), u.Scheme, u.Port()
	}
	s.opts.ShopDomain = strings.TrimSuffix(strings.ToLower(opts.ShopDomain), ".")
	s.profiles = newProfiles(opts.InsecureProfiles, opts.LoopbackProfiles, func(result string) { s.metrics.profileFetches.WithLabelValues(result).Inc() })
	if l := opts.Limits; l.AddrRate > 0 {
		s.addrs = addrlimit.New(rate.Limit(l.AddrRate), l.AddrBurst, 0)
	}
	if l := opts.Limits; l.ProfileRate > 0 {
		s.agents = addrlimit.New(rate.Limit(l.ProfileRate), l.ProfileBurst, 0)
	}
	if l := opts.Limits; l.WholeRate > 0 {
		s.wholeAddrs = addrlimit.New(rate.Limit(l.WholeRate), l.WholeBurst, 0)
	}
	if l := opts.Limits; l.WholeInFlight > 0 {
		s.wholeSlots = make(chan struct{}, l.WholeInFlight)
	}
	s.mcp = s.mcpHandler()
	return s, nil
}

// Route serves the windows in front of next, which serves the rest of the
// server: a request for a window's host ({slug}.{ShopDomain}, or a
// company's own domain) is the window's whatever its path; one for the
// server's own host is the window's under /shops/{slug}/ and next's
// otherwise. A host that is neither (a name no company has) is not found.
// Without a public URL, every host is the server's own but those of
// ShopDomain.
func (s *Server) Route(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := hostOf(r.Host)
		if s.opts.ShopDomain != "" && strings.HasSuffix(host, "."+s.opts.ShopDomain) {
			slug := strings.TrimSuffix(host, "."+s.opts.ShopDomain)
			if strings.Contains(slug, ".") {
				s.notFound(w)
				return
			}
			s.serveWindow(w, r, func(ctx context.Context) (*catalogs.Shopper, error) {
				return s.cat.OpenWindowBySlug(ctx, slug)
			}, func(*vitrine.Tenant) string { return s.hostRoot(host) }, r.URL.Path)
			return
		}
		if s.own == "" || host == s.own || host == s.opts.ShopDomain || isAddressOrLocal(host) {
			if rest, ok := strings.CutPrefix(r.URL.Path, "/shops/"); ok {
				slug, path, found := strings.Cut(rest, "/")
				if !found && slug != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
					// The home page is the window's root, with its slash.
					target := "/shops/" + url.PathEscape(slug) + "/"
					if r.URL.RawQuery != "" {
						target += "?" + r.URL.RawQuery
					}
					http.Redirect(w, r, target, http.StatusMovedPermanently)
					return
				}
				s.serveWindow(w, r, func(ctx context.Context) (*catalogs.Shopper, error) {
					return s.cat.OpenWindowBySlug(ctx, slug)
				}, func(t *vitrine.Tenant) string { return s.origin(r) + "/shops/" + t.Slug }, "/"+path)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if _, err := vitrine.ValidateDomain("host", host); err != nil {
			s.notFound(w)
			return
		}
		s.serveWindow(w, r, func(ctx context.Context) (*catalogs.Shopper, error) {
			return s.cat.OpenWindowByDomain(ctx, host)
		}, func(*vitrine.Tenant) string { return s.hostRoot(host) }, r.URL.Path)
	})
}

// hostRoot is the root URL of a window served at a host of its own: the
// scheme and port of the public URL (https and none without one), the
// host as hostOf wrote it. Never the port the request's Host names: the
// profile is cacheable by anyone, and a cache that keys on the host name
// alone would hand every agent the port one client wrote.
func (s *Server) hostRoot(host string) string {
	if s.port != "" {
		host = net.JoinHostPort(host, s.port)
	}
	return s.scheme + "://" + host
}

// hostOf is a Host header's name: lower case, without its port or a
// trailing dot.
func hostOf(h string) string {
	if name, _, err := net.SplitHostPort(h); err == nil {
		h = name
	}
	return strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
}

// isAddressOrLocal reports whether a host is an IP address or localhost:
// a probe's or a test's, never a company's domain.
func isAddressOrLocal(h string) bool {
	_, err := netip.ParseAddr(h)
	return err == nil || h == "localhost"
}

// origin is the server's public URL, or, without one, the one the
// request reached.
func (s *Server) origin(r *http.Request) string {
	if s.opts.PublicURL != "" {
		return strings.TrimSuffix(s.opts.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// notFound is the one answer for everything a window does not serve: an
// unknown or closed window, a path no window has. It says nothing of
// whether a company exists.
func (s *Server) notFound(w http.ResponseWriter) {
	http.NotFound(w, nil)
}

type windowKey struct{}

// windowOf returns the window a request reached.
func windowOf(ctx context.Context) *Window {
	w, _ := ctx.Value(windowKey{}).(*Window)
	return w
}

// serveWindow answers a request for one window's path: the window's
// routes, after the per-address limit, once the window is found open.
func (s *Server) serveWindow(w http.ResponseWriter, r *http.Request, open func(context.Context) (*catalogs.Shopper, error),
	base func(*vitrine.Tenant) string, path string) {
	market, path, ok := marketPath(path)
	if !ok {
		// A market's root without its slash: redirected to it, as a
		// company's is.
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			target := r.URL.EscapedPath() + "/"
			if r.URL.RawQuery != "" {
				target += "?" + r.URL.RawQuery
			}
			http.Redirect(w, r, target, http.StatusMovedPermanently)
			return
		}
		s.notFound(w)
		return
	}
	route := routeOf(r.Method, path)
	if route == "" {
		s.notFound(w)
		return
	}
	addr := r.RemoteAddr
	if s.opts.ClientAddr != nil {
		addr = s.opts.ClientAddr(r)
	} else if h, _, err := net.SplitHostPort(addr); err == nil {
		addr = h
	}
	client := addrlimit.Key(addr)
	if s.addrs != nil {
		if d := s.addrs.Wait(client, time.Now()); d > 0 {
			s.metrics.limited.WithLabelValues("address").Inc()
			if route == "mcp" {
				tooManyRPC(w, nil, d)
			} else {
				tooMany(w, d)
			}
			return
		}
	}
	if wholeCatalog(route) {
		release, ok := s.takeWhole(w, client)
		if !ok {
			return
		}
		defer release()
	}
	reader, err := open(r.Context())
	if err == nil && market != "" {
		reader, err = reader.Market(r.Context(), market)
	}
	if err != nil {
		if vitrine.TypeOf(err) != vitrine.NotFoundError {
			s.internal(w, r, "open a window", err)
			return
		}
		s.notFound(w)
		return
	}
	root := base(reader.Tenant())
	if market != "" {
		root += marketsPath + url.PathEscape(market)
	}
	win := newWindow(reader, root, s.origin(r), client)
	if s.opts.PublicURL == "" {
		// The window's URLs are the request's own (origin): a shared
		// cache must keep them apart by the whole Host, port included.
		w.Header().Add("Vary", "Host")
	}
	r = r.WithContext(context.WithValue(r.Context(), windowKey{}, win))
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(w, r.Body, s.opts.Limits.MaxBodyBytes)
	}
	switch route {
	case "profile":
		s.serveProfile(w, r, win, profileVersion(path))
	case "mcp":
		s.serveMCP(w, r)
	case "search", "lookup", "product":
		s.serveREST(w, r, win, route)
	case "google", "openai":
		s.serveFeed(w, r, win, route)
	case "home", "page", "sitemap", "robots":
		s.servePage(w, r, win, route, path)
	}
}

// marketsPath is where a company's markets' windows are, under each root
// of its window: /shops/{slug}/markets/{handle}/, and under its hosts.
const marketsPath = "/markets/"

// marketPath splits a window's path under marketsPath: the market's handle
// and the path under its window's root ("" and path itself for a path
// that names no market). ok is false for a market's root without its
// slash.
func marketPath(path string) (market, rest string, ok bool) {
	after, found := strings.CutPrefix(path, marketsPath)
	if !found {
		return "", path, true
	}
	handle, sub, found := strings.Cut(after, "/")
	if handle == "" {
		return "", path, true
	}
	if !found {
		return handle, "", false
	}
	return handle, "/" + sub, true
}

// wholeCatalog says whether a route reads the window's whole catalog.
func wholeCatalog(route string) bool {
	return route == "google" || route == "openai" || route == "sitemap"
}

// takeWhole holds one of the instance's places for a whole catalog's
// answer, within the client's own quota of them, or answers why not: 429
// past the client's quota, 503 while every place is taken (a wait of a
// second). Both come before the window is looked up, so that a closed
// window answers as an absent one.
func (s *Server) takeWhole(w http.ResponseWriter, client string) (release func(), ok bool) {
	if s.wholeAddrs != nil {
		if d := s.wholeAddrs.Wait(client, time.Now()); d > 0 {
			s.metrics.limited.WithLabelValues("whole_catalog").Inc()
			tooMany(w, d)
			return nil, false
		}
	}
	if s.wholeSlots == nil {
		return func() {}, true
	}
	select {
	case s.wholeSlots <- struct{}{}:
		return func() { <-s.wholeSlots }, true
	default:
		s.metrics.limited.WithLabelValues("whole_catalog_busy").Inc()
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"code": "busy",
			"content": "Too many whole catalogs are being read; retry after the time in Retry-After."})
		return nil, false
	}
}

// serveFeed answers a merchant feed (package feed): tagged by the
// catalog's stamp, 304 when the client has it, streamed otherwise.
func (s *Server) serveFeed(w http.ResponseWriter, r *http.Request, win *Window, route string) {
	win = win.inLocale(r.URL.Query().Get("locale"))
	stamp, err := win.reader.Stamp(r.Context())
	if err != nil {
		s.internal(w, r, "read a catalog's stamp", err)
		return
	}
	defs, err := win.reader.PublicAttributes(r.Context())
	if err != nil {
		s.internal(w, r, "read attribute definitions", err)
		return
	}
	cats, err := win.reader.Categories(r.Context())
	if err != nil {
		s.internal(w, r, "read categories", err)
		return
	}
	fw := feed.NewWindow(win.Shop, defs, cats)
	fw.Tenant, fw.BaseURL, fw.Origin, fw.Log = win.Tenant, win.Base, win.Origin, s.log
	kind := feed.Google
	if route == "openai" {
		kind = feed.OpenAI
	}
	s.metrics.requests.WithLabelValues(win.Tenant.Slug, route, "ok").Inc()
	win.sayLanguage(w.Header())
	feed.Serve(w, r, *fw, win.reader, kind, stamp, s.seen.since(win.seenKey(), stamp))
}

// stampsSeen remembers, per company, its catalog's latest stamp and when
// this instance first saw it: the feeds' Last-Modified. The stamp says
// whether the catalog changed, not when; the second of its first sight is
// taken for its date. A client that has the feed of an older stamp holds
// an earlier date, so If-Modified-Since never answers it 304: when two
// stamps are seen within one second, the second's date is the next
// second, and until the clock reaches it the feed is sent without a
// Last-Modified (RFC 9110, 8.8.2.1: never a date after the answer's
// own). Another instance names its own time for the same stamp: a later
// one costs a client a download; an earlier one, within one second of a
// change, could answer 304 to a client that sends If-Modified-Since alone
// (If-None-Match, which the feeds' readers send, decides first). One
// entry a company.
type stampsSeen struct {
	mu sync.Mutex
	m  map[string]stampSeen
}

type stampSeen struct {
	stamp string
	at    time.Time
}

// since returns the date of the company's feed at stamp, zero for none
// yet (then the feed has no Last-Modified).
func (s *stampsSeen) since(tenantID, stamp string) time.Time {
	now := time.Now().UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[tenantID]
	if !ok || e.stamp != stamp {
		if s.m == nil {
			s.m = map[string]stampSeen{}
		}
		// In whole seconds, as HTTP dates are, and after the previous
		// stamp's.
		at := now.Truncate(time.Second)
		if ok && !at.After(e.at) {
			at = e.at.Add(time.Second)
		}
		e = stampSeen{stamp, at}
		s.m[tenantID] = e
	}
	if e.at.After(now) {
		return time.Time{}
	}
	return e.at
}

// routeOf names the route of a window's path, "" for none.
func routeOf(method, path string) string {
	switch path {
	case "/ucp/mcp":
		return "mcp"
	case "/ucp/catalog/search":
		return "search"
	case "/ucp/catalog/lookup":
		return "lookup"
	case "/ucp/catalog/product":
		return "product"
	case "/feeds/google.xml":
		return "google"
	case "/feeds/openai.jsonl.gz":
		return "openai"
	default:
		// /.well-known/ucp and /.well-known/ucp/{release} (discovery.go).
		if profileVersion(path) != "" && (method == http.MethodGet || method == http.MethodHead) {
			return "profile"
		}
	}
	return pageRoute(method, path)
}

// tooMany answers 429 with the seconds to wait.
func tooMany(w http.ResponseWriter, after time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(retrySeconds(after)))
	writeJSON(w, http.StatusTooManyRequests, map[string]string{"code": "rate_limited",
		"content": "Too many requests; retry after the time in Retry-After."})
}

// retrySeconds is a wait in whole seconds, at least one, for Retry-After
// and retry_after.
func retrySeconds(after time.Duration) int {
	return int(math.Ceil(max(after, time.Second).Seconds()))
}

// rateLimited is a request past a limit, answered 429 on REST and with
// UCP's -32000 on MCP, with the time to wait.
func rateLimited(after time.Duration) *ucpError {
	return &ucpError{status: http.StatusTooManyRequests, rpc: rpcProtocol, code: "rate_limited",
		content: "Too many requests; retry after the time in Retry-After.", retryAfter: after}
}

// internal answers an error the client cannot act on, without its
// detail, which goes to the log with a request id.
func (s *Server) internal(w http.ResponseWriter, r *http.Request, what string, err error) {
	id := vitrine.NewID()
	s.log.Error("shop window: "+what, "request_id", id, "path", r.URL.Path, "err", err)
	writeJSON(w, http.StatusInternalServerError, map[string]string{"code": "internal_error", "content": "Internal error (request " + id + ")."})
}

// metrics count the windows' reads by company and operation.
type metrics struct {
	requests       *prometheus.CounterVec
	seconds        *prometheus.HistogramVec
	limited        *prometheus.CounterVec
	profileFetches *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vitrine_shop_requests_total", Help: "Requests to shop windows, by company (slug), operation (profile, search, lookup, product, google, openai) and outcome (ok, not_found, not_modified, or a UCP error code).",
		}, []string{"shop", "operation", "outcome"}),
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "vitrine_shop_request_seconds", Help: "Time to answer a shop window's catalog operation, by operation and transport (mcp, rest).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"operation", "transport"}),
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vitrine_shop_rate_limited_total", Help: "Shop window requests refused by a rate limit, by limit (address, profile, profile_fetch: an address's quota of agent profile fetches; whole_catalog: an address's quota of feeds and sitemaps; whole_catalog_busy: every place for one taken).",
		}, []string{"limit"}),
		profileFetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vitrine_shop_profile_fetches_total", Help: "Agent profiles fetched, by result (ok, unreachable, malformed, version_unsupported).",
		}, []string{"result"}),
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.seconds, m.limited, m.profileFetches)
	}
	return m
}
