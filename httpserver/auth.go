package httpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service/accounts"
)

type callerContextKey struct{}

// authenticated is what requireToken hands exposeCaller: the caller, and
// its recheck when it was taken from the access cache.
type authenticated struct {
	caller  *vitrine.Caller
	recheck mcpserver.Recheck
}

// requireToken authenticates the bearer token of every request: a Vitrine
// token, or with OAuth an access token of the authorization server.
// Refusals are logged (without the token) and counted.
//
// A Vitrine token this instance has cached is admitted without reading the
// access epoch first when the request is one tools/call or resources/read:
// the pipeline checks the epoch in the same round trip as the call's own
// first read (service.Service.CheckingEpoch), and its response is held (gate) until
// then. If the epoch had moved and the token is now refused, the answer is
// the same 401 as here; a PostgreSQL read then costs one round trip, not
// two. Any other request reads the epoch first.
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secret, ok := bearer(r)
		if !ok {
			s.refuse(w, r, http.StatusUnauthorized, "", "send the header Authorization: Bearer <token>")
			return
		}
		if c := s.cached(secret); c != nil {
			m := readRPC(r)
			s.limits.byToken(c.Token.ID+c.User.ID, m.calls(), w, r, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !m.pipelined() || s.stepUp(c, m) != nil {
					s.confirm(w, r, secret, m, next)
					return
				}
				g := &gate{ResponseWriter: w}
				next.ServeHTTP(g, withCaller(r, c, s.recheck(g, r, secret)))
			}))
			return
		}
		c, err := s.authenticate(r.Context(), secret)
		if s.refused(w, r, err) {
			return
		}
		m := readRPC(r)
		s.limits.byToken(c.Token.ID+c.User.ID, m.calls(), w, r, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if c.Token.OAuth && s.refusedScope(w, r, c, m) {
				return
			}
			next.ServeHTTP(w, withCaller(r, c, nil))
		}))
	})
}

// confirm authenticates the token against the current access epoch and
// serves the request as its caller, unless it is outside the caller's grant.
func (s *Server) confirm(w http.ResponseWriter, r *http.Request, secret string, m rpc, next http.Handler) {
	c, err := s.authenticate(r.Context(), secret)
	if s.refused(w, r, err) || s.refusedScope(w, r, c, m) {
		return
	}
	next.ServeHTTP(w, withCaller(r, c, nil))
}

// stepUp returns the scopes an OAuth caller must ask for before the
// message is within its grant (mcpserver.Server.StepUp), or nil: a
// personal token's holder cannot ask, and is answered by the tool.
func (s *Server) stepUp(c *vitrine.Caller, m rpc) []string {
	if !c.Token.OAuth {
		return nil
	}
	return s.mcp.StepUp(c, m.Method, m.Params)
}

// refusedScope answers 403 insufficient_scope, with the scopes to ask for,
// a message outside an OAuth caller's grant, and reports whether it did:
// the client asks the person for them (step-up authorization, SEP-835),
// and sends the request again with the new token.
func (s *Server) refusedScope(w http.ResponseWriter, r *http.Request, c *vitrine.Caller, m rpc) bool {
	scopes := s.stepUp(c, m)
	if scopes == nil {
		return false
	}
	s.refuseScope(w, r, scopes, "the token does not grant this call: ask the person to approve "+strings.Join(scopes, " "))
	return true
}

// refused answers a failed authentication and reports whether it did.
func (s *Server) refused(w http.ResponseWriter, r *http.Request, err error) bool {
	var ae *accounts.AuthError
	switch {
	case err == nil:
		return false
	case errors.Is(err, errScope):
		s.refuseScope(w, r, defaultScopes, errScope.Error())
	case errors.As(err, &ae):
		s.refuse(w, r, http.StatusUnauthorized, "invalid_token", ae.Reason)
	default:
		s.unavailable(w, "authenticate", err)
	}
	return true
}

// unavailable answers 503 for a failure of the database (or of what else
// the request needs), with a request id; the detail goes to the log only.
func (s *Server) unavailable(w http.ResponseWriter, what string, err error) {
	id := vitrine.NewID()
	s.log.Error(what, "request_id", id, "err", err)
	writeJSON(w, http.StatusServiceUnavailable, map[string]string{
		"error": "temporarily_unavailable", "error_description": mcpserver.InternalErrorMessage(id)})
}

// cached returns the caller of a Vitrine token as the access cache has it
// (accounts.AuthenticateCached), or nil.
func (s *Server) cached(secret string) *vitrine.Caller {
	if !strings.HasPrefix(secret, vitrine.TokenPrefix) {
		return nil
	}
	return s.svc.Accounts().AuthenticateCached(secret)
}

// recheck is the pipeline's way back when the epoch has moved: the token
// authenticated again, and a refusal made the request's answer.
func (s *Server) recheck(g *gate, r *http.Request, secret string) mcpserver.Recheck {
	return func(ctx context.Context) (*vitrine.Caller, error) {
		c, err := s.authenticate(ctx, secret)
		if err != nil {
			g.answer(func(w http.ResponseWriter) { s.refused(w, r, err) })
		}
		return c, err
	}
}

func withCaller(r *http.Request, c *vitrine.Caller, recheck mcpserver.Recheck) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), callerContextKey{}, authenticated{c, recheck}))
}

// callerOf returns the caller requireToken authenticated, or nil.
func callerOf(r *http.Request) *vitrine.Caller {
	a, _ := r.Context().Value(callerContextKey{}).(authenticated)
	return a.caller
}

// authenticate resolves a bearer token: Vitrine's own by their prefix, and
// anything else as an access token of the authorization server when OAuth
// is on.
func (s *Server) authenticate(ctx context.Context, secret string) (*vitrine.Caller, error) {
	if strings.HasPrefix(secret, vitrine.TokenPrefix) || s.oauth == nil {
		return s.svc.Accounts().Authenticate(ctx, secret)
	}
	id, err := s.oauth.verify(ctx, secret)
	if err != nil {
		return nil, err
	}
	return s.svc.Accounts().AuthenticateIdentity(ctx, id, s.oauth.cfg.Provision)
}

// exposeCaller hands the authenticated caller to the SDK, which passes it to
// tool handlers as the request's TokenInfo. The SDK reads TokenInfo only
// through its own middleware, so this wraps it with a verifier that accepts
// what requireToken has already checked.
func exposeCaller(next http.Handler) http.Handler {
	return auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		a, ok := ctx.Value(callerContextKey{}).(authenticated)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return mcpserver.TokenInfo(a.caller, a.recheck), nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
}

func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	return token, ok && strings.EqualFold(scheme, "Bearer") && token != ""
}

// defaultScopes are what a client without a token asks for: read and
// write. Naming no toolset, they grant the default ones (the consent page
// offers the others).
var defaultScopes = []string{ScopeRead, ScopeWrite}

// refuse answers a request without a valid token as RFC 6750 describes:
// 401, code "invalid_token", or none when no token came, with the scopes a
// client asks for (SEP-835: not scopes_supported, which names every
// toolset). With OAuth, the challenge points at the resource's metadata
// (RFC 9728), where clients learn where to get a token.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, code, description string) {
	s.challenge(w, r, status, code, description, defaultScopes)
}

// refuseScope answers 403 insufficient_scope with the scopes the request
// needs.
func (s *Server) refuseScope(w http.ResponseWriter, r *http.Request, scopes []string, description string) {
	s.challenge(w, r, http.StatusForbidden, "insufficient_scope", description, scopes)
}

func (s *Server) challenge(w http.ResponseWriter, r *http.Request, status int, code, description string, scopes []string) {
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
	if s.oauth != nil || s.self != nil {
		challenge += fmt.Sprintf(`, scope=%q`, strings.Join(scopes, " "))
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
