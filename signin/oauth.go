package signin

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
)

// OAuthClient is an application that connects through Vitrine's own OAuth
// authorization server: one that registered itself (RFC 7591), or one known
// by its metadata document, whose https URL is its client_id.
type OAuthClient struct {
	ID string
	// Kind is "registered" or "metadata".
	Kind     string
	Metadata ClientMetadata
	// SecretHash is the SHA-256 of a registered confidential client's
	// secret; empty for public clients.
	SecretHash []byte
	CreatedAt  time.Time
	// FetchedAt is when a metadata document was last read.
	FetchedAt time.Time
}

// ClientMetadata is what a client says of itself (RFC 7591 names).
type ClientMetadata struct {
	ClientName              string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	LogoURI                 string   `json:"logo_uri,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
	SoftwareID              string   `json:"software_id,omitempty"`
	SoftwareVersion         string   `json:"software_version,omitempty"`
}

// OAuthGrant is what a user approved for a client: a connected app. Its
// tokens work while it is not revoked.
type OAuthGrant struct {
	ID        string
	UserID    string
	ClientID  string
	Scope     string
	CreatedAt time.Time
	UpdatedAt time.Time
	RevokedAt *time.Time
	// Filled when listed: the client, and the last use of its tokens.
	Client     *OAuthClient
	LastUsedAt *time.Time
}

// OAuthSession is an authorization code or a refresh token, stored by the
// signature of its secret, with the authorization request it carries
// (encoded by the authorization server).
type OAuthSession struct {
	// Kind is "code" or "refresh". (Rows of kind "pkce", which the server
	// wrote while it was built on ory/fosite, are purged as they expire.)
	Kind      string
	Signature string
	// RequestID names the token family: the code and every token that
	// comes of it, through refreshes.
	RequestID string
	GrantID   string
	Request   []byte
	Active    bool
	ExpiresAt time.Time
	CreatedAt time.Time
}

// WebSession is a signed-in browser, stored by the SHA-256 of its cookie.
type WebSession struct {
	ID        string
	UserID    string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// OAuthStore keeps what Vitrine's own authorization server needs, in the
// database, so that any instance can carry on a flow another began. These
// rows belong to users, not to tenants.
type OAuthStore interface {
	// SaveOAuthClient stores a client, or replaces the one with its id.
	SaveOAuthClient(ctx context.Context, c *OAuthClient) error
	OAuthClient(ctx context.Context, id string) (*OAuthClient, error)
	// SaveOAuthGrant records a user's approval of a client: it creates the
	// grant, or updates the scope of the user's active grant to that
	// client (and sets g.ID and g.CreatedAt to that grant's). A scope that
	// does not include every scope of the earlier one (ScopeIncludes)
	// revokes the grant's tokens and refresh tokens, which carry it.
	SaveOAuthGrant(ctx context.Context, g *OAuthGrant) error
	OAuthGrant(ctx context.Context, id string) (*OAuthGrant, error)
	// OAuthGrantsOfUser returns the user's active grants, with their
	// clients and last use, most recently approved first.
	OAuthGrantsOfUser(ctx context.Context, userID string) ([]*OAuthGrant, error)
	// RevokeOAuthGrant revokes one of the user's active grants with every
	// token and refresh token of it, at once on every instance.
	RevokeOAuthGrant(ctx context.Context, userID, id string, at time.Time) error
	CreateOAuthSession(ctx context.Context, s *OAuthSession) error
	OAuthSession(ctx context.Context, kind, signature string) (*OAuthSession, error)
	// DeactivateOAuthSession marks a session used; one already inactive
	// is a ConflictError, so that two concurrent uses cannot both pass.
	DeactivateOAuthSession(ctx context.Context, kind, signature string) error
	// RevokeOAuthRequest ends a token family: its refresh tokens become
	// inactive and its access tokens revoked.
	RevokeOAuthRequest(ctx context.Context, requestID string, at time.Time) error
	// CreateGrantToken stores an access token issued under a grant, for
	// a token family, and forgets the grant's tokens long expired.
	CreateGrantToken(ctx context.Context, t *vitrine.Token, grantID, requestID string) error
	// GrantToken returns an access token issued under a grant, by its
	// prefix, with its grant and token family.
	GrantToken(ctx context.Context, prefix string) (t *vitrine.Token, grantID, requestID string, err error)
	CreateWebSession(ctx context.Context, s *WebSession) error
	// WebSession returns an unexpired session with its user.
	WebSession(ctx context.Context, id string, now time.Time) (*WebSession, *vitrine.User, error)
	DeleteWebSession(ctx context.Context, id string) error
	// DeleteWebSessionsOfUser signs every browser of the user out.
	DeleteWebSessionsOfUser(ctx context.Context, userID string) error
	// PurgeOAuth removes what no flow can use any more: codes, PKCE
	// requests and refresh tokens expired before now, browser sessions
	// expired, and clients nobody ever approved (no grant at all)
	// registered, or their metadata document last fetched, before
	// unusedBefore. It returns how many rows it removed.
	PurgeOAuth(ctx context.Context, now, unusedBefore time.Time) (int64, error)
	// ServerKey returns the key every instance shares under name (the
	// CSRF key of the pages), storing fresh when there is none.
	ServerKey(ctx context.Context, name string, fresh []byte) ([]byte, error)
}

// ScopeIncludes reports whether scope (space-separated, as OAuth writes
// it) holds every scope of other: a grant re-approved with a scope that
// does not include its earlier one is narrowed, whatever the scopes are.
func ScopeIncludes(scope, other string) bool {
	have := strings.Fields(scope)
	for _, s := range strings.Fields(other) {
		if !slices.Contains(have, s) {
			return false
		}
	}
	return true
}
