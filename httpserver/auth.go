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
// first read (vitrine.EpochCheck), and its response is held (gate) until
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
			s.limits.byToken(c.Token.ID+c.User.ID, w, r, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !pipelinedCall(r) {
					s.confirm(w, r, secret, next)
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
		s.limits.byToken(c.Token.ID+c.User.ID, w, withCaller(r, c, nil), next)
	})
}

// confirm authenticates the token against the current access epoch and
// serves the request as its caller.
func (s *Server) confirm(w http.ResponseWriter, r *http.Request, secret string, next http.Handler) {
	c, err := s.authenticate(r.Context(), secret)
	if s.refused(w, r, err) {
		return
	}
	next.ServeHTTP(w, withCaller(r, c, nil))
}

// refused answers a failed authentication and reports whether it did.
func (s *Server) refused(w http.ResponseWriter, r *http.Request, err error) bool {
	var ae *accounts.AuthError
	switch {
	case err == nil:
		return false
	case errors.Is(err, errScope):
		s.refuse(w, r, http.StatusForbidden, "insufficient_scope", errScope.Error())
	case errors.As(err, &ae):
		s.refuse(w, r, http.StatusUnauthorized, "invalid_token", ae.Reason)
	default:
		id := vitrine.NewID()
		s.log.Error("authenticate", "request_id", id, "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{
			"error": "temporarily_unavailable", "error_description": mcpserver.InternalErrorMessage(id)})
	}
	return true
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
