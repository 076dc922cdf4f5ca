// Package accounts is who a person is: their user, the tokens that act in
// their name, their password, and what they do for themselves on
// Vitrine's own pages. It authenticates a token or an external identity
// into a vitrine.Caller (auth.go), signs people in (passwords.go), and
// gives the operator's commands on users, tokens and passwords
// (operator.go). What the caller may do in a tenant is the service's
// (service.Access); every method here goes to the database only through
// Store: vitrine.Store with the sign-in contract (signin.Store).
package accounts

import (
	"log/slog"
	"sync"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/signin"
)

// Store is what accounts keeps its data in: the domain's contract and the
// sign-in one, which the store package implements on the same database.
type Store interface {
	vitrine.Store
	signin.Store
}

// Accounts authenticates people and keeps what is theirs alone: their
// user, tokens and password. The service holds one (Service.Accounts).
type Accounts struct {
	store Store
	log   *slog.Logger
	now   func() time.Time
	cache tokenCache
	pw    *passwords
	// touching holds the ids of the tokens whose use is being recorded.
	touching sync.Map
}

// New returns the accounts kept in store. A nil logger discards.
func New(store Store, log *slog.Logger) *Accounts {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Accounts{store: store, log: log, now: vitrine.Now, pw: newPasswords()}
}

// Operator does what the vitrine CLI does to accounts with direct access
// to the database: it creates users and tokens, revokes tokens, sets
// passwords, within the rules that keep the data whole (emails stay
// unique). service.Operator carries it, beside the operator's commands on
// tenants and memberships.
type Operator struct{ a *Accounts }

// Operator returns the operator's side of the accounts.
func (a *Accounts) Operator() *Operator { return &Operator{a} }
