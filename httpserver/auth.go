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
		var ae *accounts.AuthError
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
				"error": "temporarily_unavailable", "error_description": mcpserver.InternalErrorMessage(id)})
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
		c, ok := ctx.Value(callerContextKey{}).(*vitrine.Caller)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return mcpserver.TokenInfo(c), nil
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
