package service

import (
	"context"
	"time"

	"github.com/vitrine/vitrine"
)

// What a signed-in person does for themselves on Vitrine's own pages
// (docs/oauth.md): their companies, their connected apps and their
// personal tokens. Each method acts on the user it is given, and only on
// what is theirs.

// Companies returns the user's active memberships, with role and
// permissions, as the consent page shows them.
func (s *Service) Companies(ctx context.Context, u *vitrine.User) ([]vitrine.TenantMembership, error) {
	return s.store.MembershipsOfUser(ctx, u.ID)
}

// ConnectedApps returns the user's active OAuth grants.
func (s *Service) ConnectedApps(ctx context.Context, u *vitrine.User) ([]*vitrine.OAuthGrant, error) {
	return s.store.OAuthGrantsOfUser(ctx, u.ID)
}

// DisconnectApp revokes one of the user's grants and all its tokens: the
// app's next request is refused, on every instance.
func (s *Service) DisconnectApp(ctx context.Context, u *vitrine.User, grantID string) error {
	return s.store.RevokeOAuthGrant(ctx, u.ID, grantID, s.now())
}

// PersonalTokens returns the user's own tokens (not those of apps).
func (s *Service) PersonalTokens(ctx context.Context, u *vitrine.User) ([]*vitrine.Token, error) {
	return s.store.TokensOfUser(ctx, u.ID)
}

// CreatePersonalToken makes a token for the user, returned with its
// secret, shown this once.
func (s *Service) CreatePersonalToken(ctx context.Context, u *vitrine.User, name string, readOnly bool, expiresAt *time.Time) (*vitrine.Token, string, error) {
	return s.Operator().CreateToken(ctx, NewToken{Email: u.Email, Name: name, ReadOnly: readOnly, ExpiresAt: expiresAt})
}

// RevokePersonalToken revokes one of the user's personal tokens; another's
// is not found.
func (s *Service) RevokePersonalToken(ctx context.Context, u *vitrine.User, id string) error {
	tokens, err := s.store.TokensOfUser(ctx, u.ID)
	if err != nil {
		return err
	}
	for _, t := range tokens {
		if t.ID == id {
			_, err := s.store.RevokeToken(ctx, id, s.now())
			return err
		}
	}
	return vitrine.NotFound("Token")
}

// OAuthStore is where Vitrine's own authorization server keeps its
// protocol state (clients, codes, refresh tokens, browser sessions): no
// rule of the service's applies to it beyond what that server checks.
func (s *Service) OAuthStore() vitrine.OAuthStore { return s.store }

// Now is the service's clock.
func (s *Service) Now() time.Time { return s.now() }
