package authserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// oauthError is an error of the protocol (RFC 6749 §4.1.2.1, §5.2): its
// code, the HTTP status it is answered with, the code's meaning and a hint
// about this request. The meanings are RFC 6749's, worded as the server
// has answered them since its first release; the cause, if any, goes to
// the log only.
type oauthError struct {
	code, description, hint string
	status                  int
	cause                   error
}

func (e *oauthError) Error() string { return e.code }
func (e *oauthError) Unwrap() error { return e.cause }

// text is the error_description: the meaning, then the hint.
func (e *oauthError) text() string {
	d := e.description
	if e.hint != "" {
		d += " " + e.hint
	}
	return strings.ReplaceAll(d, `"`, "'")
}

// withHint returns a copy of the error with a hint about this request.
func (e *oauthError) withHint(format string, args ...any) *oauthError {
	c := *e
	c.hint = fmt.Sprintf(format, args...)
	return &c
}

// wrap returns a copy of the error with its cause, for the log.
func (e *oauthError) wrap(cause error) *oauthError {
	c := *e
	c.cause = cause
	return &c
}

var (
	errInvalidRequest = &oauthError{code: "invalid_request", status: http.StatusBadRequest,
		description: "The request is missing a required parameter, includes an invalid parameter value, includes a parameter more than once, or is otherwise malformed."}
	errInvalidClient = &oauthError{code: "invalid_client", status: http.StatusUnauthorized,
		description: "Client authentication failed (e.g., unknown client, no client authentication included, or unsupported authentication method)."}
	errInvalidGrant = &oauthError{code: "invalid_grant", status: http.StatusBadRequest,
		description: "The provided authorization grant (e.g., authorization code, resource owner credentials) or refresh token is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client."}
	errUnauthorizedClient = &oauthError{code: "unauthorized_client", status: http.StatusBadRequest,
		description: "The client is not authorized to request a token using this method."}
	errUnsupportedGrantType = &oauthError{code: "unsupported_grant_type", status: http.StatusBadRequest,
		description: "The authorization grant type is not supported by the authorization server."}
	errInvalidScope = &oauthError{code: "invalid_scope", status: http.StatusBadRequest,
		description: "The requested scope is invalid, unknown, or malformed."}
	errAccessDenied = &oauthError{code: "access_denied", status: http.StatusForbidden,
		description: "The resource owner or authorization server denied the request."}
	errUnsupportedResponseType = &oauthError{code: "unsupported_response_type", status: http.StatusBadRequest,
		description: "The authorization server does not support obtaining a token using this method."}
	errUnsupportedResponseMode = &oauthError{code: "unsupported_response_mode", status: http.StatusBadRequest,
		description: "The authorization server does not support obtaining a response using this response mode."}
	errInvalidState = &oauthError{code: "invalid_state", status: http.StatusBadRequest,
		description: "The state is missing or does not have enough characters and is therefore considered too weak."}
	errServerError = &oauthError{code: "server_error", status: http.StatusInternalServerError,
		description: "The authorization server encountered an unexpected condition that prevented it from fulfilling the request."}
	errTemporarilyUnavailable = &oauthError{code: "temporarily_unavailable", status: http.StatusServiceUnavailable,
		description: "The authorization server is currently unable to handle the request due to a temporary overloading or maintenance of the server."}
)

// asOAuthError is err as the protocol answers it: a failure that is not
// the request's fault is a server_error, whose detail is logged, never
// sent.
func asOAuthError(err error) *oauthError {
	var e *oauthError
	if errors.As(err, &e) {
		return e
	}
	return errServerError.wrap(err)
}

// writeError answers a token or registration request with an error, as
// JSON (RFC 6749 §5.2).
func writeError(w http.ResponseWriter, err error) {
	e := asOAuthError(err)
	writeProtocolJSON(w, e.status, map[string]string{"error": e.code, "error_description": e.text()})
}

// writeProtocolJSON writes an answer of the token and revocation
// endpoints, which no cache may keep (RFC 6749 §5.1).
func writeProtocolJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json;charset=UTF-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// logProtocolError logs a refused request as what it is: a server's
// failure in full, a client's mistake in a line.
func (s *Server) logProtocolError(endpoint string, err error) {
	e := asOAuthError(err)
	if e.status >= 500 {
		s.log.Error("oauth "+endpoint, "err", e.cause, "error", e.code)
		return
	}
	s.log.Info("oauth "+endpoint+" refused", "error", e.code, "hint", e.hint)
}
