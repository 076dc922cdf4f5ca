package authserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/ory/fosite"
	"github.com/vitrine/vitrine"
)

// storage adapts the OAuth store to fosite: clients, authorization codes,
// PKCE requests, refresh tokens and access tokens. Access tokens are API
// tokens of the user (vitrine.Token), tied to their grant and token family,
// so that Vitrine checks them on the one path every token takes.
type storage struct {
	db      vitrine.OAuthStore
	clients *clients
	now     func() time.Time
}

// session is what an authorization carries from the consent to the
// tokens: whose it is, under which grant, and when each token expires.
type session struct {
	UserID    string                         `json:"user_id"`
	GrantID   string                         `json:"grant_id"`
	ClientTag string                         `json:"client_tag"` // the client's name, for the token's name
	ExpiresAt map[fosite.TokenType]time.Time `json:"expires_at"`
}

func (s *session) SetExpiresAt(key fosite.TokenType, exp time.Time) {
	if s.ExpiresAt == nil {
		s.ExpiresAt = map[fosite.TokenType]time.Time{}
	}
	s.ExpiresAt[key] = exp
}

func (s *session) GetExpiresAt(key fosite.TokenType) time.Time { return s.ExpiresAt[key] }
func (s *session) GetUsername() string                         { return s.UserID }
func (s *session) GetSubject() string                          { return s.UserID }

func (s *session) Clone() fosite.Session {
	c := *s
	c.ExpiresAt = make(map[fosite.TokenType]time.Time, len(s.ExpiresAt))
	for k, v := range s.ExpiresAt {
		c.ExpiresAt[k] = v
	}
	return &c
}

// storedRequest is an authorization request as it is kept.
type storedRequest struct {
	ID                string     `json:"id"`
	RequestedAt       time.Time  `json:"requested_at"`
	ClientID          string     `json:"client_id"`
	RequestedScope    []string   `json:"requested_scope"`
	GrantedScope      []string   `json:"granted_scope"`
	RequestedAudience []string   `json:"requested_audience"`
	GrantedAudience   []string   `json:"granted_audience"`
	Form              url.Values `json:"form"`
	Session           *session   `json:"session"`
}

// save stores a code, PKCE request or refresh token.
func (st *storage) save(ctx context.Context, kind, signature string, r fosite.Requester, exp time.Time) error {
	sess, ok := r.GetSession().(*session)
	if !ok || sess.GrantID == "" {
		return errors.New("authserver: a request without a grant")
	}
	form := url.Values{}
	for k, v := range r.GetRequestForm() {
		// Secrets presented at the token endpoint are not kept.
		if k != "code" && k != "refresh_token" && k != "client_secret" && k != "code_verifier" {
			form[k] = v
		}
	}
	data, err := json.Marshal(storedRequest{ID: r.GetID(), RequestedAt: r.GetRequestedAt(), ClientID: r.GetClient().GetID(),
		RequestedScope: r.GetRequestedScopes(), GrantedScope: r.GetGrantedScopes(), RequestedAudience: r.GetRequestedAudience(),
		GrantedAudience: r.GetGrantedAudience(), Form: form, Session: sess})
	if err != nil {
		return err
	}
	if exp.IsZero() {
		exp = st.now().Add(refreshLifespan)
	}
	return st.db.CreateOAuthSession(ctx, &vitrine.OAuthSession{Kind: kind, Signature: signature, RequestID: r.GetID(),
		GrantID: sess.GrantID, Request: data, Active: true, ExpiresAt: exp, CreatedAt: st.now()})
}

// load returns a stored code, PKCE request or refresh token as fosite
// knows it, and whether it is still active.
func (st *storage) load(ctx context.Context, kind, signature string) (fosite.Requester, bool, error) {
	s, err := st.db.OAuthSession(ctx, kind, signature)
	if vitrine.TypeOf(err) == vitrine.NotFoundError {
		return nil, false, fosite.ErrNotFound
	}
	if err != nil {
		return nil, false, err
	}
	var sr storedRequest
	if err := json.Unmarshal(s.Request, &sr); err != nil {
		return nil, false, fmt.Errorf("stored request %s: %w", kind, err)
	}
	client, err := st.GetClient(ctx, sr.ClientID)
	if err != nil {
		return nil, false, err
	}
	req := &fosite.Request{ID: sr.ID, RequestedAt: sr.RequestedAt, Client: client, RequestedScope: sr.RequestedScope,
		GrantedScope: sr.GrantedScope, RequestedAudience: sr.RequestedAudience, GrantedAudience: sr.GrantedAudience,
		Form: sr.Form, Session: sr.Session}
	if sr.Session == nil {
		req.Session = &session{}
	}
	return req, s.Active, nil
}

// GetClient implements fosite.ClientManager.
func (st *storage) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	return st.clients.get(ctx, id)
}

// ClientAssertionJWTValid and SetClientAssertionJWT are for private_key_jwt
// client authentication, which this server does not offer.
func (st *storage) ClientAssertionJWTValid(context.Context, string) error { return nil }
func (st *storage) SetClientAssertionJWT(context.Context, string, time.Time) error {
	return errors.New("authserver: client assertions are not supported")
}

func (st *storage) CreateAuthorizeCodeSession(ctx context.Context, code string, r fosite.Requester) error {
	return st.save(ctx, "code", code, r, r.GetSession().GetExpiresAt(fosite.AuthorizeCode))
}

func (st *storage) GetAuthorizeCodeSession(ctx context.Context, code string, _ fosite.Session) (fosite.Requester, error) {
	r, active, err := st.load(ctx, "code", code)
	if err != nil {
		return nil, err
	}
	if !active {
		// A code used twice: fosite revokes what the first use issued.
		return r, fosite.ErrInvalidatedAuthorizeCode
	}
	return r, nil
}

func (st *storage) InvalidateAuthorizeCodeSession(ctx context.Context, code string) error {
	return st.deactivate(ctx, "code", code)
}

func (st *storage) deactivate(ctx context.Context, kind, signature string) error {
	err := st.db.DeactivateOAuthSession(ctx, kind, signature)
	if vitrine.TypeOf(err) == vitrine.ConflictError {
		return fosite.ErrSerializationFailure // two uses at once: one wins
	}
	return err
}

func (st *storage) CreatePKCERequestSession(ctx context.Context, code string, r fosite.Requester) error {
	return st.save(ctx, "pkce", code, r, r.GetSession().GetExpiresAt(fosite.AuthorizeCode))
}

func (st *storage) GetPKCERequestSession(ctx context.Context, code string, _ fosite.Session) (fosite.Requester, error) {
	r, _, err := st.load(ctx, "pkce", code)
	return r, err
}

func (st *storage) DeletePKCERequestSession(ctx context.Context, code string) error {
	return st.db.DeleteOAuthSession(ctx, "pkce", code)
}

func (st *storage) CreateRefreshTokenSession(ctx context.Context, signature, _ string, r fosite.Requester) error {
	return st.save(ctx, "refresh", signature, r, r.GetSession().GetExpiresAt(fosite.RefreshToken))
}

func (st *storage) GetRefreshTokenSession(ctx context.Context, signature string, _ fosite.Session) (fosite.Requester, error) {
	r, active, err := st.load(ctx, "refresh", signature)
	if err != nil {
		return nil, err
	}
	if !active {
		// A refresh token used again (or of a revoked grant): fosite
		// revokes the whole token family.
		return r, fosite.ErrInactiveToken
	}
	return r, nil
}

// DeleteRefreshTokenSession ends a refresh token, already ended or not:
// on reuse, fosite ends the reused one before revoking its family.
func (st *storage) DeleteRefreshTokenSession(ctx context.Context, signature string) error {
	if err := st.db.DeactivateOAuthSession(ctx, "refresh", signature); vitrine.TypeOf(err) != vitrine.ConflictError {
		return err
	}
	return nil
}

func (st *storage) RotateRefreshToken(ctx context.Context, _ string, signature string) error {
	return st.deactivate(ctx, "refresh", signature)
}

func (st *storage) RevokeRefreshToken(ctx context.Context, requestID string) error {
	return st.db.RevokeOAuthRequest(ctx, requestID, st.now())
}

func (st *storage) RevokeAccessToken(ctx context.Context, requestID string) error {
	return st.db.RevokeOAuthRequest(ctx, requestID, st.now())
}

// CreateAccessTokenSession stores an access token as an API token of the
// user, under the grant.
func (st *storage) CreateAccessTokenSession(ctx context.Context, signature string, r fosite.Requester) error {
	prefix, hash, ok := splitAccessSignature(signature)
	sess, isSession := r.GetSession().(*session)
	if !ok || !isSession {
		return errors.New("authserver: a malformed access token")
	}
	exp := sess.GetExpiresAt(fosite.AccessToken)
	t := &vitrine.Token{ID: vitrine.NewID(), UserID: sess.UserID, Name: tokenName(sess.ClientTag), Prefix: prefix, Hash: hash,
		ReadOnly: !r.GetGrantedScopes().Has(ScopeWrite), Toolsets: vitrine.ToolsetsOfScopes(r.GetGrantedScopes()), OAuth: true,
		ExpiresAt: &exp, CreatedAt: st.now()}
	return st.db.CreateGrantToken(ctx, t, sess.GrantID, r.GetID())
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

// GetAccessTokenSession finds an access token by its signature, for its
// revocation (RFC 7009). The prefix finds it, and only the whole token
// names it: the prefix is public (whoami and token list show it), so a
// stored hash that differs from the presented one's, compared in constant
// time, is "not found".
func (st *storage) GetAccessTokenSession(ctx context.Context, signature string, _ fosite.Session) (fosite.Requester, error) {
	prefix, hash, ok := splitAccessSignature(signature)
	if !ok {
		return nil, fosite.ErrNotFound
	}
	t, grantID, requestID, err := st.db.GrantToken(ctx, prefix)
	if vitrine.TypeOf(err) == vitrine.NotFoundError {
		return nil, fosite.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare(t.Hash, hash) != 1 {
		return nil, fosite.ErrNotFound
	}
	g, err := st.db.OAuthGrant(ctx, grantID)
	if err != nil {
		return nil, err
	}
	client, err := st.GetClient(ctx, g.ClientID)
	if err != nil {
		return nil, err
	}
	sess := &session{UserID: t.UserID, GrantID: grantID}
	if t.ExpiresAt != nil {
		sess.SetExpiresAt(fosite.AccessToken, *t.ExpiresAt)
	}
	return &fosite.Request{ID: requestID, Client: client, Session: sess, Form: url.Values{}}, nil
}

func (st *storage) DeleteAccessTokenSession(ctx context.Context, signature string) error {
	r, err := st.GetAccessTokenSession(ctx, signature, nil)
	if err != nil {
		return err
	}
	return st.db.RevokeOAuthRequest(ctx, r.GetID(), st.now())
}

// The token strategy: access tokens are Vitrine tokens (vtr_…), whose
// signature is their lookup prefix and hash; refresh tokens and codes are
// random secrets whose signature is their SHA-256.
type strategy struct{}

func splitAccessSignature(sig string) (prefix string, hash []byte, ok bool) {
	prefix, h, found := strings.Cut(sig, ":")
	if !found {
		return "", nil, false
	}
	hash, err := hex.DecodeString(h)
	return prefix, hash, err == nil && len(hash) == sha256.Size
}

func (strategy) AccessTokenSignature(_ context.Context, token string) string {
	prefix, ok := vitrine.TokenLookupPrefix(token)
	if !ok {
		return ""
	}
	return prefix + ":" + hex.EncodeToString(vitrine.HashToken(token))
}

func (s strategy) GenerateAccessToken(ctx context.Context, _ fosite.Requester) (string, string, error) {
	secret := vitrine.NewTokenSecret()
	return secret, s.AccessTokenSignature(ctx, secret), nil
}

func (strategy) ValidateAccessToken(_ context.Context, r fosite.Requester, _ string) error {
	return notExpired(r, fosite.AccessToken)
}

// refreshPrefix marks Vitrine's refresh tokens for secret scanners.
const refreshPrefix = "vtrr_"

func randomSecret(prefix string) string {
	b := make([]byte, 32)
	rand.Read(b)
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

func secretSignature(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

func (strategy) RefreshTokenSignature(_ context.Context, token string) string {
	return secretSignature(token)
}

func (strategy) GenerateRefreshToken(context.Context, fosite.Requester) (string, string, error) {
	t := randomSecret(refreshPrefix)
	return t, secretSignature(t), nil
}

func (strategy) ValidateRefreshToken(_ context.Context, r fosite.Requester, _ string) error {
	return notExpired(r, fosite.RefreshToken)
}

func (strategy) AuthorizeCodeSignature(_ context.Context, token string) string {
	return secretSignature(token)
}

func (strategy) GenerateAuthorizeCode(context.Context, fosite.Requester) (string, string, error) {
	t := randomSecret("")
	return t, secretSignature(t), nil
}

func (strategy) ValidateAuthorizeCode(_ context.Context, r fosite.Requester, _ string) error {
	return notExpired(r, fosite.AuthorizeCode)
}

func notExpired(r fosite.Requester, kind fosite.TokenType) error {
	exp := r.GetSession().GetExpiresAt(kind)
	if !exp.IsZero() && time.Now().After(exp) {
		return fosite.ErrTokenExpired.WithHintf("The %s expired.", kind)
	}
	return nil
}
