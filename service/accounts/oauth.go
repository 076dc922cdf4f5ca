package accounts

import (
	"context"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/signin"
)

// What a signed-in person does for themselves on Vitrine's own pages
// (docs/oauth.md): their companies, their connected apps and their
// personal tokens. Each method acts on the user it is given, and only on
// what is theirs.

// Companies returns the user's active memberships, with role and
// permissions, as the consent page shows them.
func (a *Accounts) Companies(ctx context.Context, u *vitrine.User) ([]vitrine.TenantMembership, error) {
	return a.store.MembershipsOfUser(ctx, u.ID)
}

// ConnectedApps returns the user's active OAuth grants.
func (a *Accounts) ConnectedApps(ctx context.Context, u *vitrine.User) ([]*signin.OAuthGrant, error) {
	return a.store.OAuthGrantsOfUser(ctx, u.ID)
}

// DisconnectApp revokes one of the user's grants and all its tokens: the
// app's next request is refused, on every instance.
func (a *Accounts) DisconnectApp(ctx context.Context, u *vitrine.User, grantID string) error {
	return a.store.RevokeOAuthGrant(ctx, u.ID, grantID, a.now())
}

// PersonalTokens returns the user's own tokens (not those of apps).
func (a *Accounts) PersonalTokens(ctx context.Context, u *vitrine.User) ([]*vitrine.Token, error) {
	return a.store.TokensOfUser(ctx, u.ID)
}

// CreatePersonalToken makes a token for the user (in.Email is theirs),
// returned with its secret, shown this once.
func (a *Accounts) CreatePersonalToken(ctx context.Context, u *vitrine.User, in NewToken) (*vitrine.Token, string, error) {
	in.Email = u.Email
	return a.Operator().CreateToken(ctx, in)
}

// RevokePersonalToken revokes one of the user's personal tokens; another's
// is not found.
func (a *Accounts) RevokePersonalToken(ctx context.Context, u *vitrine.User, id string) error {
	tokens, err := a.store.TokensOfUser(ctx, u.ID)
	if err != nil {
		return err
	}
	for _, t := range tokens {
		if t.ID == id {
			_, err := a.store.RevokeToken(ctx, id, a.now())
			return err
		}
	}
	return vitrine.NotFound("Token")
}

// OAuthStore is where Vitrine's own authorization server keeps its
// protocol state (clients, codes, refresh tokens, browser sessions): no
// rule of the service's applies to it beyond what that server checks.
func (a *Accounts) OAuthStore() signin.OAuthStore { return a.store }

// Now is the accounts' clock.
func (a *Accounts) Now() time.Time { return a.now() }
