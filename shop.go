package vitrine

import (
	"context"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Shop is a company's shop window: what it publishes to shoppers' agents
// (UCP's catalog, over MCP and REST) and to shopping surfaces (merchant
// feeds). A company's window is closed until an owner or admin opens it;
// a closed window is not found at any public URL.
type Shop struct {
	TenantID string
	Open     bool
	// ProductURL is the template of a product page's URL, its handle in
	// place of "{handle}": "https://shop.example/products/{handle}".
	ProductURL string
	// Country is the ISO 3166-1 alpha-2 code of the country it sells to.
	Country string
	// Stock says what the public sees of a variant's stock.
	Stock StockDisclosure
	// Domain is the company's own host name, at whose root its window is
	// served too (the operator points DNS and TLS at it).
	Domain string
	// Options maps an option's name (folded: "tamanho"), or the key of
	// one of the company's public attributes ("codigo_fabricante"), to the
	// feed attribute it fills ("size", "mpn"), beyond DefaultShopOptions.
	Options map[string]string
	// Version grows by one with every change.
	Version   int64
	UpdatedAt time.Time
	UpdatedBy string
}

// StockDisclosure says what the public sees of stock.
type StockDisclosure string

// The stock disclosures: by default, only availability (in stock, out of
// stock, backorder).
const (
	StockAvailability StockDisclosure = "availability"
	StockExact        StockDisclosure = "exact"
)

// The channels a window publishes to.
const (
	ChannelUCP    = "ucp"
	ChannelGoogle = "google"
	ChannelOpenAI = "openai"
)

// ShopChannels are the channels, in the order they are reported.
var ShopChannels = []string{ChannelUCP, ChannelGoogle, ChannelOpenAI}

// FeedAttributes are the feed attributes an option or a public attribute
// may fill. "mpn" is the manufacturer's part number, which the feeds send
// only from a source the company names (no default maps to it): Google and
// OpenAI forbid guessing one.
var FeedAttributes = []string{"size", "color", "material", "pattern", "gender", "age_group", "mpn"}

// DefaultShopOptions maps option names and attribute keys (folded) to the
// feed attribute they fill unless a company's Options say otherwise.
var DefaultShopOptions = map[string]string{
	"size": "size", "tamanho": "size", "talla": "size", "taille": "size",
	"color": "color", "colour": "color", "cor": "color", "couleur": "color",
	"material": "material", "tecido": "material",
	"pattern": "pattern", "estampa": "pattern",
	"gender": "gender", "genero": "gender",
	"age group": "age_group", "age_group": "age_group", "faixa etaria": "age_group", "faixa_etaria": "age_group",
}

// NewShop returns a company's window as it is before anyone sets it:
// closed, availability only.
func NewShop(tenantID string) *Shop {
	return &Shop{TenantID: tenantID, Stock: StockAvailability, Options: map[string]string{}}
}

// FeedAttribute returns the feed attribute an option of that name, or an
// attribute of that key, fills, if any.
func (s *Shop) FeedAttribute(option string) (string, bool) {
	name := Fold(strings.TrimSpace(option))
	if a, ok := s.Options[name]; ok {
		return a, a != ""
	}
	a, ok := DefaultShopOptions[name]
	return a, ok
}

// ProductPageURL returns the page of the product with that handle, or ""
// when the window has no template.
func (s *Shop) ProductPageURL(handle string) string {
	if s.ProductURL == "" {
		return ""
	}
	return strings.ReplaceAll(s.ProductURL, "{handle}", url.PathEscape(handle))
}

// ParseStockDisclosure validates a stock disclosure.
func ParseStockDisclosure(field, s string) (StockDisclosure, error) {
	switch d := StockDisclosure(strings.TrimSpace(s)); d {
	case StockAvailability, StockExact:
		return d, nil
	}
	return "", Invalid(field, "%s must be \"availability\" or \"exact\", not %q", field, s)
}

// MaxShopURLLength bounds a product URL template.
const MaxShopURLLength = 1000

// ValidateProductURL checks a product URL template: an absolute https URL
// (http only for localhost) holding "{handle}" once. Empty clears it.
func ValidateProductURL(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if len(s) > MaxShopURLLength {
		return "", Invalid(field, "%s is %d bytes long; the limit is %d", field, len(s), MaxShopURLLength)
	}
	if strings.Count(s, "{handle}") != 1 {
		return "", Invalid(field, "%s must hold {handle} once, where the product's handle goes, such as \"https://shop.example/products/{handle}\"", field)
	}
	u, err := url.Parse(strings.ReplaceAll(s, "{handle}", "h"))
	if err != nil || u.Host == "" || u.User != nil || u.Fragment != "" {
		return "", Invalid(field, "%s must be an absolute URL, such as \"https://shop.example/products/{handle}\"", field)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && isLoopbackHost(u.Hostname()):
	default:
		return "", Invalid(field, "%s must be an https URL (http only for localhost)", field)
	}
	return s, nil
}

func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

var countryRE = regexp.MustCompile(`^[A-Z]{2}$`)

// ValidateCountry checks an ISO 3166-1 alpha-2 country code, in any case;
// it returns it in upper case. Empty clears it.
func ValidateCountry(field, s string) (string, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if s != "" && !countryRE.MatchString(s) {
		return "", Invalid(field, "%s must be a two-letter ISO 3166-1 country code, such as \"BR\" or \"US\", not %q", field, s)
	}
	return s, nil
}

var domainLabelRE = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)

// ValidateDomain checks a host name a window is served at: lower-cased,
// without a port, a scheme or a trailing dot, two labels at least, not an
// IP address. Empty clears it.
func ValidateDomain(field, s string) (string, error) {
	s = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), ".")
	if s == "" {
		return "", nil
	}
	bad := Invalid(field, "%s must be a host name such as \"shop.example.com\", without a scheme, a port or a path; got %q", field, s)
	if len(s) > 253 || net.ParseIP(s) != nil {
		return "", bad
	}
	labels := strings.Split(s, ".")
	if len(labels) < 2 {
		return "", bad
	}
	for _, l := range labels {
		if !domainLabelRE.MatchString(l) {
			return "", bad
		}
	}
	return s, nil
}

// ValidateShopOptions checks a company's option mapping: option names or
// attribute keys (folded) to a feed attribute, or to "" to map a default
// name to none.
func ValidateShopOptions(field string, m map[string]string) (map[string]string, error) {
	if len(m) > 50 {
		return nil, Invalid(field, "%s maps at most 50 option names; got %d", field, len(m))
	}
	out := make(map[string]string, len(m))
	for name, attr := range m {
		n := Fold(strings.TrimSpace(name))
		if n == "" || len(n) > 255 {
			return nil, Invalid(field, "%s: an option name is 1 to 255 characters", field)
		}
		if attr != "" && !slices.Contains(FeedAttributes, attr) {
			return nil, Invalid(field+"."+name, "%s must be one of %s, or \"\" for none; got %q", field+"."+name, Quoted(FeedAttributes), attr)
		}
		out[n] = attr
	}
	return out, nil
}

// ShopStore keeps the companies' windows.
type ShopStore interface {
	// Shop returns the tenant's window; one never set is NewShop's.
	Shop(ctx context.Context, tenantID string) (*Shop, error)
	// SaveShop writes the tenant's window at the next version; another
	// company's window on the same domain is a ConflictError.
	SaveShop(ctx context.Context, ch Change, s *Shop) error
	// OpenShopBySlug returns the open window of the company with that
	// slug, with its company; a closed window, or none, is NotFoundError,
	// the same in every case.
	OpenShopBySlug(ctx context.Context, slug string) (*Tenant, *Shop, error)
	// OpenShopByDomain returns the open window served at that host name,
	// as OpenShopBySlug does.
	OpenShopByDomain(ctx context.Context, domain string) (*Tenant, *Shop, error)
	// CatalogStamp returns what changes whenever anything the window
	// shows of the tenant changes (a product, a category, an attribute's
	// definition, the window's own settings): feeds and answers are
	// tagged by it.
	CatalogStamp(ctx context.Context, tenantID string) (string, error)
}
