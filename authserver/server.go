// Package authserver is Vitrine's own OAuth 2.1 authorization server, for
// its MCP resource: the protocol endpoints (RFC 8414 metadata,
// authorization code with PKCE S256, resource indicators, refresh tokens
// rotated with reuse detection, revocation, dynamic client registration and
// client metadata documents), written on Vitrine's own storage
// (authorize.go, token.go, revoke.go), and the pages a person sees:
// sign-in, consent, connected apps and personal tokens.
//
// Everything it keeps lives in the database (signin.OAuthStore), so any
// instance can carry on a flow another began. The access tokens it issues
// are Vitrine tokens of the user, tied to the grant: the MCP server checks
// them as it checks every token, and revoking the grant ends them at the
// next request.
package authserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/addrlimit"
	"github.com/vitrine/vitrine/service/accounts"
)

// The scopes: write gives every tool of the toolsets granted, read the
// read-only ones; a toolset scope (vitrine.ToolsetScope) grants a toolset.
const (
	ScopeRead  = vitrine.ScopeRead
	ScopeWrite = vitrine.ScopeWrite
)

// Lifetimes of what the server issues.
const (
	accessLifespan  = time.Hour
	refreshLifespan = 30 * 24 * time.Hour
	codeLifespan    = 10 * time.Minute
	sessionLifespan = 14 * 24 * time.Hour
)

// Options configure the authorization server.
type Options struct {
	// Issuer is the public base URL (https://mcp.example.com): the
	// issuer identifier, and where the endpoints and pages are.
	Issuer string
	// Resource is the MCP resource the tokens are for (Issuer + /mcp).
	Resource string
	Logger   *slog.Logger
	// InsecureClientMetadata lets client metadata documents be fetched
	// over http and from private and loopback addresses: for development
	// and tests only.
	InsecureClientMetadata bool
	// Upstream, when set, signs people in with the company's OpenID
	// Connect provider too.
	Upstream *Upstream
	// InsecureIssuer lets an http:// issuer beyond loopback serve the
	// pages, whose cookies then lose Secure and their __Host- names: for
	// development only, and said loudly at start.
	InsecureIssuer bool
	// Now, if set, is the server's clock (its per-address limits', its
	// sessions' and codes'); by default the accounts' clock, the wall
	// clock. Tests freeze it, so that no limit refills during a slow run.
	Now func() time.Time
}

// Server is the authorization server.
type Server struct {
	opts     Options
	accounts *accounts.Accounts
	log      *slog.Logger
	clients  *clients
	web      *web
	upstream *upstream
	now      func() time.Time
	// clientAddr is the address of a request's client (Register).
	clientAddr func(*http.Request) string
}

// New builds the server on the accounts (Service.Accounts); it reads the
// upstream provider's metadata, if any, so that a misconfiguration shows
// at start.
func New(ctx context.Context, acc *accounts.Accounts, opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts.Issuer = strings.TrimSuffix(opts.Issuer, "/")
	iu, err := url.Parse(opts.Issuer)
	if err != nil || (iu.Scheme != "https" && iu.Scheme != "http") || iu.Host == "" {
		return nil, fmt.Errorf("the issuer %q is not an absolute http(s) URL", opts.Issuer)
	}
	if iu.Scheme == "http" && !loopbackHost(iu.Hostname()) {
		if !opts.InsecureIssuer {
			return nil, fmt.Errorf("the public URL %s is not https: the sign-in pages' cookies would travel in clear and lose "+
				"their __Host- protection, and MCP clients will not send tokens to it; behind a TLS proxy, set --public-url https://%s "+
				"(--dev-insecure-public-url allows it, for development only)", opts.Issuer, iu.Host)
		}
		opts.Logger.Warn("INSECURE: the sign-in pages are served at an http:// URL beyond loopback (--dev-insecure-public-url): " +
			"passwords and session cookies travel in clear, and the cookies lose Secure and __Host-; never do this in production")
	}
	s := &Server{opts: opts, accounts: acc, log: opts.Logger, now: acc.Now, clientAddr: peerAddr}
	if opts.Now != nil {
		s.now = opts.Now
	}
	s.clients = newClients(acc.OAuthStore(), opts.InsecureClientMetadata, s.now)
	secure := iu.Scheme == "https"
	w, err := newWeb(ctx, acc, secure)
	if err != nil {
		return nil, err
	}
	s.web = w
	if opts.Upstream != nil {
		if s.upstream, err = newUpstream(ctx, *opts.Upstream, opts.Issuer); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Issuer is the authorization server's issuer identifier.
func (s *Server) Issuer() string { return s.opts.Issuer }

// Register adds the server's endpoints and pages to mux. clientAddr names
// the client of a request as the server in front counts it (behind
// trusted proxies, the client they name); nil counts the TCP peer. The
// limits on sign-in, registration and metadata fetches count by it.
func (s *Server) Register(mux *http.ServeMux, clientAddr func(*http.Request) string) {
	if clientAddr != nil {
		s.clientAddr = clientAddr
	}
	handle := func(pattern string, h http.HandlerFunc) { mux.Handle(pattern, s.fromClient(h)) }
	handle("/.well-known/oauth-authorization-server", cors(s.metadata))
	handle("/oauth/token", cors(s.token))
	handle("/oauth/revoke", cors(s.revoke))
	handle("/oauth/register", cors(s.register))
	handle("GET /oauth/authorize", s.page(s.authorize))
	handle("POST /oauth/authorize", s.page(s.consent))
	handle("GET /login", s.page(s.loginPage))
	handle("POST /login", s.page(s.login))
	handle("POST /logout", s.page(s.logout))
	handle("GET /login/sso", s.page(s.ssoStart))
	handle("GET /login/sso/callback", s.page(s.ssoCallback))
	handle("GET /account", s.page(s.account))
	handle("POST /account/apps/{id}/revoke", s.page(s.revokeApp))
	handle("POST /account/tokens", s.page(s.createToken))
	handle("POST /account/tokens/{id}/revoke", s.page(s.revokeToken))
	handle("POST /account/sessions/revoke", s.page(s.signOutEverywhere))
	handle("POST /account/delete", s.page(s.deleteAccount))
	handle("GET /password", s.page(s.passwordPage))
	handle("POST /password", s.page(s.setPassword))
	handle("GET /static/vitrine.css", serveCSS)
}

// protocolBodyMax bounds the body of a protocol endpoint: a form of a few
// parameters, or client metadata.
const protocolBodyMax = 64 << 10

// cors lets browser-based clients call the protocol endpoints, which take
// no cookies.
func cors(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, protocolBodyMax)
		}
		h(w, r)
	}
}

type clientKeyContext struct{}

// fromClient files the request under its client's key (addrlimit.Key of
// its address), which the limits count.
func (s *Server) fromClient(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := addrlimit.Key(s.clientAddr(r))
		h(w, r.WithContext(context.WithValue(r.Context(), clientKeyContext{}, key)))
	})
}

// clientKey is the key of the request's client, "" outside a request.
func clientKey(ctx context.Context) string {
	k, _ := ctx.Value(clientKeyContext{}).(string)
	return k
}

// peerAddr is the address of a request's TCP peer.
func peerAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// metadata serves RFC 8414 authorization server metadata.
func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	auth := []string{"none", "client_secret_basic", "client_secret_post"}
	// A map, not the SDK's AuthServerMeta: that one always sends a
	// jwks_uri, and this server has no keys to publish (its tokens are
	// opaque).
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         s.opts.Issuer,
		"authorization_endpoint":                         s.opts.Issuer + "/oauth/authorize",
		"token_endpoint":                                 s.opts.Issuer + "/oauth/token",
		"registration_endpoint":                          s.opts.Issuer + "/oauth/register",
		"revocation_endpoint":                            s.opts.Issuer + "/oauth/revoke",
		"scopes_supported":                               vitrine.AllScopes(),
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported":          auth,
		"revocation_endpoint_auth_methods_supported":     auth,
		"code_challenge_methods_supported":               []string{"S256"},
		"client_id_metadata_document_supported":          true,
		"authorization_response_iss_parameter_supported": true,
		"service_documentation":                          s.opts.Issuer + "/account",
	})
}

// unusedClientAge is how long a client that nobody has approved is kept
// after it registered, or its metadata document was last fetched.
const unusedClientAge = 7 * 24 * time.Hour

// Purge removes what no flow can use any more: expired codes, refresh
// tokens and browser sessions, and clients nobody approved within
// unusedClientAge (signin.OAuthStore.PurgeOAuth).
func (s *Server) Purge(ctx context.Context) (int64, error) {
	now := s.now()
	return s.accounts.OAuthStore().PurgeOAuth(ctx, now, now.Add(-unusedClientAge))
}

// PurgeEvery purges every period, the first time a minute after it is
// called, until ctx ends. Instances purging at once on one database only
// find less to remove.
func (s *Server) PurgeEvery(ctx context.Context, every time.Duration) {
	wait := time.Minute
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = every
		n, err := s.Purge(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			s.log.Error("purge the authorization server's expired state", "err", err)
		case n > 0:
			s.log.Info("purged the authorization server's expired state", "rows", n)
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// internal answers an unexpected failure with a request id; the detail
// goes to the log only.
func (s *Server) internal(w http.ResponseWriter, r *http.Request, what string, err error) {
	id := vitrine.NewID()
	s.log.Error(what, "request_id", id, "err", err, "path", r.URL.Path)
	http.Error(w, "Something went wrong on our side (request "+id+").", http.StatusInternalServerError)
}
