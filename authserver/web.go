package authserver

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/addrlimit"
	"github.com/vitrine/vitrine/service/accounts"
	"github.com/vitrine/vitrine/signin"
	"golang.org/x/time/rate"
)

// web is what the pages share: the signed-in browser's session, the CSRF
// key every instance agrees on, and the limits on sign-in attempts.
type web struct {
	accounts *accounts.Accounts
	key      []byte // signs CSRF tokens; kept in the database (server_keys)
	secure   bool   // cookies are Secure (off only on loopback http)
	signIn   *addrlimit.Table
	// register bounds client registrations, which anyone may make.
	register *addrlimit.Table
}

// limitTableSize is how many addresses each limit keeps (addrlimit);
// the tests make it smaller.
var limitTableSize = addrlimit.DefaultMax

func newWeb(ctx context.Context, acc *accounts.Accounts, secure bool) (*web, error) {
	fresh := make([]byte, 32)
	rand.Read(fresh)
	key, err := acc.OAuthStore().ServerKey(ctx, "csrf", fresh)
	if err != nil {
		return nil, err
	}
	// 10 sign-in attempts a minute from one address (then one every 6 s).
	// 20 client registrations from one address, then one every 3 minutes.
	return &web{accounts: acc, key: key, secure: secure, signIn: addrlimit.New(rate.Every(6*time.Second), 10, limitTableSize),
		register: addrlimit.New(rate.Every(3*time.Minute), 20, limitTableSize)}, nil
}

// The cookies: on https, __Host- names bind them to this host and path /.
func (wb *web) cookieName(base string) string {
	if wb.secure {
		return "__Host-" + base
	}
	return base
}

func (wb *web) setCookie(w http.ResponseWriter, name, value string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{Name: wb.cookieName(name), Value: value, Path: "/", MaxAge: int(maxAge.Seconds()),
		HttpOnly: true, Secure: wb.secure, SameSite: http.SameSiteLaxMode})
}

func (wb *web) clearCookie(w http.ResponseWriter, name string) {
	http.SetCookie(w, &http.Cookie{Name: wb.cookieName(name), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: wb.secure, SameSite: http.SameSiteLaxMode})
}

func hashHex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// pageCtx is one request to a page.
type pageCtx struct {
	w    http.ResponseWriter
	r    *http.Request
	lang *lang
	// user is the signed-in person, nil when nobody is; session is the
	// hash of their session cookie.
	user    *vitrine.User
	session string
	// binding ties CSRF tokens to this browser: the session, or before
	// sign-in a random cookie of its own.
	binding string
	// formAction widens the page's form-action policy (the consent page
	// redirects to its client).
	formAction []string
	// status is the page's HTTP status, 200 when unset: render writes it
	// after the page's headers, so that an error page carries them too.
	status int
}

// setPageHeaders sets the headers of every page: none may be framed,
// cached or sniffed, and its Content-Security-Policy allows nothing the
// page does not use (its own style sheet and images, forms to itself and
// to formAction, no script). page sets them before any handler runs, so
// that whatever a handler writes (an error, a refusal) carries them;
// render sets them again with the page's own form-action.
func setPageHeaders(h http.Header, formAction []string) {
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action "+
		strings.Join(append([]string{"'self'"}, formAction...), " ")+"; frame-ancestors 'none'; base-uri 'none'")
}

// page wraps a page handler: the headers of every page (setPageHeaders),
// the person's language, their session, and a CSRF binding.
func (s *Server) page(fn func(p *pageCtx) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := &pageCtx{w: w, r: r, lang: pageLanguage(r)}
		setPageHeaders(w.Header(), nil)
		if c, err := r.Cookie(s.web.cookieName("vitrine_session")); err == nil && c.Value != "" {
			id := hashHex(c.Value)
			_, u, err := s.accounts.OAuthStore().WebSession(r.Context(), id, s.now())
			switch {
			case err == nil && !u.Disabled:
				p.user, p.session, p.binding = u, id, "s:"+id
			case err != nil && vitrine.TypeOf(err) != vitrine.NotFoundError:
				s.internal(w, r, "read web session", err)
				return
			}
		}
		if p.binding == "" {
			c, err := r.Cookie(s.web.cookieName("vitrine_pre"))
			if err != nil || !s.web.issued(c.Value) {
				// None, or one this server did not issue (a sibling
				// domain can plant a cookie without __Host-).
				v := s.web.newPre()
				s.web.setCookie(w, "vitrine_pre", v, sessionLifespan)
				c = &http.Cookie{Value: v}
			}
			p.binding = "p:" + c.Value
		}
		if err := fn(p); err != nil {
			s.internal(w, r, "page "+r.URL.Path, err)
		}
	}
}

// newPre makes the value of a browser's pre-session cookie, which binds
// its CSRF tokens before sign-in: a random part and the server's MAC of
// it, so that only a value this server issued is taken back.
func (wb *web) newPre() string {
	v := randomSecret("")
	return v + "." + wb.preMAC(v)
}

// issued reports whether a pre-session value is one newPre made.
func (wb *web) issued(value string) bool {
	v, mac, ok := strings.Cut(value, ".")
	return ok && len(v) >= 20 && hmac.Equal([]byte(mac), []byte(wb.preMAC(v)))
}

func (wb *web) preMAC(v string) string {
	m := hmac.New(sha256.New, wb.key)
	m.Write([]byte("pre\x00" + v))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// csrf is the token a form of this browser must send back.
func (wb *web) csrf(p *pageCtx) string {
	m := hmac.New(sha256.New, wb.key)
	m.Write([]byte("csrf\x00" + p.binding))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// errCSRF refuses a form that this browser's page did not make.
var errCSRF = errors.New("the form is not this page's")

// checkForm parses a posted form and checks its CSRF token.
func (s *Server) checkForm(p *pageCtx) error {
	p.r.Body = http.MaxBytesReader(p.w, p.r.Body, 64<<10)
	if err := p.r.ParseForm(); err != nil {
		return errCSRF
	}
	got := p.r.PostForm.Get("csrf")
	if subtle.ConstantTimeCompare([]byte(got), []byte(s.web.csrf(p))) != 1 {
		return errCSRF
	}
	return nil
}

// refuseForm answers a form with a bad or missing CSRF token.
func (s *Server) refuseForm(p *pageCtx) error {
	s.log.Warn("form refused: bad CSRF token", "path", p.r.URL.Path, "remote", p.r.RemoteAddr)
	p.status = http.StatusForbidden
	return s.render(p, "message", map[string]any{"Title": p.lang.t("expired_title"), "Text": p.lang.t("expired_text")})
}

// startSession signs the person in on this browser.
func (s *Server) startSession(p *pageCtx, u *vitrine.User) error {
	secret := randomSecret("")
	now := s.now()
	if err := s.accounts.OAuthStore().CreateWebSession(p.r.Context(), &signin.WebSession{ID: hashHex(secret), UserID: u.ID,
		CreatedAt: now, ExpiresAt: now.Add(sessionLifespan)}); err != nil {
		return err
	}
	s.web.setCookie(p.w, "vitrine_session", secret, sessionLifespan)
	s.web.clearCookie(p.w, "vitrine_pre")
	return nil
}

// safeNext keeps a post-sign-in destination on this server: a path, not
// another site.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.HasPrefix(next, "/\\") || u.Host != "" || u.Scheme != "" {
		return "/account"
	}
	return next
}

func redirect(p *pageCtx, to string) error {
	http.Redirect(p.w, p.r, to, http.StatusSeeOther)
	return nil
}

// allowed counts an attempt of the request's client against a table of
// limits, at the server's clock, and reports whether it may go ahead.
func (s *Server) allowed(t *addrlimit.Table, r *http.Request) bool {
	return t.Allow(clientKey(r.Context()), s.now())
}
