package authserver

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/vitrine/vitrine"
	"golang.org/x/oauth2"
)

// Upstream is a company's OpenID Connect provider that people may sign
// in with (vitrine serve --login-oidc-issuer …). A person is matched to
// the Vitrine user with their verified email.
type Upstream struct {
	Issuer, ClientID, ClientSecret string
}

type upstream struct {
	verifier *oidc.IDTokenVerifier
	config   oauth2.Config
}

func newUpstream(ctx context.Context, u Upstream, issuer string) (*upstream, error) {
	if u.Issuer == "" || u.ClientID == "" {
		return nil, errors.New("sign-in with OpenID Connect needs --login-oidc-issuer and --login-oidc-client-id")
	}
	p, err := oidc.NewProvider(ctx, u.Issuer)
	if err != nil {
		return nil, fmt.Errorf("the sign-in provider %s: %w", u.Issuer, err)
	}
	return &upstream{
		verifier: p.Verifier(&oidc.Config{ClientID: u.ClientID}),
		config: oauth2.Config{ClientID: u.ClientID, ClientSecret: u.ClientSecret, Endpoint: p.Endpoint(),
			RedirectURL: issuer + "/login/sso/callback", Scopes: []string{oidc.ScopeOpenID, "email", "profile"}},
	}, nil
}

// ssoState is what the browser carries to the provider and back, signed.
type ssoState struct {
	State, Nonce, Verifier, Next string
	Expires                      time.Time
}

func (s *Server) signState(st ssoState) string {
	b, _ := json.Marshal(st)
	m := hmac.New(sha256.New, s.web.key)
	m.Write([]byte("sso\x00"))
	m.Write(b)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (s *Server) readState(v string) (ssoState, bool) {
	payload, sig, ok := strings.Cut(v, ".")
	b, err1 := base64.RawURLEncoding.DecodeString(payload)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err1 != nil || err2 != nil {
		return ssoState{}, false
	}
	m := hmac.New(sha256.New, s.web.key)
	m.Write([]byte("sso\x00"))
	m.Write(b)
	var st ssoState
	if !hmac.Equal(mac, m.Sum(nil)) || json.Unmarshal(b, &st) != nil || s.now().After(st.Expires) {
		return ssoState{}, false
	}
	return st, true
}

func (s *Server) ssoStart(p *pageCtx) error {
	if s.upstream == nil {
		http.NotFound(p.w, p.r)
		return nil
	}
	st := ssoState{State: randomSecret(""), Nonce: randomSecret(""), Verifier: oauth2.GenerateVerifier(),
		Next: safeNext(p.r.URL.Query().Get("next")), Expires: s.now().Add(10 * time.Minute)}
	s.web.setCookie(p.w, "vitrine_sso", s.signState(st), 10*time.Minute)
	opts := []oauth2.AuthCodeOption{oidc.Nonce(st.Nonce), oauth2.S256ChallengeOption(st.Verifier)}
	if hint := p.r.URL.Query().Get("login_hint"); hint != "" {
		opts = append(opts, oauth2.SetAuthURLParam("login_hint", hint)) // the provider may fill in who signs in
	}
	return redirect(p, s.upstream.config.AuthCodeURL(st.State, opts...))
}

func (s *Server) ssoCallback(p *pageCtx) error {
	if s.upstream == nil {
		http.NotFound(p.w, p.r)
		return nil
	}
	fail := func(reason string) error {
		s.log.Info("sign-in with the company's provider refused", "reason", reason)
		return s.message(p, http.StatusUnauthorized, p.lang.t("error_title"), p.lang.t("sso_failed"))
	}
	c, err := p.r.Cookie(s.web.cookieName("vitrine_sso"))
	if err != nil {
		return fail("no state cookie")
	}
	s.web.clearCookie(p.w, "vitrine_sso")
	st, ok := s.readState(c.Value)
	q := p.r.URL.Query()
	if !ok || !hmac.Equal([]byte(q.Get("state")), []byte(st.State)) {
		return fail("the state does not match")
	}
	if e := q.Get("error"); e != "" {
		return fail("the provider answered " + e)
	}
	ctx := p.r.Context()
	tok, err := s.upstream.config.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(st.Verifier))
	if err != nil {
		return fail("code exchange: " + err.Error())
	}
	raw, _ := tok.Extra("id_token").(string)
	idt, err := s.upstream.verifier.Verify(ctx, raw)
	if err != nil {
		return fail("ID token: " + err.Error())
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified any    `json:"email_verified"`
	}
	if err := idt.Claims(&claims); err != nil || idt.Nonce != st.Nonce {
		return fail("claims or nonce")
	}
	if v := fmt.Sprint(claims.EmailVerified); v != "true" || claims.Email == "" {
		return fail("no verified email")
	}
	u, err := s.accounts.Operator().User(ctx, "email", claims.Email)
	if vitrine.TypeOf(err) == vitrine.NotFoundError {
		return fail("no Vitrine user has the email")
	}
	if err != nil {
		return err
	}
	if u.Disabled {
		return fail("the user is disabled")
	}
	if err := s.startSession(p, u); err != nil {
		return err
	}
	s.log.Info("signed in with the company's provider", "user_id", u.ID)
	return redirect(p, st.Next)
}
