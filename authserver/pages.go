package authserver

import (
	"bytes"
	"cmp"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service/accounts"
	"github.com/vitrine/vitrine/signin"
)

//go:embed templates/pages.html templates/vitrine.css
var assets embed.FS

// pages are parsed at their first use rather than at the process's start,
// which vitrine stdio (no pages) pays at every conversation.
var pages = sync.OnceValue(func() *template.Template {
	return template.Must(template.ParseFS(assets, "templates/pages.html"))
})

func serveCSS(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	http.ServeFileFS(w, r, assets, "templates/vitrine.css")
}

// render writes a page (data holds its Title) with the page's status
// (p.status), after every page's headers (setPageHeaders), its
// form-action widened to p.formAction.
func (s *Server) render(p *pageCtx, name string, data map[string]any) error {
	data["L"], data["User"], data["CSRF"] = p.lang, p.user, s.web.csrf(p)
	var buf bytes.Buffer
	if err := pages().ExecuteTemplate(&buf, name, data); err != nil {
		return err
	}
	setPageHeaders(p.w.Header(), p.formAction)
	p.w.Header().Set("Content-Type", "text/html; charset=utf-8")
	p.w.WriteHeader(cmp.Or(p.status, http.StatusOK))
	_, err := p.w.Write(buf.Bytes())
	return err
}

func (s *Server) message(p *pageCtx, status int, title, text string) error {
	p.status = status
	return s.render(p, "message", map[string]any{"Title": title, "Text": text})
}

// authorize shows the consent page of an authorization request, after
// sign-in. A request that cannot be used is answered with a page here,
// never a redirect: before the person has acted, redirecting to a URI any
// client may register would make this server an open redirector (RFC
// 9700 §4.11.2).
func (s *Server) authorize(p *pageCtx) error {
	ar, err := s.parseAuthorize(p.r.Context(), p.r.URL.RawQuery)
	if err != nil {
		return s.requestError(p, err)
	}
	if p.user == nil {
		return redirect(p, "/login?next="+url.QueryEscape(p.r.URL.RequestURI()))
	}
	return s.consentPage(p, ar, p.r.URL.RawQuery)
}

// clientView is what the consent and account pages say of a client.
type clientView struct {
	Name, Host string
	// Verified: the host of a metadata document is where it was fetched
	// from; a registered client's name is only its own claim.
	Verified bool
}

func describe(oc *signin.OAuthClient) clientView {
	v := clientView{Name: oc.Metadata.ClientName}
	if oc.Kind == "metadata" {
		u, _ := url.Parse(oc.ID)
		v.Host, v.Verified = displayHost(u.Host), true
		if v.Name == "" {
			v.Name = u.Host
		}
	}
	if v.Name == "" {
		v.Name = oc.ID
	}
	return v
}

func (s *Server) consentPage(p *pageCtx, ar *authRequest, query string) error {
	cv := describe(ar.client)
	redirectURI := ar.redirectURI
	target := redirectURI.Scheme + ":"
	host := redirectURI.Scheme + ":"
	if redirectURI.Host != "" {
		// A plain host name or address (checkRedirectURI): nothing in it
		// can change the policy it goes into.
		target = redirectURI.Scheme + "://" + redirectURI.Host
		host = displayHost(redirectURI.Host)
	}
	// Chromium applies form-action to the redirect that answers the
	// form: the client's redirect URI must be allowed too.
	p.formAction = []string{target}
	companies, err := s.accounts.Companies(p.r.Context(), p.user)
	if err != nil {
		return err
	}
	return s.render(p, "consent", map[string]any{"Title": p.lang.t("authorize_title"), "ClientName": cv.Name, "ClientHost": cv.Host,
		"Verified": cv.Verified, "RedirectHost": host, "Query": query, "OfferWrite": offersWrite(ar.scopes),
		"Toolsets": toolsetChoices(p.lang, vitrine.ToolsetsOfScopes(ar.scopes)), "Companies": companies})
}

// toolsetChoice is a toolset as a page offers it, ticked or not.
type toolsetChoice struct {
	Name, About, Icon string
	Checked           bool
}

// toolsetChoices offers every toolset, the checked ones ticked: on the
// consent page those the client asks for (the default ones when it names
// none), for a new token the default ones.
func toolsetChoices(l *lang, checked []string) []toolsetChoice {
	var out []toolsetChoice
	for _, ts := range vitrine.Toolsets {
		out = append(out, toolsetChoice{Name: ts.Name, About: l.about(ts), Icon: ts.Icon, Checked: slices.Contains(checked, ts.Name)})
	}
	return out
}

// chosenToolsets reads the toolsets ticked in a form; none ticked is the
// default ones.
func chosenToolsets(p *pageCtx) ([]string, error) {
	toolsets, err := vitrine.ParseToolsets("toolset", p.r.PostForm["toolset"])
	if err == nil && len(toolsets) == 0 {
		toolsets = vitrine.DefaultToolsets()
	}
	return toolsets, err
}

// offersWrite: a request that names no scope may be given either.
func offersWrite(requested []string) bool {
	return len(requested) == 0 || slices.Contains(requested, ScopeWrite)
}

// consent takes the person's answer to the consent page.
func (s *Server) consent(p *pageCtx) error {
	if err := s.checkForm(p); err != nil {
		return s.refuseForm(p)
	}
	if p.user == nil {
		return redirect(p, "/login")
	}
	ctx := p.r.Context()
	// The request as the consent page showed it, checked again.
	ar, err := s.parseAuthorize(ctx, p.r.PostForm.Get("authz"))
	if err != nil {
		return s.requestError(p, err)
	}
	if p.r.PostForm.Get("decision") != "approve" {
		s.log.Info("authorization denied", "user_id", p.user.ID, "client_id", ar.client.ID)
		return s.redirectError(p, ar, errAccessDenied.withHint("The user denied the request."))
	}
	toolsets, err := chosenToolsets(p)
	if err != nil {
		return s.message(p, http.StatusBadRequest, p.lang.t("error_title"), validationText(err))
	}
	write := p.r.PostForm.Get("scope") == "write" && offersWrite(ar.scopes)
	granted := vitrine.Scopes(!write, toolsets)
	now := s.now()
	g := &signin.OAuthGrant{ID: vitrine.NewID(), UserID: p.user.ID, ClientID: ar.client.ID, Scope: strings.Join(granted, " "),
		CreatedAt: now, UpdatedAt: now}
	if err := s.accounts.OAuthStore().SaveOAuthGrant(ctx, g); err != nil {
		return err
	}
	s.log.Info("authorization granted", "user_id", p.user.ID, "client_id", g.ClientID, "grant_id", g.ID, "scope", g.Scope)
	return s.issueCode(p, ar, g, granted, describe(ar.client).Name)
}

// requestError answers an authorization request that cannot be used with
// a page that says why, on this server.
func (s *Server) requestError(p *pageCtx, err error) error {
	s.logProtocolError("authorize", err)
	e := asOAuthError(err)
	status := e.status
	if status < 400 || status == http.StatusUnauthorized {
		status = http.StatusBadRequest // a page asks for no credentials
	}
	return s.message(p, status, p.lang.t("request_invalid_title"), e.code+": "+e.text())
}

// redirectError sends the person back to the client with an error, once
// they have answered: at the client's registered redirect URI, with the
// request's state and this server's issuer (RFC 9207), which tells a
// client talking to several servers which one answered.
func (s *Server) redirectError(p *pageCtx, ar *authRequest, err error) error {
	e := asOAuthError(err)
	to := *ar.redirectURI
	q := to.Query()
	q.Set("error", e.code)
	q.Set("error_description", e.text())
	if ar.state != "" {
		q.Set("state", ar.state)
	}
	q.Set("iss", s.opts.Issuer)
	to.RawQuery, to.Fragment = q.Encode(), ""
	return redirect(p, to.String())
}

func (s *Server) loginPage(p *pageCtx) error {
	next := safeNext(p.r.URL.Query().Get("next"))
	if p.user != nil {
		return redirect(p, next)
	}
	return s.render(p, "login", map[string]any{"Title": p.lang.t("sign_in_to"), "Next": next, "SSO": s.upstream != nil})
}

func (s *Server) login(p *pageCtx) error {
	if err := s.checkForm(p); err != nil {
		return s.refuseForm(p)
	}
	next, email := safeNext(p.r.PostForm.Get("next")), strings.TrimSpace(p.r.PostForm.Get("email"))
	again := func(status int, msg string) error {
		p.status = status
		return s.render(p, "login", map[string]any{"Title": p.lang.t("sign_in_to"), "Next": next, "Email": email,
			"Error": msg, "SSO": s.upstream != nil})
	}
	if !s.allowed(s.web.signIn, p.r) {
		return again(http.StatusTooManyRequests, p.lang.t("too_many"))
	}
	u, err := s.accounts.SignIn(p.r.Context(), email, p.r.PostForm.Get("password"))
	var se *accounts.SignInError
	switch {
	case errors.As(err, &se) && se.RetryAfter > 0:
		p.w.Header().Set("Retry-After", fmt.Sprint(int(se.RetryAfter.Seconds()+0.999)))
		return again(http.StatusTooManyRequests, p.lang.t("locked"))
	case errors.As(err, &se):
		s.log.Info("sign-in refused", "remote", p.r.RemoteAddr)
		return again(http.StatusUnauthorized, p.lang.t("wrong_credentials"))
	case err != nil:
		return err
	}
	if err := s.startSession(p, u); err != nil {
		return err
	}
	s.log.Info("signed in", "user_id", u.ID)
	return redirect(p, next)
}

func (s *Server) logout(p *pageCtx) error {
	if err := s.checkForm(p); err != nil {
		return s.refuseForm(p)
	}
	if p.session != "" {
		if err := s.accounts.OAuthStore().DeleteWebSession(p.r.Context(), p.session); err != nil {
			return err
		}
	}
	s.web.clearCookie(p.w, "vitrine_session")
	return redirect(p, "/login")
}

// signOutEverywhere ends every session of the person, this browser's
// included.
func (s *Server) signOutEverywhere(p *pageCtx) error {
	if err := s.checkForm(p); err != nil {
		return s.refuseForm(p)
	}
	if p.user == nil {
		return redirect(p, "/login?next=/account")
	}
	if err := s.accounts.OAuthStore().DeleteWebSessionsOfUser(p.r.Context(), p.user.ID); err != nil {
		return err
	}
	s.log.Info("signed out everywhere", "user_id", p.user.ID)
	s.web.clearCookie(p.w, "vitrine_session")
	return redirect(p, "/login")
}

// deleteAccount erases the signed-in person, once they typed their own
// email: refused, with nothing deleted, while they are a company's only
// owner.
func (s *Server) deleteAccount(p *pageCtx) error {
	if err := s.checkForm(p); err != nil {
		return s.refuseForm(p)
	}
	if p.user == nil {
		return redirect(p, "/login?next=/account")
	}
	_, typed, err := vitrine.NormalizeEmail("email", p.r.PostForm.Get("email"))
	_, own, _ := vitrine.NormalizeEmail("email", p.user.Email)
	if err != nil || typed != own {
		return s.message(p, http.StatusBadRequest, p.lang.t("error_title"), p.lang.t("delete_account_differs"))
	}
	err = s.accounts.DeleteAccount(p.r.Context(), p.user)
	if sole := (*vitrine.SoleOwnerError)(nil); errors.As(err, &sole) {
		return s.message(p, http.StatusConflict, p.lang.t("account_kept_title"), fmt.Sprintf(p.lang.t("only_owner"), strings.Join(sole.Slugs, ", ")))
	}
	if err != nil {
		return err
	}
	s.web.clearCookie(p.w, "vitrine_session")
	p.user = nil // signed out: the page's header shows no one
	return s.message(p, http.StatusOK, p.lang.t("account_deleted_title"), p.lang.t("account_deleted_text"))
}

// appView and tokenView are rows of the account page.
type appView struct {
	ID, Name, Scope, Toolsets, Approved, LastUsed string
	Verified                                      bool
}

type tokenView struct {
	ID, Name, Prefix, Toolsets, Expires, LastUsed, State string
	ReadOnly                                             bool
}

func (s *Server) account(p *pageCtx) error {
	return s.accountPage(p, "")
}

func (s *Server) accountPage(p *pageCtx, newToken string) error {
	if p.user == nil {
		return redirect(p, "/login?next=/account")
	}
	ctx := p.r.Context()
	grants, err := s.accounts.ConnectedApps(ctx, p.user)
	if err != nil {
		return err
	}
	tokens, err := s.accounts.PersonalTokens(ctx, p.user)
	if err != nil {
		return err
	}
	day := func(t *time.Time) string {
		if t == nil {
			return p.lang.t("never")
		}
		return t.Format("2006-01-02")
	}
	var apps []appView
	for _, g := range grants {
		name, verified := g.ClientID, false
		if g.Client != nil {
			name = g.Client.Metadata.ClientName
			if g.Client.Kind == "metadata" {
				u, _ := url.Parse(g.Client.ID)
				verified = true
				if name == "" {
					name = displayHost(u.Host)
				} else {
					name += " (" + displayHost(u.Host) + ")"
				}
			}
		}
		if name == "" {
			name = g.ClientID
		}
		scope := p.lang.t("scope_" + ScopeRead)
		if slices.Contains(strings.Fields(g.Scope), ScopeWrite) {
			scope = p.lang.t("scope_" + ScopeWrite)
		}
		created := g.CreatedAt
		apps = append(apps, appView{ID: g.ID, Name: name, Scope: scope, Toolsets: strings.Join(vitrine.ToolsetsOfScopes(strings.Fields(g.Scope)), ", "),
			Approved: day(&created), LastUsed: day(g.LastUsedAt), Verified: verified})
	}
	var views []tokenView
	now := s.now()
	for _, t := range tokens {
		v := tokenView{ID: t.ID, Name: t.Name, Prefix: t.Prefix, Toolsets: strings.Join(t.Toolsets, ", "), Expires: day(t.ExpiresAt),
			LastUsed: day(t.LastUsedAt), ReadOnly: t.ReadOnly}
		switch {
		case t.RevokedAt != nil:
			v.State = p.lang.t("revoked")
		case !t.Usable(now):
			v.State = p.lang.t("expired")
		}
		views = append(views, v)
	}
	return s.render(p, "account", map[string]any{"Title": p.lang.t("account_title"), "Apps": apps, "Tokens": views, "NewToken": newToken,
		"Toolsets": toolsetChoices(p.lang, vitrine.DefaultToolsets())})
}

func (s *Server) revokeApp(p *pageCtx) error {
	if err := s.checkForm(p); err != nil {
		return s.refuseForm(p)
	}
	if p.user == nil {
		return redirect(p, "/login?next=/account")
	}
	err := s.accounts.DisconnectApp(p.r.Context(), p.user, p.r.PathValue("id"))
	if err != nil && vitrine.TypeOf(err) != vitrine.NotFoundError {
		return err
	}
	s.log.Info("app disconnected", "user_id", p.user.ID, "grant_id", p.r.PathValue("id"))
	return redirect(p, "/account")
}

func (s *Server) createToken(p *pageCtx) error {
	if err := s.checkForm(p); err != nil {
		return s.refuseForm(p)
	}
	if p.user == nil {
		return redirect(p, "/login?next=/account")
	}
	var expires *time.Time
	switch p.r.PostForm.Get("expires") {
	case "30", "":
		t := s.now().Add(30 * 24 * time.Hour)
		expires = &t
	case "90":
		t := s.now().Add(90 * 24 * time.Hour)
		expires = &t
	}
	toolsets, err := chosenToolsets(p)
	if err != nil {
		return s.message(p, http.StatusBadRequest, p.lang.t("error_title"), validationText(err))
	}
	_, secret, err := s.accounts.CreatePersonalToken(p.r.Context(), p.user, accounts.NewToken{Name: p.r.PostForm.Get("name"),
		ReadOnly: p.r.PostForm.Get("read_only") != "", Toolsets: toolsets, ExpiresAt: expires})
	if t := vitrine.TypeOf(err); t == vitrine.ValidationError || t == vitrine.ConflictError {
		return s.message(p, http.StatusBadRequest, p.lang.t("error_title"), validationText(err))
	}
	if err != nil {
		return err
	}
	return s.accountPage(p, secret)
}

func (s *Server) revokeToken(p *pageCtx) error {
	if err := s.checkForm(p); err != nil {
		return s.refuseForm(p)
	}
	if p.user == nil {
		return redirect(p, "/login?next=/account")
	}
	err := s.accounts.RevokePersonalToken(p.r.Context(), p.user, p.r.PathValue("id"))
	if err != nil && vitrine.TypeOf(err) != vitrine.NotFoundError {
		return err
	}
	return redirect(p, "/account")
}

// passwordPage is where an invitation link (vitrine user invite) leads.
func (s *Server) passwordPage(p *pageCtx) error {
	token := p.r.URL.Query().Get("token")
	u, err := s.accounts.PasswordLinkUser(p.r.Context(), token)
	if vitrine.TypeOf(err) == vitrine.NotFoundError {
		return s.message(p, http.StatusNotFound, p.lang.t("link_invalid_title"), p.lang.t("link_invalid_text"))
	}
	if err != nil {
		return err
	}
	return s.render(p, "password", map[string]any{"Title": p.lang.t("set_password_title"), "Token": token, "Email": u.Email})
}

func (s *Server) setPassword(p *pageCtx) error {
	if err := s.checkForm(p); err != nil {
		return s.refuseForm(p)
	}
	token := p.r.PostForm.Get("token")
	again := func(msg string) error {
		u, err := s.accounts.PasswordLinkUser(p.r.Context(), token)
		if err != nil {
			return s.message(p, http.StatusNotFound, p.lang.t("link_invalid_title"), p.lang.t("link_invalid_text"))
		}
		p.status = http.StatusBadRequest
		return s.render(p, "password", map[string]any{"Title": p.lang.t("set_password_title"), "Token": token, "Email": u.Email, "Error": msg})
	}
	if !s.allowed(s.web.signIn, p.r) {
		return again(p.lang.t("too_many"))
	}
	pw := p.r.PostForm.Get("password")
	if pw != p.r.PostForm.Get("password2") {
		return again(p.lang.t("passwords_differ"))
	}
	u, err := s.accounts.RedeemPasswordLink(p.r.Context(), token, pw)
	switch vitrine.TypeOf(err) {
	case vitrine.NotFoundError:
		return s.message(p, http.StatusNotFound, p.lang.t("link_invalid_title"), p.lang.t("link_invalid_text"))
	case vitrine.ValidationError:
		return again(validationText(err))
	}
	if err != nil {
		return err
	}
	if err := s.startSession(p, u); err != nil {
		return err
	}
	return redirect(p, "/account")
}

func validationText(err error) string {
	var e *vitrine.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}
