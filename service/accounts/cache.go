package accounts

import (
	"sync"
	"time"

	"github.com/vitrine/vitrine"
)

// tokenCache keeps what authentication reads (a token with its user) for
// as long as the database's access epoch stays the same. Every change to
// users, tokens, tenants, memberships or roles moves the epoch, by
// triggers in the database, so changes made by other instances and by the
// operator's CLI move it too; and every request reads it before anything
// else (Authenticate). So a revocation or a disabled user take effect at
// the next request, exactly as without the cache, and a request costs one
// small read instead of a join. The service keeps memberships the same
// way, under the epoch the caller was authenticated at.
//
// Entries are filed under the epoch read before the data was: data read
// later can only be newer, never older, than its epoch says.
type tokenCache struct {
	mu     sync.Mutex
	epoch  int64
	tokens map[string]cachedToken // by lookup prefix
}

type cachedToken struct {
	token vitrine.Token
	user  vitrine.User
}

// maxCached bounds the map; past it, the map starts over.
const maxCached = 10000

// at makes epoch the current one if it is newer, and reports whether it is
// current. Callers hold mu.
func (c *tokenCache) at(epoch int64) bool {
	if epoch > c.epoch {
		c.epoch, c.tokens = epoch, nil
	}
	return epoch == c.epoch && epoch != 0
}

func (c *tokenCache) token(epoch int64, prefix string) (vitrine.Token, vitrine.User, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at(epoch) {
		return vitrine.Token{}, vitrine.User{}, false
	}
	e, ok := c.tokens[prefix]
	return e.token, e.user, ok
}

// current returns the token cached under prefix at the newest epoch read,
// with that epoch.
func (c *tokenCache) current(prefix string) (vitrine.Token, vitrine.User, int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.tokens[prefix]
	return e.token, e.user, c.epoch, ok && c.epoch != 0
}

func (c *tokenCache) putToken(epoch int64, prefix string, t vitrine.Token, u vitrine.User) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at(epoch) {
		return
	}
	if c.tokens == nil || len(c.tokens) >= maxCached {
		c.tokens = map[string]cachedToken{}
	}
	c.tokens[prefix] = cachedToken{token: t, user: u}
}

// used records a token's last use in its entry, which the epoch does not
// follow (recording a use changes no access).
func (c *tokenCache) used(prefix string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.tokens[prefix]; ok {
		e.token.LastUsedAt = &at
		c.tokens[prefix] = e
	}
}
