package authserver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/addrlimit"
	"github.com/vitrine/vitrine/internal/safefetch"
	"github.com/vitrine/vitrine/signin"
	"golang.org/x/net/idna"
	"golang.org/x/time/rate"
)

// clients finds the clients of authorization requests: registered ones in
// the database, and those whose client_id is the https URL of their
// metadata document (the MCP authorization spec's Client ID Metadata
// Documents), fetched and kept for metadataTTL.
type clients struct {
	db signin.OAuthStore
	// fetcher fetches documents from public addresses only (unless
	// insecure), bounded in size and time.
	fetcher *safefetch.Fetcher
	// insecure lets metadata documents be fetched over http and from
	// private and loopback addresses: for development and tests only.
	insecure bool
	now      func() time.Time
	// fetches bounds the documents fetched for one client address: each
	// new client_id URL costs an outbound request and a stored row.
	fetches *addrlimit.Table
}

// errFetchLimited refuses a metadata document fetch past the address's
// limit.
var errFetchLimited = &oauthError{code: "temporarily_unavailable", status: http.StatusTooManyRequests,
	description: "Too many client metadata documents were fetched for your address; try again in a minute."}

// Bounds on fetching a metadata document: it is an attacker's URL.
const (
	metadataTTL      = time.Hour
	metadataStaleMax = 24 * time.Hour // a cached document serves this long when its host is down
	metadataMaxBytes = 8 << 10
	metadataTimeout  = 5 * time.Second
)

func newClients(db signin.OAuthStore, insecure bool, now func() time.Time) *clients {
	// 10 documents from one address, then one every 30 s.
	return &clients{db: db, insecure: insecure, now: now, fetches: addrlimit.New(rate.Every(30*time.Second), 10, limitTableSize),
		fetcher: safefetch.New("a client metadata document", metadataMaxBytes, metadataTimeout, insecure)}
}

// isMetadataURL reports whether a client_id names a metadata document.
func isMetadataURL(id string) bool {
	return strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://")
}

// lookup returns the client with that id: registered, or known by its
// metadata document. An unknown one is an invalid_client error.
func (c *clients) lookup(ctx context.Context, id string) (*signin.OAuthClient, error) {
	if isMetadataURL(id) {
		return c.metadataClient(ctx, id)
	}
	oc, err := c.db.OAuthClient(ctx, id)
	if vitrine.TypeOf(err) == vitrine.NotFoundError || (err == nil && oc.Kind != "registered") {
		return nil, errInvalidClient.withHint("No client has this client_id: register it, or use the https URL of its metadata document.")
	}
	return oc, err
}

// metadataClient returns the client of a metadata document: the copy kept
// when fresh, else the document fetched again.
func (c *clients) metadataClient(ctx context.Context, id string) (*signin.OAuthClient, error) {
	cached, err := c.db.OAuthClient(ctx, id)
	if err != nil && vitrine.TypeOf(err) != vitrine.NotFoundError {
		return nil, err
	}
	now := c.now()
	if cached != nil && now.Sub(cached.FetchedAt) < metadataTTL {
		return cached, nil
	}
	if err := c.checkURL(id); err != nil {
		return nil, errInvalidClient.withHint("The client's metadata document could not be used: %s.", err)
	}
	if !c.fetches.Allow(clientKey(ctx), now) {
		if cached != nil && now.Sub(cached.FetchedAt) < metadataStaleMax {
			return cached, nil
		}
		return nil, errFetchLimited
	}
	meta, ferr := c.fetch(ctx, id)
	if ferr != nil {
		if cached != nil && now.Sub(cached.FetchedAt) < metadataStaleMax {
			return cached, nil
		}
		return nil, errInvalidClient.withHint("The client's metadata document could not be used: %s.", ferr)
	}
	oc := &signin.OAuthClient{ID: id, Kind: "metadata", Metadata: *meta, CreatedAt: now, FetchedAt: now}
	if cached != nil {
		oc.CreatedAt = cached.CreatedAt
	}
	if err := c.db.SaveOAuthClient(ctx, oc); err != nil {
		return nil, err
	}
	return oc, nil
}

// checkURL checks a client_id URL before anything is fetched from it.
func (c *clients) checkURL(id string) error {
	u, err := url.Parse(id)
	switch {
	case err != nil || u.Host == "" || u.User != nil || u.Fragment != "":
		return errors.New("its client_id is not a plain URL")
	case u.Scheme != "https" && !c.insecure:
		return errors.New("its client_id is not an https URL")
	case u.Path == "" || u.Path == "/":
		return errors.New("its client_id URL has no path")
	case !safefetch.ASCIIOnly(u.Host):
		// The consent page shows the host: in Unicode it could pass for
		// another (а, Cyrillic, for a), while the fetch goes to its
		// punycode.
		return errors.New("its client_id URL's host is not ASCII: write it in punycode (xn--…)")
	}
	if ip, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && !c.insecure && !safefetch.PublicAddr(ip) {
		return errors.New("its client_id names an address that is not a public one")
	}
	return nil
}

// fetch reads and checks a client metadata document.
func (c *clients) fetch(ctx context.Context, id string) (*signin.ClientMetadata, error) {
	if err := c.checkURL(id); err != nil {
		return nil, err
	}
	body, _, err := c.fetcher.Get(ctx, id, "application/json")
	if err != nil {
		return nil, err
	}
	var doc struct {
		signin.ClientMetadata
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, errors.New("it is not a JSON object")
	}
	switch {
	case doc.ClientID != id:
		return nil, errors.New("its client_id is not its own URL")
	case doc.ClientSecret != "":
		return nil, errors.New("it holds a client_secret")
	case doc.TokenEndpointAuthMethod != "" && doc.TokenEndpointAuthMethod != "none":
		return nil, errors.New("its token_endpoint_auth_method is not none")
	}
	meta, err := checkMetadata(doc.ClientMetadata)
	if err != nil {
		return nil, err
	}
	return meta, nil
}

// checkMetadata validates and cleans what a client says of itself.
func checkMetadata(m signin.ClientMetadata) (*signin.ClientMetadata, error) {
	if len(m.RedirectURIs) == 0 || len(m.RedirectURIs) > 10 {
		return nil, errors.New("redirect_uris must hold 1 to 10 URIs")
	}
	for _, r := range m.RedirectURIs {
		if err := checkRedirectURI(r); err != nil {
			return nil, fmt.Errorf("the redirect URI %q %w", r, err)
		}
	}
	for _, g := range m.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return nil, fmt.Errorf("the grant type %q is not supported (authorization_code, refresh_token)", g)
		}
	}
	for _, rt := range m.ResponseTypes {
		if rt != "code" {
			return nil, fmt.Errorf("the response type %q is not supported (code)", rt)
		}
	}
	m.ClientName = cleanText(m.ClientName, 80)
	if u, err := url.Parse(m.ClientURI); err != nil || u.Scheme != "https" {
		m.ClientURI = ""
	}
	m.LogoURI = "" // never shown: a remote image would tell its host who looks at the page
	m.SoftwareID, m.SoftwareVersion = cleanText(m.SoftwareID, 100), cleanText(m.SoftwareVersion, 40)
	return &m, nil
}

// checkRedirectURI accepts https, http on loopback (native apps, RFC
// 8252) and private-use schemes (cursor://…), never a fragment or a
// scheme that runs code. A host must be a plain host name or an IP
// address: the consent page names it in its Content-Security-Policy
// (form-action), where ; or * or a space would change the policy.
func checkRedirectURI(r string) error {
	u, err := url.Parse(r)
	switch {
	case err != nil || u.Scheme == "":
		return errors.New("is not an absolute URI")
	case u.Fragment != "" || strings.Contains(r, "#"):
		return errors.New("has a fragment")
	case slices.Contains([]string{"javascript", "data", "vbscript", "file", "about", "blob"}, strings.ToLower(u.Scheme)):
		return errors.New("has a scheme that is not allowed")
	case u.Host != "" && !plainHost(u.Hostname()):
		return errors.New("has a host that is not a plain host name (letters, digits, hyphens and dots) or an IP address")
	case u.Scheme == "http" && !loopbackHost(u.Hostname()):
		return errors.New("is http on a host other than loopback")
	case (u.Scheme == "https" || u.Scheme == "http") && u.Host == "":
		return errors.New("has no host")
	}
	return nil
}

// hostLabels is a host name: labels of letters, digits and hyphens, not
// starting or ending with a hyphen, joined by dots.
var hostLabels = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$`)

// plainHost reports whether a URL's host (without its port) is a host
// name or an IP address without a zone.
func plainHost(h string) bool {
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Zone() == ""
	}
	return len(h) <= 253 && hostLabels.MatchString(h)
}

// displayHost is a host as the pages show it: in ASCII (punycode), so
// that a Unicode lookalike shows as what it is.
func displayHost(h string) string {
	if safefetch.ASCIIOnly(h) {
		return h
	}
	name, port, err := net.SplitHostPort(h)
	if err != nil {
		name, port = h, ""
	}
	a, err := idna.ToASCII(name)
	if err != nil {
		return strconv.QuoteToASCII(h)
	}
	if port != "" {
		return net.JoinHostPort(a, port)
	}
	return a
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.IsLoopback()
}

// cleanText keeps printable characters and at most max runes.
func cleanText(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, strings.TrimSpace(s))
	if r := []rune(s); len(r) > max {
		s = string(r[:max])
	}
	return s
}

// register serves dynamic client registration (RFC 7591).
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !s.allowed(s.web.register, r) {
		w.Header().Set("Retry-After", "180")
		writeJSON(w, http.StatusTooManyRequests, map[string]string{"error": "too_many_requests",
			"error_description": "too many client registrations from this address; try again later"})
		return
	}
	var m signin.ClientMetadata
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<10)).Decode(&m); err != nil {
		registrationError(w, "invalid_client_metadata", "the body is not a JSON object of client metadata")
		return
	}
	meta, err := checkMetadata(m)
	if err != nil {
		code := "invalid_client_metadata"
		if strings.HasPrefix(err.Error(), "the redirect URI") || strings.HasPrefix(err.Error(), "redirect_uris") {
			code = "invalid_redirect_uri"
		}
		registrationError(w, code, err.Error())
		return
	}
	if meta.TokenEndpointAuthMethod == "" {
		meta.TokenEndpointAuthMethod = "client_secret_basic" // RFC 7591's default
	}
	if !slices.Contains([]string{"none", "client_secret_basic", "client_secret_post"}, meta.TokenEndpointAuthMethod) {
		registrationError(w, "invalid_client_metadata", "token_endpoint_auth_method must be none, client_secret_basic or client_secret_post")
		return
	}
	if len(meta.GrantTypes) == 0 {
		meta.GrantTypes = []string{"authorization_code", "refresh_token"}
	}
	meta.ResponseTypes = []string{"code"}
	now := s.now()
	oc := &signin.OAuthClient{ID: "vc_" + randomSecret("")[:32], Kind: "registered", Metadata: *meta,
		CreatedAt: now, FetchedAt: now}
	var secret string
	if meta.TokenEndpointAuthMethod != "none" {
		secret = randomSecret("vcs_")
		h := sha256.Sum256([]byte(secret))
		oc.SecretHash = h[:]
	}
	if err := s.accounts.OAuthStore().SaveOAuthClient(r.Context(), oc); err != nil {
		s.internal(w, r, "register a client", err)
		return
	}
	s.log.Info("client registered", "client_id", oc.ID, "client_name", meta.ClientName)
	out := map[string]any{"client_id": oc.ID, "client_id_issued_at": now.Unix(), "client_name": meta.ClientName,
		"redirect_uris": meta.RedirectURIs, "grant_types": meta.GrantTypes, "response_types": meta.ResponseTypes,
		"token_endpoint_auth_method": meta.TokenEndpointAuthMethod}
	if meta.ClientURI != "" {
		out["client_uri"] = meta.ClientURI
	}
	if secret != "" {
		out["client_secret"], out["client_secret_expires_at"] = secret, 0
	}
	writeJSON(w, http.StatusCreated, out)
}

func registrationError(w http.ResponseWriter, code, description string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": description})
}
