package authserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/signin"
)

// storedRequest is what an authorization code or a refresh token carries
// from the consent to the tokens, kept as the JSON of its
// signin.OAuthSession row. The names are those the rows have always
// had, so that refresh tokens issued by an earlier version still work.
type storedRequest struct {
	// ID names the token family: the code and every token that comes of
	// it, through refreshes. Revoking it ends them all.
	ID           string   `json:"id"`
	ClientID     string   `json:"client_id"`
	GrantedScope []string `json:"granted_scope"`
	// Form is, for a code, the redirect URI and PKCE challenge the
	// authorization request sent.
	Form    url.Values `json:"form,omitempty"`
	Session *session   `json:"session"`
}

// session is whose a token family is, and under which grant.
type session struct {
	UserID    string `json:"user_id"`
	GrantID   string `json:"grant_id"`
	ClientTag string `json:"client_tag"` // the client's name, for the token's name
}

// save stores a code or a refresh token by its signature.
func (s *Server) save(ctx context.Context, kind, signature string, r *storedRequest, exp time.Time) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return s.accounts.OAuthStore().CreateOAuthSession(ctx, &signin.OAuthSession{Kind: kind, Signature: signature, RequestID: r.ID,
		GrantID: r.Session.GrantID, Request: data, Active: true, ExpiresAt: exp, CreatedAt: s.now()})
}

// load returns a stored code or refresh token with its row (whether it is
// still active, when it expires); a NotFoundError when there is none.
func (s *Server) load(ctx context.Context, kind, signature string) (*storedRequest, *signin.OAuthSession, error) {
	row, err := s.accounts.OAuthStore().OAuthSession(ctx, kind, signature)
	if err != nil {
		return nil, nil, err
	}
	var r storedRequest
	if err := json.Unmarshal(row.Request, &r); err != nil || r.Session == nil {
		return nil, nil, fmt.Errorf("stored %s of family %s: not a request (%v)", kind, row.RequestID, err)
	}
	return &r, row, nil
}

// errSpent refuses a code or refresh token that another request used
// first.
var errSpent = errors.New("used by another request first")

// spend marks a code or refresh token used, once: of two requests that
// present it at once, one wins and the other gets errSpent.
func (s *Server) spend(ctx context.Context, kind, signature string) error {
	err := s.accounts.OAuthStore().DeactivateOAuthSession(ctx, kind, signature)
	if vitrine.TypeOf(err) == vitrine.ConflictError {
		return errSpent
	}
	return err
}

// refreshPrefix marks Vitrine's refresh tokens for secret scanners.
const refreshPrefix = "vtrr_"

// randomSecret is 256 random bits, base64url, after prefix.
func randomSecret(prefix string) string {
	b := make([]byte, 32)
	rand.Read(b)
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// secretSignature is what a code or refresh token is stored by: its
// SHA-256, so that the database holds no usable secret.
func secretSignature(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}
