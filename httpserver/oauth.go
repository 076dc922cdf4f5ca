package httpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service/accounts"
)

// OAuth configures resource-server mode (the MCP authorization spec): the
// HTTP server then accepts the access tokens of an external authorization
// server, besides Vitrine's own tokens: JWTs, checked against the issuer's
// keys, and opaque tokens, through token introspection (RFC 7662).
type OAuth struct {
	// Issuer is the authorization server's issuer identifier, exactly as
	// its metadata states it (Auth0's end in "/"). A configured issuer
	// that differs from the metadata's only by a trailing slash takes the
	// metadata's form.
	Issuer string
	// Audience is what the tokens' "aud" must hold; empty means the
	// resource URL this server advertises (PublicURL + /mcp), which is
	// what MCP clients ask for (RFC 8707). A URL audience must be that
	// resource; an identifier that is not a URL (Entra's api://…) is taken
	// as it is.
	Audience string
	// JWKSURL is where the issuer's keys are; empty discovers it from the
	// issuer's metadata (RFC 8414, then OpenID Connect discovery).
	JWKSURL string
	// Introspection, when it has a client id, lets opaque (non-JWT) access
	// tokens in through the issuer's introspection endpoint.
	Introspection Introspection
	// UserClaim is "email" (the default: the user linked to the token's
	// subject, else the user with its verified email) or "sub" (the linked
	// subject alone, as vitrine user update --subject links it).
	UserClaim string
	// MaxTokenLifetime, if set, refuses tokens that live longer (from
	// "iat", or from now without one). Every token must carry "exp".
	MaxTokenLifetime time.Duration
	// Provision lets a verified email of these domains become a Vitrine
	// user, with no membership, on first sign-in.
	Provision accounts.Provisioning
	// HTTPClient fetches metadata and keys and calls the introspection
	// endpoint; nil uses a client with a timeout.
	HTTPClient *http.Client
}

// Introspection configures RFC 7662 token introspection.
type Introspection struct {
	// URL is the introspection endpoint; empty takes the issuer's
	// metadata's introspection_endpoint.
	URL string
	// ClientID and ClientSecret authenticate this server to the endpoint
	// (HTTP Basic, client_secret_basic).
	ClientID, ClientSecret string
	// CacheTTL bounds how long an active answer is reused (never past the
	// token's expiry): a token revoked at the issuer stops working within
	// it. A "not active" answer is reused too, for at most 10 s. 0 asks
	// the issuer at every request.
	CacheTTL time.Duration
}

// The scopes a token needs: write gives every tool of the toolsets it
// grants, read the read-only ones; the toolset scopes
// (vitrine.ToolsetScope) grant toolsets. Scopes only narrow: the user's
// memberships still decide.
const (
	ScopeRead  = vitrine.ScopeRead
	ScopeWrite = vitrine.ScopeWrite
)

// resourceServer checks the access tokens of one authorization server for
// this server's resource.
type resourceServer struct {
	cfg      OAuth
	resource string // the resource URL this server advertises
	client   *http.Client
	keys     keyCache
	intro    *introspector // nil without a client id

	mu         sync.Mutex
	discovered bool
	meta       issuerMeta
}

// newResourceServer checks the configuration against the resource URL the
// server advertises, which comes from publicURL (https://mcp.example.com).
func newResourceServer(cfg OAuth, publicURL string) (*resourceServer, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("OAuth needs the authorization server's issuer (--oauth-issuer)")
	}
	if _, err := absoluteURL(cfg.Issuer); err != nil {
		return nil, fmt.Errorf("the issuer %q is not an absolute URL", cfg.Issuer)
	}
	if c := cfg.UserClaim; c != "" && c != "email" && c != "sub" {
		return nil, fmt.Errorf("the OAuth user claim is email or sub, not %q", c)
	}
	if publicURL == "" {
		return nil, errors.New("OAuth needs the URL clients reach this server at, for its resource URL: set --public-url (https://mcp.example.com)")
	}
	pub, err := absoluteURL(publicURL)
	if err != nil {
		return nil, fmt.Errorf("--public-url %q is not an absolute http(s) URL", publicURL)
	}
	resource := ResourceURL(publicURL)
	if pub.Scheme == "http" && !isLoopback(pub.Hostname()) {
		return nil, fmt.Errorf("the resource URL %s is not https, and MCP clients will not send tokens to it: "+
			"behind a TLS proxy, set --public-url https://%s", resource, pub.Host)
	}
	if cfg.Audience == "" {
		cfg.Audience = resource
	} else if aud, err := url.Parse(cfg.Audience); err == nil && (aud.Scheme == "http" || aud.Scheme == "https") &&
		!oauthex.MatchesResource([]string{cfg.Audience}, resource) {
		return nil, fmt.Errorf("--oauth-audience %s is not the resource this server advertises, %s: MCP clients ask for tokens "+
			"of that resource; leave --oauth-audience unset (it defaults to the resource), or set --public-url to the URL before /mcp",
			cfg.Audience, resource)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	rs := &resourceServer{cfg: cfg, resource: resource, client: cfg.HTTPClient}
	rs.keys.fetch = rs.fetchKeys
	if cfg.Introspection.ClientID != "" {
		if cfg.Introspection.CacheTTL > maxIntrospectionCache {
			return nil, fmt.Errorf("the introspection cache is at most %s", maxIntrospectionCache)
		}
		rs.intro = &introspector{rs: rs, cache: map[[32]byte]introspected{}, refused: map[[32]byte]time.Time{}}
	}
	return rs, nil
}

func absoluteURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("not an absolute http(s) URL")
	}
	return u, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// issuerMeta is what this server reads of the authorization server's
// metadata.
type issuerMeta struct {
	Issuer                string `json:"issuer"`
	JWKSURI               string `json:"jwks_uri"`
	IntrospectionEndpoint string `json:"introspection_endpoint"`
}

// check discovers the issuer and fetches its keys, so that a
// misconfiguration shows at start rather than at the first call.
func (rs *resourceServer) check(ctx context.Context) error {
	if _, err := rs.metadata(ctx); err != nil {
		return err
	}
	if rs.intro != nil {
		if _, err := rs.intro.endpoint(ctx); err != nil {
			return err
		}
	}
	_, err := rs.keys.get(ctx, false)
	return err
}

// metadata reads the issuer's metadata once. Its issuer becomes the one
// tokens are compared with, so that "https://x.auth0.com" configured and
// "https://x.auth0.com/" published agree. Without metadata, explicit
// endpoints (--oauth-jwks-url, the introspection URL) are enough.
func (rs *resourceServer) metadata(ctx context.Context) (issuerMeta, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.discovered {
		return rs.meta, nil
	}
	meta, err := rs.discover(ctx)
	if err != nil {
		if rs.cfg.JWKSURL == "" && (rs.intro == nil || rs.cfg.Introspection.URL == "") {
			return issuerMeta{}, err
		}
		meta = issuerMeta{Issuer: rs.cfg.Issuer}
	}
	rs.meta, rs.discovered = meta, true
	return meta, nil
}

// discover tries the metadata locations of RFC 8414 (the well-known path
// inserted before the issuer's path) and of OpenID Connect (appended).
func (rs *resourceServer) discover(ctx context.Context) (issuerMeta, error) {
	u, _ := url.Parse(rs.cfg.Issuer)
	path := strings.TrimSuffix(u.Path, "/")
	base := u.Scheme + "://" + u.Host
	var tried []string
	for _, loc := range []string{
		base + "/.well-known/oauth-authorization-server" + path,
		base + "/.well-known/openid-configuration" + path,
		base + path + "/.well-known/openid-configuration",
	} {
		var meta issuerMeta
		status, err := getJSON(ctx, rs.client, loc, &meta)
		if err != nil {
			return issuerMeta{}, fmt.Errorf("read the issuer's metadata at %s: %w", loc, err)
		}
		if status != http.StatusOK {
			tried = append(tried, fmt.Sprintf("%s (%d)", loc, status))
			continue
		}
		if meta.Issuer != rs.cfg.Issuer && strings.TrimSuffix(meta.Issuer, "/") != strings.TrimSuffix(rs.cfg.Issuer, "/") {
			return issuerMeta{}, fmt.Errorf("the metadata at %s names another issuer, %q: set --oauth-issuer to it", loc, meta.Issuer)
		}
		return meta, nil
	}
	return issuerMeta{}, fmt.Errorf("no metadata for the issuer %s at %s: check --oauth-issuer, or give --oauth-jwks-url",
		rs.cfg.Issuer, strings.Join(tried, ", "))
}

// getJSON reads a JSON document of at most 1 MiB; a status other than 200
// is returned without an error.
func getJSON(ctx context.Context, c *http.Client, loc string, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return res.StatusCode, nil
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, res.Body, 1<<20)).Decode(v); err != nil {
		return 0, fmt.Errorf("not JSON: %w", err)
	}
	return res.StatusCode, nil
}

// protectedResourceMetadata serves RFC 9728 metadata: the resource, the
// authorization server whose tokens it takes (its issuer exactly as its
// metadata states it), and the scopes it knows.
func (rs *resourceServer) protectedResourceMetadata() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		issuer := rs.cfg.Issuer
		if meta, err := rs.metadata(r.Context()); err == nil {
			issuer = meta.Issuer
		}
		auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:               rs.resource,
			AuthorizationServers:   []string{issuer},
			ScopesSupported:        vitrine.AllScopes(),
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "Vitrine",
		}).ServeHTTP(w, r)
	})
}

// metadataURL is where a 401 sends clients to learn how to authenticate.
func (rs *resourceServer) metadataURL() string { return metadataURLOf(rs.resource) }

// metadataURLOf is RFC 9728's well-known URL of a resource: the
// well-known path inserted before the resource's path.
func metadataURLOf(resource string) string {
	u, _ := url.Parse(resource)
	return u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource" + u.Path
}

// selfIssued is the resource's side of Vitrine's own authorization server
// (package authserver): its tokens are Vitrine tokens, checked as every
// token is, so all this side does is say where they come from.
type selfIssued struct{ issuer, resource string }

func (si *selfIssued) protectedResourceMetadata() http.Handler {
	return auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               si.resource,
		AuthorizationServers:   []string{si.issuer},
		ScopesSupported:        vitrine.AllScopes(),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "Vitrine",
	})
}
