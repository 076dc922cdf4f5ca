package service

import (
	"sync"
	"time"

	"github.com/vitrine/vitrine"
)

// accessCache keeps what authentication and membership checks read (a
// token with its user, a membership with its role) for as long as the
// database's access epoch stays the same. Every change to users, tokens,
// tenants, memberships or roles moves the epoch, by triggers in the
// database, so changes made by other instances and by the operator's CLI
// move it too; and every request reads it before anything else. So a
// revocation, a disabled user or a changed role take effect at the next
// request, exactly as without the cache, and a request costs one small
// read instead of two joins.
//
// Entries are filed under the epoch read before the data was: data read
// later can only be newer, never older, than its epoch says.
type accessCache struct {
	mu      sync.Mutex
	epoch   int64
	tokens  map[string]cachedToken            // by lookup prefix
	members map[memberKey]*vitrine.Membership // active and inactive alike
}

type cachedToken struct {
	token vitrine.Token
	user  vitrine.User
}

type memberKey struct{ tenantID, userID string }

// maxCached bounds each map; past it, the map starts over.
const maxCached = 10000

// at makes epoch the current one if it is newer, and reports whether it is
// current. Callers hold mu.
func (c *accessCache) at(epoch int64) bool {
	if epoch > c.epoch {
		c.epoch, c.tokens, c.members = epoch, nil, nil
	}
	return epoch == c.epoch && epoch != 0
}

func (c *accessCache) token(epoch int64, prefix string) (vitrine.Token, vitrine.User, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at(epoch) {
		return vitrine.Token{}, vitrine.User{}, false
	}
	e, ok := c.tokens[prefix]
	return e.token, e.user, ok
}

func (c *accessCache) putToken(epoch int64, prefix string, t vitrine.Token, u vitrine.User) {
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
func (c *accessCache) used(prefix string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.tokens[prefix]; ok {
		e.token.LastUsedAt = &at
		c.tokens[prefix] = e
	}
}

func (c *accessCache) member(epoch int64, tenantID, userID string) (*vitrine.Membership, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at(epoch) {
		return nil, false
	}
	m, ok := c.members[memberKey{tenantID, userID}]
	if !ok {
		return nil, false
	}
	out := *m
	return &out, true
}

func (c *accessCache) putMember(epoch int64, m *vitrine.Membership) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at(epoch) {
		return
	}
	if c.members == nil || len(c.members) >= maxCached {
		c.members = map[memberKey]*vitrine.Membership{}
	}
	kept := *m
	c.members[memberKey{m.TenantID, m.UserID}] = &kept
}
