package authserver

import (
	"context"
	"crypto/subtle"
	"net/http"

	"github.com/vitrine/vitrine"
)

// revoke serves token revocation (RFC 7009): an access or refresh token
// of the client ends its whole family. A token that is not one, or not
// the client's, is answered 200 all the same, as the RFC asks: the answer
// tells nobody whether a token exists.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	err := s.revocation(r)
	if err == nil {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Pragma", "no-cache")
		w.WriteHeader(http.StatusOK)
		return
	}
	s.logProtocolError("revoke", err)
	switch e := asOAuthError(err); {
	case e.code == errUnauthorizedClient.code:
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK) // another client's token: nothing revoked, nothing said
	case e.code == errInvalidRequest.code || e.code == errInvalidClient.code:
		// The code's meaning alone, as this endpoint has always answered.
		writeProtocolJSON(w, e.status, map[string]string{"error": e.code, "error_description": e.description})
	case e.status >= 500:
		writeError(w, errTemporarilyUnavailable)
	default:
		writeError(w, e)
	}
}

func (s *Server) revocation(r *http.Request) error {
	ctx := r.Context()
	form, err := postForm(r)
	if err != nil {
		return err
	}
	oc, err := s.authenticate(ctx, r, form)
	if err != nil {
		return err
	}
	family, clientID, err := s.findToken(ctx, form.Get("token"), form.Get("token_type_hint"))
	switch {
	case err != nil:
		return err
	case family == "":
		return nil
	case clientID != oc.ID:
		return errUnauthorizedClient
	}
	return s.accounts.OAuthStore().RevokeOAuthRequest(ctx, family, s.now())
}

// findToken returns the family and client of an active refresh token or
// an access token, looked for in the order the hint suggests; "" when the
// token is neither.
func (s *Server) findToken(ctx context.Context, token, hint string) (family, clientID string, err error) {
	find := []func(context.Context, string) (string, string, error){s.findRefreshToken, s.findAccessToken}
	if hint == "access_token" {
		find[0], find[1] = find[1], find[0]
	}
	for _, f := range find {
		if family, clientID, err = f(ctx, token); err != nil || family != "" {
			return family, clientID, err
		}
	}
	return "", "", nil
}

func (s *Server) findRefreshToken(ctx context.Context, token string) (string, string, error) {
	req, row, err := s.load(ctx, "refresh", secretSignature(token))
	switch {
	case vitrine.TypeOf(err) == vitrine.NotFoundError:
		return "", "", nil
	case err != nil:
		return "", "", err
	case !row.Active:
		return "", "", nil
	}
	return row.RequestID, req.ClientID, nil
}

// findAccessToken finds an access token by its prefix, and only the whole
// token names it: the prefix is public (whoami and token list show it), so
// a stored hash that differs from the presented one's, compared in
// constant time, is "not found".
func (s *Server) findAccessToken(ctx context.Context, token string) (string, string, error) {
	prefix, ok := vitrine.TokenLookupPrefix(token)
	if !ok {
		return "", "", nil
	}
	db := s.accounts.OAuthStore()
	t, grantID, family, err := db.GrantToken(ctx, prefix)
	switch {
	case vitrine.TypeOf(err) == vitrine.NotFoundError:
		return "", "", nil
	case err != nil:
		return "", "", err
	case subtle.ConstantTimeCompare(t.Hash, vitrine.HashToken(token)) != 1:
		return "", "", nil
	}
	g, err := db.OAuthGrant(ctx, grantID)
	if err != nil {
		return "", "", err
	}
	return family, g.ClientID, nil
}
