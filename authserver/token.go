package authserver

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/signin"
)

// token serves the token endpoint (RFC 6749 §3.2): an authorization code,
// or a refresh token, for an access token and a new refresh token.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	res, err := s.exchange(r)
	if err != nil {
		s.logProtocolError("token", err)
		writeError(w, err)
		return
	}
	writeProtocolJSON(w, http.StatusOK, res)
}

func (s *Server) exchange(r *http.Request) (map[string]any, error) {
	ctx := r.Context()
	form, err := postForm(r)
	if err != nil {
		return nil, err
	}
	grant := form.Get("grant_type")
	switch grant {
	case "authorization_code", "refresh_token":
	case "":
		return nil, errInvalidRequest.withHint("Request parameter 'grant_type' is missing.")
	default:
		return nil, errUnsupportedGrantType.withHint("This server supports authorization_code and refresh_token.")
	}
	oc, err := s.authenticate(ctx, r, form)
	if err != nil {
		return nil, err
	}
	if !allowsGrant(oc, grant) {
		return nil, errUnauthorizedClient.withHint("The OAuth 2.0 Client is not allowed to use authorization grant '%s'.", grant)
	}
	if err := s.checkResource(form); err != nil {
		return nil, err
	}
	if grant == "authorization_code" {
		return s.redeemCode(ctx, oc, form)
	}
	return s.refresh(ctx, oc, form)
}

// postForm reads the form of a token or revocation request: a POST whose
// body is form-encoded (RFC 6749 §3.2), each of its parameters at most
// once; the query does not count.
func postForm(r *http.Request) (url.Values, error) {
	if r.Method != http.MethodPost {
		return nil, errInvalidRequest.withHint("HTTP method is '%s', expected 'POST'.", r.Method)
	}
	if err := r.ParseForm(); err != nil {
		return nil, errInvalidRequest.withHint("Unable to parse HTTP body, make sure to send a properly formatted form request body.").wrap(err)
	}
	if len(r.PostForm) == 0 {
		return nil, errInvalidRequest.withHint("The POST body can not be empty.")
	}
	if err := sentOnce(r.PostForm, tokenParameters); err != nil {
		return nil, err
	}
	return r.PostForm, nil
}

// authenticate finds the client of a token or revocation request, by HTTP
// Basic (its parts form-encoded, RFC 6749 §2.3.1) or by client_id in the
// form. A public client proves nothing more; a confidential one must send
// its secret, in the header or the form (client_secret_post).
func (s *Server) authenticate(ctx context.Context, r *http.Request, form url.Values) (*signin.OAuthClient, error) {
	if form.Get("client_assertion_type") != "" {
		return nil, errInvalidClient.withHint("Client assertions (private_key_jwt) are not supported.")
	}
	id, secret := form.Get("client_id"), form.Get("client_secret")
	if user, pass, ok := r.BasicAuth(); ok {
		var err1, err2 error
		id, err1 = url.QueryUnescape(user)
		secret, err2 = url.QueryUnescape(pass)
		if err := errors.Join(err1, err2); err != nil {
			return nil, errInvalidRequest.withHint("The client credentials in the HTTP authorization header could not be decoded from 'application/x-www-form-urlencoded'.").wrap(err)
		}
	}
	if id == "" {
		return nil, errInvalidRequest.withHint("Client credentials missing or malformed in both HTTP Authorization header and HTTP POST body.")
	}
	oc, err := s.clients.lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	if len(oc.SecretHash) == 0 {
		return oc, nil
	}
	// Secrets are random and long: SHA-256 is enough, and a slow hash
	// would add nothing.
	h := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(oc.SecretHash, h[:]) != 1 {
		return nil, errInvalidClient.withHint("The client secret does not match.")
	}
	return oc, nil
}

// allowsGrant reports whether a client may use a grant type: those it
// registered, or both when it named none.
func allowsGrant(oc *signin.OAuthClient, grant string) bool {
	return len(oc.Metadata.GrantTypes) == 0 || slices.Contains(oc.Metadata.GrantTypes, grant)
}

// redeemCode exchanges an authorization code. A code works once: used
// again, it revokes what its first use issued (RFC 6749 §4.1.2); a wrong
// PKCE verifier spends it too.
func (s *Server) redeemCode(ctx context.Context, oc *signin.OAuthClient, form url.Values) (map[string]any, error) {
	sig := secretSignature(form.Get("code"))
	req, row, err := s.load(ctx, "code", sig)
	switch {
	case vitrine.TypeOf(err) == vitrine.NotFoundError:
		return nil, errInvalidGrant.withHint("The authorization code is not valid.")
	case err != nil:
		return nil, err
	case !row.Active:
		if err := s.accounts.OAuthStore().RevokeOAuthRequest(ctx, row.RequestID, s.now()); err != nil {
			return nil, err
		}
		return nil, errInvalidGrant.withHint("The authorization code has already been used.")
	case !s.now().Before(row.ExpiresAt):
		return nil, errInvalidGrant.withHint("The authorization code expired.")
	case req.ClientID != oc.ID:
		return nil, errInvalidGrant.withHint("The OAuth 2.0 Client ID from this request does not match the one from the authorize request.")
	case req.Form.Get("redirect_uri") != "" && req.Form.Get("redirect_uri") != form.Get("redirect_uri"):
		return nil, errInvalidGrant.withHint(`The "redirect_uri" from this request does not match the one from the authorize request.`)
	}
	if err := s.spend(ctx, "code", sig); err == errSpent {
		return nil, errInvalidGrant.withHint("The authorization code has already been used.")
	} else if err != nil {
		return nil, err
	}
	if err := checkVerifier(form.Get("code_verifier"), req.Form.Get("code_challenge")); err != nil {
		return nil, err
	}
	req.Form = nil
	return s.issueTokens(ctx, oc, req)
}

// verifierChars are those of a PKCE code verifier (RFC 7636 §4.1).
var verifierChars = regexp.MustCompile(`^[A-Za-z0-9._~-]*$`)

// checkVerifier checks a PKCE code verifier against the S256 challenge
// of the authorization request (RFC 7636 §4.6).
func checkVerifier(verifier, challenge string) error {
	switch {
	case len(verifier) < 43:
		return errInvalidGrant.withHint("The PKCE code verifier must be at least 43 characters.")
	case len(verifier) > 128:
		return errInvalidGrant.withHint("The PKCE code verifier can not be longer than 128 characters.")
	case !verifierChars.MatchString(verifier):
		return errInvalidGrant.withHint("The PKCE code verifier must only contain [a-Z], [0-9], '-', '.', '_', '~'.")
	case challenge == "":
		return errInvalidGrant.withHint("The PKCE code verifier was provided but the code challenge was absent from the authorization request.")
	}
	h := sha256.Sum256([]byte(verifier))
	if subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(h[:])), []byte(challenge)) != 1 {
		return errInvalidGrant.withHint("The PKCE code challenge did not match the code verifier.")
	}
	return nil
}

// refresh exchanges a refresh token for new tokens of its family. Each
// works once and is replaced; one used again (or of a revoked grant, whose
// refresh tokens are spent) revokes its whole family: whoever holds a
// stolen one, or the client it was stolen from, is left with nothing
// (RFC 9700 §4.14.2).
func (s *Server) refresh(ctx context.Context, oc *signin.OAuthClient, form url.Values) (map[string]any, error) {
	sig := secretSignature(form.Get("refresh_token"))
	req, row, err := s.load(ctx, "refresh", sig)
	switch {
	case vitrine.TypeOf(err) == vitrine.NotFoundError:
		return nil, errInvalidGrant.withHint("The refresh token is malformed or not valid.")
	case err != nil:
		return nil, err
	case !row.Active:
		if err := s.accounts.OAuthStore().RevokeOAuthRequest(ctx, row.RequestID, s.now()); err != nil {
			return nil, err
		}
		return nil, errInvalidGrant.withHint("The refresh token was already used.")
	case !s.now().Before(row.ExpiresAt):
		return nil, errInvalidGrant.withHint("The refresh token expired.")
	case req.ClientID != oc.ID:
		return nil, errInvalidGrant.withHint("The OAuth 2.0 Client ID from this request does not match the ID during the initial token issuance.")
	}
	for _, sc := range req.GrantedScope {
		if !slices.Contains(vitrine.AllScopes(), sc) {
			return nil, errInvalidScope.withHint("The OAuth 2.0 Client is not allowed to request scope '%s'.", sc)
		}
	}
	if err := s.spend(ctx, "refresh", sig); err == errSpent {
		return nil, errInvalidRequest.withHint("Failed to refresh token because of multiple concurrent requests using the same token. Please retry the request.")
	} else if err != nil {
		return nil, err
	}
	return s.issueTokens(ctx, oc, req)
}

// issueTokens issues an access token of the family, and a refresh token
// when the client may refresh. The access token is a Vitrine token of the
// user (vtr_…), tied to the grant and the family, so that Vitrine checks
// it on the one path every token takes and revoking either ends it.
func (s *Server) issueTokens(ctx context.Context, oc *signin.OAuthClient, req *storedRequest) (map[string]any, error) {
	now := s.now()
	exp := now.Add(accessLifespan).Round(time.Second)
	secret := vitrine.NewTokenSecret()
	prefix, _ := vitrine.TokenLookupPrefix(secret)
	t := &vitrine.Token{ID: vitrine.NewID(), UserID: req.Session.UserID, Name: tokenName(req.Session.ClientTag), Prefix: prefix,
		Hash: vitrine.HashToken(secret), ReadOnly: !slices.Contains(req.GrantedScope, ScopeWrite),
		Toolsets: vitrine.ToolsetsOfScopes(req.GrantedScope), OAuth: true, ExpiresAt: &exp, CreatedAt: now}
	if err := s.accounts.OAuthStore().CreateGrantToken(ctx, t, req.Session.GrantID, req.ID); err != nil {
		return nil, err
	}
	res := map[string]any{"access_token": secret, "token_type": "bearer", "expires_in": int64(exp.Sub(now) / time.Second),
		"scope": strings.Join(req.GrantedScope, " ")}
	if allowsGrant(oc, "refresh_token") {
		refresh := randomSecret(refreshPrefix)
		if err := s.save(ctx, "refresh", secretSignature(refresh), req, now.Add(refreshLifespan).Round(time.Second)); err != nil {
			return nil, err
		}
		res["refresh_token"] = refresh
	}
	return res, nil
}

func tokenName(client string) string {
	if client == "" {
		client = "OAuth app"
	}
	if len(client) > 80 {
		client = client[:80]
	}
	return client + " (connected app)"
}
