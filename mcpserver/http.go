package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// HTTPPath is where the Streamable HTTP endpoint is served.
const HTTPPath = "/mcp"

// HTTPHandler is everything `vitrine serve` serves on its main address:
// MCP over Streamable HTTP at /mcp, where every request must carry
// "Authorization: Bearer <token>" (without a valid one it is answered 401
// with a WWW-Authenticate header, and never reaches a tool); with OAuth,
// the protected-resource metadata of RFC 9728 at the root and
// path-suffixed well-known URLs; /healthz and /readyz. The caller may add
// routes (the binary adds /metrics).
func (s *Server) HTTPHandler() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, s.limits.byIP(s.requireToken(exposeCaller(s.sessions()))))
	var meta http.Handler
	switch {
	case s.oauth != nil:
		meta = s.oauth.protectedResourceMetadata()
	case s.self != nil:
		meta = s.self.protectedResourceMetadata()
	}
	if meta != nil {
		meta = s.limits.byIP(meta)
		mux.Handle("/.well-known/oauth-protected-resource", meta)
		mux.Handle("/.well-known/oauth-protected-resource"+HTTPPath, meta)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", s.readyz)
	return mux
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

// sessionIdleTimeout closes the sessions of clients that went away.
const sessionIdleTimeout = 30 * time.Minute

// sessions serves the Streamable HTTP protocol so that any instance behind
// a load balancer can answer any request, without sticky sessions.
//
// A session lives in the memory of the instance that answered its
// initialize. A request of that session which reaches this instance is
// served in it. A request of a session this instance does not know (made
// by another instance, or ended by the idle timeout) is served statelessly:
// nothing a tool does depends on session state, since every request
// carries its own token and every tool call its own tenant_id. Standalone
// server-to-client streams (GET) exist only on the session's instance;
// elsewhere GET answers 405, which clients read as "no such stream".
// Requests of the sessionless protocol revision (2026-07-28 and later) are
// always served statelessly.
func (s *Server) sessions() http.Handler {
	getServer := func(*http.Request) *mcp.Server { return s.mcp }
	stateful := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Logger: s.log, SessionTimeout: sessionIdleTimeout})
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Logger: s.log, Stateless: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			// Shutdown waits for these: closing a session while its answer
			// is being written would cut the answer off.
			s.metrics.exchanges.Add(1)
			defer s.metrics.exchanges.Add(-1)
		}
		id := r.Header.Get("Mcp-Session-Id")
		switch {
		case r.Header.Get("Mcp-Protocol-Version") >= sessionlessProtocol:
			stateless.ServeHTTP(w, r)
		case id == "":
			s.sessionCap.serveNew(w, r, stateful)
		case s.hasSession(id):
			s.sessionCap.serve(id, w, r, stateful)
		case r.Method == http.MethodPost:
			stateless.ServeHTTP(w, r)
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusNoContent) // nothing of it lives here
		default:
			w.Header().Set("Allow", "POST")
			http.Error(w, "no server-to-client stream for this session on this instance", http.StatusMethodNotAllowed)
		}
	})
}

// sessionlessProtocol is the first protocol revision without sessions.
const sessionlessProtocol = "2026-07-28"

// hasSession reports whether this instance holds the session.
func (s *Server) hasSession(id string) bool {
	for ss := range s.mcp.Sessions() {
		if ss.ID() == id {
			return true
		}
	}
	return false
}

type callerContextKey struct{}

// requireToken authenticates the bearer token of every request: a Vitrine
// token, or with OAuth an access token of the authorization server.
// Refusals are logged (without the token) and counted.
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secret, ok := bearer(r)
		if !ok {
			s.refuse(w, r, http.StatusUnauthorized, "", "send the header Authorization: Bearer <token>")
			return
		}
		c, err := s.authenticate(r.Context(), secret)
		var ae *service.AuthError
		switch {
		case errors.Is(err, errScope):
			s.refuse(w, r, http.StatusForbidden, "insufficient_scope", errScope.Error())
			return
		case errors.As(err, &ae):
			s.refuse(w, r, http.StatusUnauthorized, "invalid_token", ae.Reason)
			return
		case err != nil:
			id := vitrine.NewID()
			s.log.Error("authenticate", "request_id", id, "err", err)
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{
				"error": "temporarily_unavailable", "error_description": fmt.Sprintf(internalMessage, id)})
			return
		}
		s.limits.byToken(c.Token.ID+c.User.ID, w, r.WithContext(context.WithValue(r.Context(), callerContextKey{}, c)), next)
	})
}

// authenticate resolves a bearer token: Vitrine's own by their prefix, and
// anything else as an access token of the authorization server when OAuth
// is on.
func (s *Server) authenticate(ctx context.Context, secret string) (*vitrine.Caller, error) {
	if strings.HasPrefix(secret, vitrine.TokenPrefix) || s.oauth == nil {
		return s.svc.Authenticate(ctx, secret)
	}
	id, err := s.oauth.verify(ctx, secret)
	if err != nil {
		return nil, err
	}
	return s.svc.AuthenticateIdentity(ctx, id, s.oauth.cfg.Provision)
}

// exposeCaller hands the authenticated caller to the SDK, which passes it to
// tool handlers as the request's TokenInfo. The SDK reads TokenInfo only
// through its own middleware, so this wraps it with a verifier that accepts
// what requireToken has already checked.
func exposeCaller(next http.Handler) http.Handler {
	return auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		c, ok := ctx.Value(callerContextKey{}).(*vitrine.Caller)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		info := &auth.TokenInfo{UserID: c.User.ID, Extra: map[string]any{callerKey: c}}
		if c.Token.ExpiresAt != nil {
			info.Expiration = *c.Token.ExpiresAt
		}
		return info, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
}

func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	return token, ok && strings.EqualFold(scheme, "Bearer") && token != ""
}

// refuse answers a request without a valid token as RFC 6750 describes:
// 401 (code "invalid_token", or none when no token came) or 403
// ("insufficient_scope"). With OAuth, the challenge points at the
// resource's metadata (RFC 9728), where clients learn where to get a
// token.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, code, description string) {
	reason := code
	if reason == "" {
		reason = "missing_token"
	}
	s.metrics.authFailures.WithLabelValues(reason).Inc()
	s.log.Info("authentication refused", "reason", reason, "detail", description, "remote", r.RemoteAddr, "path", r.URL.Path)
	challenge := `Bearer realm="vitrine"`
	body := map[string]string{"error": "unauthorized", "error_description": description}
	if code != "" {
		challenge += fmt.Sprintf(`, error=%q, error_description=%q`, code, description)
		body["error"] = code
	}
	if code == "insufficient_scope" {
		challenge += fmt.Sprintf(`, scope=%q`, ScopeRead+" "+ScopeWrite)
	}
	switch {
	case s.oauth != nil:
		challenge += fmt.Sprintf(`, resource_metadata=%q`, s.oauth.metadataURL())
	case s.self != nil:
		challenge += fmt.Sprintf(`, resource_metadata=%q`, metadataURLOf(s.self.resource))
	}
	w.Header().Set("WWW-Authenticate", challenge)
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
