package authserver

import (
	"context"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/signin"
)

// authRequest is an authorization request that passed every check: what
// the consent page shows, and what the code it ends in carries.
type authRequest struct {
	client *signin.OAuthClient
	// redirectURI is where the answer goes: one the client registered.
	redirectURI *url.URL
	// state is returned exactly when sent.
	state  string
	scopes []string
	query  url.Values
}

// minStateLength is the shortest state accepted: one shorter would be
// guessed (RFC 6819 §4.4.1.8). A request may send none, since OAuth 2.1
// lets PKCE carry that protection and the official MCP SDKs send none.
const minStateLength = 8

// parseAuthorize reads an authorization request (a GET's query) and checks
// it all before anyone signs in: the client and its registered redirect
// URI, the response type and mode, the scopes, state, PKCE with S256 and
// the resource. Any failure is answered with a page on this server, never
// a redirect (pages.go).
func (s *Server) parseAuthorize(ctx context.Context, rawQuery string) (*authRequest, error) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, errInvalidRequest.withHint("The request's query is not well formed.").wrap(err)
	}
	if err := sentOnce(q, authorizeParameters); err != nil {
		return nil, err
	}
	oc, err := s.clients.lookup(ctx, q.Get("client_id"))
	if err != nil {
		return nil, err
	}
	ar := &authRequest{client: oc, state: q.Get("state"), scopes: spaceList(q.Get("scope")), query: q}
	if m := q.Get("response_mode"); m != "" && m != "query" {
		return nil, errUnsupportedResponseMode.withHint("Request with unsupported response_mode '%s'.", m)
	}
	if ar.redirectURI, err = matchRedirectURI(q.Get("redirect_uri"), oc.Metadata.RedirectURIs); err != nil {
		return nil, err
	}
	for _, sc := range ar.scopes {
		if !slices.Contains(vitrine.AllScopes(), sc) {
			return nil, errInvalidScope.withHint("The OAuth 2.0 Client is not allowed to request scope '%s'.", sc)
		}
	}
	switch rt := spaceList(q.Get("response_type")); {
	case len(rt) == 0:
		return nil, errUnsupportedResponseType.withHint("The request is missing the 'response_type' parameter.")
	case !slices.Equal(rt, []string{"code"}):
		return nil, errUnsupportedResponseType.withHint("The client is not allowed to request response_type '%s'.", q.Get("response_type"))
	}
	if ar.state != "" && len(ar.state) < minStateLength {
		return nil, errInvalidState.withHint("Request parameter 'state' must be at least %d characters long to ensure sufficient entropy.", minStateLength)
	}
	if q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256" {
		return nil, errInvalidRequest.withHint("PKCE is required: send code_challenge with code_challenge_method S256.")
	}
	return ar, s.checkResource(q)
}

// The parameters each endpoint reads that a request may send at most once
// (RFC 6749 §3.1, §3.2). resource and audience may come several times (RFC
// 8707 §2, RFC 8693 §2.1); parameters a server does not know it ignores,
// as RFC 6749 §3.1 asks, however many times they come.
var (
	authorizeParameters = []string{"client_id", "redirect_uri", "response_type", "response_mode", "scope", "state",
		"code_challenge", "code_challenge_method"}
	tokenParameters = []string{"grant_type", "code", "redirect_uri", "code_verifier", "refresh_token", "scope",
		"client_id", "client_secret", "client_assertion_type", "client_assertion", "token", "token_type_hint"}
)

// sentOnce refuses a request that sends one of the parameters more than
// once: which of two values a server takes is a guess a client and an
// attacker may make differently (the first, the last, a proxy's choice),
// so RFC 6749 forbids it. The refusal names the parameter.
func sentOnce(form url.Values, parameters []string) error {
	for _, k := range parameters {
		if len(form[k]) > 1 {
			return errInvalidRequest.withHint("Request parameter '%s' is included more than once.", k)
		}
	}
	return nil
}

// checkResource enforces resource indicators (RFC 8707): a request may
// name only this server's MCP resource, as its resource or its audience.
func (s *Server) checkResource(form url.Values) error {
	for _, res := range append(form["resource"], spaceList(strings.Join(form["audience"], " "))...) {
		if !oauthex.MatchesResource([]string{res}, s.opts.Resource) {
			return errInvalidRequest.withHint("This server issues tokens for %s only.", s.opts.Resource)
		}
	}
	return nil
}

// matchRedirectURI returns the redirect URI of a request among those the
// client registered: the one sent, compared as a string, or the only one
// registered when none is sent. A loopback one may differ by its port
// alone, which a native app picks when it listens (RFC 8252 §7.3, RFC 9700
// §2.1).
func matchRedirectURI(sent string, registered []string) (*url.URL, error) {
	if sent == "" && len(registered) == 1 {
		sent = registered[0]
	}
	refused := errInvalidRequest.withHint("The 'redirect_uri' parameter does not match any of the OAuth 2.0 Client's pre-registered redirect urls.")
	u, err := url.Parse(sent)
	if err != nil || u.Scheme == "" || u.Fragment != "" || sent == "" {
		return nil, refused
	}
	for _, r := range registered {
		if r == sent || loopbackMatch(sent, r) {
			return u, nil
		}
	}
	return nil, refused
}

// loopbackMatch reports whether sent is the registered loopback redirect
// URI on another port: both http on a loopback IP address, and equal, byte
// for byte, once their ports are taken out. Nothing else may differ: not
// a user name before the host, not an escape in the path that decodes to
// the registered one.
func loopbackMatch(sent, registered string) bool {
	sh, srest, ok1 := withoutPort(sent)
	rh, rrest, ok2 := withoutPort(registered)
	ip := net.ParseIP(sh)
	return ok1 && ok2 && ip != nil && ip.IsLoopback() && sh == rh && srest == rrest
}

// withoutPort splits a raw http URL into its host, without its port, and
// what follows the authority (path, query), as written. A URL with user
// information, or of another scheme, is none.
func withoutPort(raw string) (host, rest string, ok bool) {
	after, ok := strings.CutPrefix(raw, "http://")
	if !ok {
		return "", "", false
	}
	i := strings.IndexAny(after, "/?#")
	if i < 0 {
		i = len(after)
	}
	authority, rest := after[:i], after[i:]
	if authority == "" || strings.ContainsAny(authority, "@%") {
		return "", "", false
	}
	host, port, err := net.SplitHostPort(authority)
	if err != nil {
		return strings.TrimSuffix(strings.TrimPrefix(authority, "["), "]"), rest, true
	}
	// A port is one a browser can open: 1 to 65535, in digits.
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || strings.TrimLeft(port, "0123456789") != "" {
		return "", "", false
	}
	return host, rest, true
}

// spaceList splits a space-separated list (a scope, a response type).
func spaceList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, " ") {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// issueCode answers an approved request: a code of the grant, sent to the
// client's redirect URI with the state, the scopes granted and the issuer
// (RFC 9207). The code carries the redirect URI and the PKCE challenge
// the request sent, which the token request must match.
func (s *Server) issueCode(p *pageCtx, ar *authRequest, g *signin.OAuthGrant, granted []string, clientTag string) error {
	form := url.Values{}
	for _, k := range []string{"redirect_uri", "code_challenge", "code_challenge_method"} {
		if v := ar.query.Get(k); v != "" {
			form.Set(k, v)
		}
	}
	req := &storedRequest{ID: vitrine.NewID(), ClientID: ar.client.ID, GrantedScope: granted, Form: form,
		Session: &session{UserID: g.UserID, GrantID: g.ID, ClientTag: clientTag}}
	code := randomSecret("")
	if err := s.save(p.r.Context(), "code", secretSignature(code), req, s.now().Add(codeLifespan)); err != nil {
		s.logProtocolError("authorize", err)
		return s.redirectError(p, ar, err)
	}
	to := *ar.redirectURI
	q := to.Query()
	q.Set("code", code)
	if ar.state != "" {
		q.Set("state", ar.state)
	}
	q.Set("scope", strings.Join(granted, " "))
	q.Set("iss", s.opts.Issuer)
	to.RawQuery = q.Encode()
	p.w.Header().Set("Pragma", "no-cache")
	return redirect(p, to.String())
}
