// Package httpserver serves Vitrine over HTTP: the one mux `vitrine serve`
// serves and the tests use. It holds MCP's Streamable HTTP endpoint with
// its token check (Vitrine tokens, and an external authorization server's
// access tokens as an OAuth resource server), the abuse limits, the
// sessions one user may hold, the RFC 9728 metadata, the health and
// readiness probes, the routes of Vitrine's own authorization server when
// it is on, and the graceful shutdown. The MCP side (tools, the pipeline,
// the SDK server) is package mcpserver's; this package adapts it to HTTP.
package httpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/shopwindow"
)

// MCPPath is where the Streamable HTTP endpoint is served.
const MCPPath = "/mcp"

// IconsPath is where the server's and the toolsets' icons are served.
const IconsPath = "/icons/"

// IconsURL is where a server whose clients reach it at publicURL serves
// its icons (mcpserver.Options.IconsURL).
func IconsURL(publicURL string) string { return strings.TrimSuffix(publicURL, "/") + IconsPath }

// Options configure a Server.
type Options struct {
	// Logger receives refusals, probes that fail, and the SDK's HTTP
	// messages.
	Logger *slog.Logger
	// Metrics, if set, receives the HTTP side's Prometheus instruments.
	Metrics prometheus.Registerer
	// MetricsHandler, if set, is served at GET /metrics.
	MetricsHandler http.Handler
	// OAuth, if set, makes the server accept the access tokens of an
	// external authorization server too (it needs PublicURL).
	OAuth *OAuth
	// PublicURL is the base URL clients reach the server at (as in
	// https://mcp.example.com): the resource URL the OAuth metadata
	// advertises is PublicURL + /mcp.
	PublicURL string
	// AuthorizationServer, when set (and OAuth is not), is Vitrine's own
	// authorization server: its routes are served, and the
	// protected-resource metadata names its issuer, so that clients
	// connect by URL alone.
	AuthorizationServer AuthorizationServer
	// Ready, if set, tells /readyz whether the instance can serve.
	Ready func(context.Context) error
	// Limits are the abuse limits.
	Limits Limits
	// Shop, if set, serves the companies' open shop windows (package
	// shopwindow) at /shops/{slug}/ and at their hosts.
	Shop *Shop
	// Routes are served beside the server's own, by pattern, behind the
	// same limits: `vitrine serve --demo` mounts the demo's images there,
	// which no other server serves.
	Routes map[string]http.Handler
}

// Shop configures the shop windows a server serves: their options (the
// server fills in its public URL, logger, metrics and the client's address
// as its own per-address limit counts it). They read the catalog through
// the server's service.
type Shop struct {
	Options shopwindow.Options
}

// AuthorizationServer is Vitrine's own authorization server (package
// authserver), as this server mounts it.
type AuthorizationServer interface {
	// Issuer is its issuer identifier.
	Issuer() string
	// Register adds its routes to mux. clientAddr is the address of the
	// client of a request, as the per-address limit counts it (behind
	// trusted proxies, the client they name): its own limits on sign-in
	// and registration count the same.
	Register(mux *http.ServeMux, clientAddr func(*http.Request) string)
}

// Server is Vitrine's HTTP server.
type Server struct {
	mcp      *mcpserver.Server
	svc      *service.Service
	opts     Options
	log      *slog.Logger
	handler  http.Handler
	metrics  *metrics
	oauth    *resourceServer // nil without an external authorization server
	self     *selfIssued     // nil without Vitrine's own
	limits   *limiter
	shops    *shopwindow.Server // nil without shop windows
	sessions *sessionCap
	ended    *endedSessions
	held     heldSessions
	// exchanges counts the requests to /mcp that are not event streams (a
	// call's answer is written after its handler returns), for Shutdown.
	exchanges atomic.Int64
}

// New builds the HTTP server of srv, whose callers svc authenticates.
// Handler is what to serve; Shutdown ends it.
func New(srv *mcpserver.Server, svc *service.Service, opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{mcp: srv, svc: svc, opts: opts, log: opts.Logger, metrics: newMetrics(opts.Metrics)}
	switch {
	case opts.OAuth != nil:
		rs, err := newResourceServer(*opts.OAuth, opts.PublicURL)
		if err != nil {
			return nil, err
		}
		s.oauth = rs
	case opts.AuthorizationServer != nil:
		if opts.PublicURL == "" {
			return nil, errors.New("an authorization server needs the public URL of the resource")
		}
		s.self = &selfIssued{issuer: opts.AuthorizationServer.Issuer(), resource: ResourceURL(opts.PublicURL)}
	}
	s.limits = newLimiter(opts.Limits, s.metrics)
	s.sessions = newSessionCap(s, opts.Limits.SessionsPerUser)
	s.held.gone = s.sessions.forget
	s.ended = &endedSessions{s: s}
	srv.MCP().AddReceivingMiddleware(s.held.capture)
	if opts.Shop != nil {
		so := opts.Shop.Options
		if so.PublicURL == "" {
			so.PublicURL = opts.PublicURL
		}
		if so.Logger == nil {
			so.Logger = opts.Logger
		}
		if so.Metrics == nil {
			so.Metrics = opts.Metrics
		}
		so.ClientAddr = s.limits.clientAddr
		shops, err := shopwindow.New(svc, so)
		if err != nil {
			return nil, err
		}
		s.shops = shops
	}
	s.handler = s.routes()
	return s, nil
}

// ResourceURL is the URL of the MCP endpoint of a server whose clients
// reach it at publicURL.
func ResourceURL(publicURL string) string { return strings.TrimSuffix(publicURL, "/") + MCPPath }

// routes is everything `vitrine serve` serves on its main address: MCP
// over Streamable HTTP at /mcp, where every request must carry
// "Authorization: Bearer <token>" (without a valid one it is answered 401
// with a WWW-Authenticate header, and never reaches a tool); the archives
// of export_tenant at /tenants/{tenant_id}/exports/{id}, behind the same
// token check (mcpserver.Server.ServeExport); with OAuth,
// the protected-resource metadata of RFC 9728 at the root and
// path-suffixed well-known URLs; /healthz and /readyz; /metrics when it
// has a handler; the authorization server's routes when it is on; the
// shop windows, when the server has them, at /shops/{slug}/ and at the
// hosts of windows (shopwindow.Server.Route); and Options.Routes.
//
// Every route is behind the per-address limit and the body bounds
// (limits.everyRequest); /mcp and the metadata check the origin of
// browsers too, which the authorization server's protocol endpoints do
// not (they serve any origin, on purpose) nor its pages (their forms carry
// CSRF tokens).
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(MCPPath, s.limits.checkOrigin(s.requireToken(exposeCaller(s.streamable()))))
	// export_tenant's archives, downloaded with the same token as /mcp.
	mux.Handle(mcpserver.ExportRoute, s.limits.checkOrigin(s.requireToken(exposeCaller(http.HandlerFunc(s.mcp.ServeExport)))))
	var meta http.Handler
	switch {
	case s.oauth != nil:
		meta = s.oauth.protectedResourceMetadata()
	case s.self != nil:
		meta = s.self.protectedResourceMetadata()
		s.opts.AuthorizationServer.Register(mux, s.limits.clientAddr)
	}
	if meta != nil {
		meta = s.limits.checkOrigin(meta)
		mux.Handle("/.well-known/oauth-protected-resource", meta)
		mux.Handle("/.well-known/oauth-protected-resource"+MCPPath, meta)
	}
	mux.Handle("GET "+IconsPath+"{file}", mcpserver.Icons())
	for pattern, h := range s.opts.Routes {
		mux.Handle(pattern, h)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", s.readyz)
	if s.opts.MetricsHandler != nil {
		mux.Handle("GET /metrics", s.opts.MetricsHandler)
	}
	if s.shops != nil {
		// The windows are public: no token, no origin check (they serve
		// no cookie and no admin), their own limits besides these.
		return s.limits.everyRequest(s.shops.Route(mux))
	}
	return s.limits.everyRequest(mux)
}

// Handler is what the server serves.
func (s *Server) Handler() http.Handler { return s.handler }

// CheckOAuth reads the authorization server's metadata and keys (and
// finds its introspection endpoint), so that a misconfiguration shows at
// start; without OAuth it does nothing.
func (s *Server) CheckOAuth(ctx context.Context) error {
	if s.oauth == nil {
		return nil
	}
	return s.oauth.check(ctx)
}

// readyz answers whether this instance can serve: its database answers.
// The reason goes to the log only: an outage's details (addresses, users)
// are not for anyone who can reach the port.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.opts.Ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		if err := s.opts.Ready(ctx); err != nil {
			s.log.Warn("not ready", "err", err)
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
	}
	fmt.Fprintln(w, "ready")
}

// Shutdown lets the exchanges in flight finish and their answers go out,
// then ends every session, so that an HTTP server shutting down is left
// with no open stream. It returns when both are done, or when ctx ends,
// whatever the clients do: closing a session waits for its handlers, and
// one may be waiting for a client's answer (an elicitation) that never
// comes.
func (s *Server) Shutdown(ctx context.Context) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for s.exchanges.Load() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	var sessions []*mcp.ServerSession
	for ss := range s.mcp.MCP().Sessions() {
		sessions = append(sessions, ss)
	}
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		for _, ss := range sessions {
			ss.Close()
		}
	}()
	select {
	case <-closed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// metrics are the HTTP side's Prometheus instruments. Without a registry
// they count all the same, unseen.
type metrics struct {
	limited *prometheus.CounterVec
	// authFailures counts requests refused for their token.
	authFailures *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vitrine_rate_limited_total", Help: "HTTP requests refused by an abuse limit, by limit.",
		}, []string{"limit"}),
		authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vitrine_auth_failures_total", Help: "HTTP requests refused for their token, by reason: missing_token, invalid_token, insufficient_scope.",
		}, []string{"reason"}),
	}
	if reg != nil {
		reg.MustRegister(m.limited, m.authFailures)
	}
	return m
}
