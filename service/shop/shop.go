// Package shop is what a caller may do with a company's shop window (issue
// 34): read its settings and the public URLs it is served at, change them
// (open, close, the product page template, the country, what of stock is
// public, the company's own domain, the option mapping of the feeds), and
// ask what keeps products from being published. It works on the service's
// Access, as service/catalog does: every operation asks for its
// permission (service.Operation) first, and writes with the caller's
// change, so that every change of the window is audited in its write.
package shop

import (
	"context"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/internal/insider"
)

// Window is the shop window's operations on a service's store.
type Window struct {
	svc   *service.Service
	store vitrine.Store
	now   func() time.Time
	// reserved are the host names the server serves itself at, which no
	// company may take for its window (Reserving).
	reserved []string
	// shopDomain is the domain under which every window has a host of its
	// own ({slug}.{shopDomain}), none of which a company may take either.
	shopDomain string
}

// New returns the window operations of svc: every adapter that serves them
// makes one (the MCP server, the command line).
func New(svc *service.Service) *Window {
	return &Window{svc: svc, store: svc.Store(insider.Pass{}), now: vitrine.Now}
}

// Reserving returns w refusing, as a company's domain, the host of the
// server's public URL, the shop domain and every host under it: the Host
// header decides what a request reaches, and a company's domain must not
// shadow the server's own pages or another company's window.
func (w *Window) Reserving(publicURL, shopDomain string) *Window {
	v := *w
	v.reserved = nil
	if u, err := url.Parse(publicURL); err == nil && u.Hostname() != "" {
		v.reserved = append(v.reserved, strings.ToLower(u.Hostname()))
	}
	v.shopDomain = strings.TrimSuffix(strings.ToLower(shopDomain), ".")
	if v.shopDomain != "" {
		v.reserved = append(v.reserved, v.shopDomain)
	}
	return &v
}

// checkHost refuses a domain the server keeps for itself.
func (w *Window) checkHost(domain string) error {
	if domain == "" {
		return nil
	}
	if slices.Contains(w.reserved, domain) || (w.shopDomain != "" && strings.HasSuffix(domain, "."+w.shopDomain)) {
		return vitrine.Invalid("domain", "%s is the server's own host, or under its shop domain, where every window has its host already; give the company's own domain", domain)
	}
	return nil
}

// Settings are a company's window with the company it belongs to.
type Settings struct {
	Tenant *vitrine.Tenant
	Shop   *vitrine.Shop
}

// Get returns the company's window (closed and empty if never set).
func (w *Window) Get(ctx context.Context, a *service.Access) (*Settings, error) {
	if err := a.Allow(service.OpGetShop); err != nil {
		return nil, err
	}
	return w.settings(ctx, a.TenantID)
}

func (w *Window) settings(ctx context.Context, tenantID string) (*Settings, error) {
	t, err := w.store.TenantByID(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	s, err := w.store.Shop(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	return &Settings{Tenant: t, Shop: s}, nil
}

// Changes are update_shop's arguments: the settings given change, the
// others stay. Options, when given, replace the company's mapping whole.
type Changes struct {
	Open       *bool
	ProductURL *string
	Country    *string
	Stock      *string
	Domain     *string
	Options    *map[string]string
	// ExpectedVersion, when set, makes the update fail with a
	// ConflictError if the window is at another version.
	ExpectedVersion *int64
}

// check validates the changes before anything is read, in the order the
// tool lists them, and returns them normalized.
func (ch Changes) check() (Changes, error) {
	out := ch
	if ch.ProductURL != nil {
		v, err := vitrine.ValidateProductURL("product_url", *ch.ProductURL)
		if err != nil {
			return out, err
		}
		out.ProductURL = &v
	}
	if ch.Country != nil {
		v, err := vitrine.ValidateCountry("country", *ch.Country)
		if err != nil {
			return out, err
		}
		out.Country = &v
	}
	if ch.Stock != nil {
		v, err := vitrine.ParseStockDisclosure("stock", *ch.Stock)
		if err != nil {
			return out, err
		}
		s := string(v)
		out.Stock = &s
	}
	if ch.Domain != nil {
		v, err := vitrine.ValidateDomain("domain", *ch.Domain)
		if err != nil {
			return out, err
		}
		out.Domain = &v
	}
	if ch.Options != nil {
		v, err := vitrine.ValidateShopOptions("options", *ch.Options)
		if err != nil {
			return out, err
		}
		out.Options = &v
	}
	return out, nil
}

func (ch Changes) applyTo(s *vitrine.Shop) {
	if ch.Open != nil {
		s.Open = *ch.Open
	}
	if ch.ProductURL != nil {
		s.ProductURL = *ch.ProductURL
	}
	if ch.Country != nil {
		s.Country = *ch.Country
	}
	if ch.Stock != nil {
		s.Stock = vitrine.StockDisclosure(*ch.Stock)
	}
	if ch.Domain != nil {
		s.Domain = *ch.Domain
	}
	if ch.Options != nil {
		s.Options = maps.Clone(*ch.Options)
	}
}

// saveTries bounds the retries of an update without an expected version
// that meets another's save between its read and its write: it applies
// its changes again to what that one saved.
const saveTries = 8

// Update changes the company's window: the settings given, at the next
// version, audited in the write. A domain another company's window holds
// is a ConflictError; so is ExpectedVersion, when it is not the version.
func (w *Window) Update(ctx context.Context, a *service.Access, ch Changes) (*Settings, error) {
	if err := a.Allow(service.OpUpdateShop); err != nil {
		return nil, err
	}
	ch, err := ch.check()
	if err != nil {
		return nil, err
	}
	if ch.Domain != nil {
		if err := w.checkHost(*ch.Domain); err != nil {
			return nil, err
		}
	}
	for try := 1; ; try++ {
		st, err := w.settings(ctx, a.TenantID)
		if err != nil {
			return nil, err
		}
		s := st.Shop
		if ch.ExpectedVersion != nil && *ch.ExpectedVersion != s.Version {
			return nil, staleVersion(*ch.ExpectedVersion, s.Version)
		}
		ch.applyTo(s)
		s.UpdatedAt = w.now()
		if a.Caller != nil {
			s.UpdatedBy = a.Caller.User.ID
		}
		err = w.store.SaveShop(ctx, a.Change(), s)
		if ve := vitrine.AsError(err); ve != nil && ve.Type == vitrine.ConflictError && ve.Field == "version" {
			if ch.ExpectedVersion == nil && try < saveTries {
				continue
			}
			latest, rerr := w.store.Shop(ctx, a.TenantID)
			if rerr != nil {
				return nil, rerr
			}
			return nil, staleVersion(s.Version, latest.Version)
		}
		if err != nil {
			return nil, err
		}
		return st, nil
	}
}

func staleVersion(expected, current int64) error {
	return vitrine.Conflict("expected_version",
		"The shop window is at version %d, not %d: someone changed it since you read it. Read it again with get_shop and retry with expected_version %d",
		current, expected, current)
}

// Options returns the option mapping in effect for s: the defaults
// (vitrine.DefaultShopOptions) with the company's own over them, an
// option the company maps to "" left out.
func Options(s *vitrine.Shop) map[string]string {
	out := maps.Clone(vitrine.DefaultShopOptions)
	for name, attr := range s.Options {
		if attr == "" {
			delete(out, name)
			continue
		}
		out[name] = attr
	}
	return out
}

// The paths of a window's public surface, under its base (the public URL
// + ShopsPath + slug, or the root of its own host). Package shopwindow
// serves them.
const (
	ShopsPath   = "/shops/"
	ProfilePath = "/.well-known/ucp"
	MCPPath     = "/ucp/mcp"
	// RESTPath is the endpoint of UCP's REST binding, as the window's
	// profile declares it: the catalog's operations are under it
	// (/catalog/search, /catalog/lookup, /catalog/product).
	RESTPath       = "/ucp"
	GoogleFeedPath = "/feeds/google.xml"
	OpenAIFeedPath = "/feeds/openai.jsonl.gz"
	// ProductPagesPath is the window's own page of a product.
	ProductPagesPath = "/products/{handle}"
)

// WithPages is a window's settings as its answers, its feeds and the
// channels' rules read them: a company that names no product page
// template of its own (product_url) has the window's pages, under base,
// as its product pages. pages reports whether it had none.
func WithPages(s *vitrine.Shop, base string) (_ *vitrine.Shop, pages bool) {
	if s.ProductURL != "" {
		return s, false
	}
	c := *s
	c.ProductURL = strings.TrimSuffix(base, "/") + ProductPagesPath
	return &c, true
}

// URLs are where a window is served.
type URLs struct {
	// Window is the base of the window under the server's public URL
	// ({public URL}/shops/{slug}/); the other URLs are under it.
	Window  string
	Profile string
	MCP     string
	// REST is the endpoint of UCP's REST binding, as the profile names it.
	REST       string
	GoogleFeed string
	OpenAIFeed string
	// Hosts are the roots the window is served at too: {slug}.{shop
	// domain} when the server has one, and the company's own domain.
	Hosts []string
}

// Where returns the URLs of the window of the company with that slug, on
// a server reached at publicURL ("" when it has none: the window's own
// URLs are then left empty), with shopDomain ("" for none).
func Where(publicURL, shopDomain, slug string, s *vitrine.Shop) URLs {
	var u URLs
	if publicURL != "" {
		base := strings.TrimSuffix(publicURL, "/") + ShopsPath + url.PathEscape(slug)
		u = URLs{Window: base + "/", Profile: base + ProfilePath, MCP: base + MCPPath, REST: base + RESTPath,
			GoogleFeed: base + GoogleFeedPath, OpenAIFeed: base + OpenAIFeedPath}
	}
	// A window at a host of its own is served with the public URL's
	// scheme and port (https and none without one), as the window writes
	// its own URLs.
	root := func(host string) string {
		scheme := "https"
		if pu, err := url.Parse(publicURL); err == nil && pu.Host != "" {
			scheme = pu.Scheme
			if port := pu.Port(); port != "" {
				host = net.JoinHostPort(host, port)
			}
		}
		return scheme + "://" + host + "/"
	}
	if shopDomain != "" {
		u.Hosts = append(u.Hosts, root(slug+"."+shopDomain))
	}
	if s.Domain != "" {
		u.Hosts = append(u.Hosts, root(s.Domain))
	}
	return u
}
