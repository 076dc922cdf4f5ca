package service

import (
	"sync"

	"github.com/vitrine/vitrine"
)

// memberCache keeps the memberships Access reads (active and inactive
// alike, with their roles) under the database's access epoch the caller
// was authenticated at, as accounts keeps tokens (accounts/cache.go says
// why that is safe): every change to a membership or a role moves the
// epoch, so a deactivated membership or a changed role take effect at
// the next request.
type memberCache struct {
	mu      sync.Mutex
	epoch   int64
	members map[memberKey]*vitrine.Membership
}

type memberKey struct{ tenantID, userID string }

// maxCached bounds the map; past it, the map starts over.
const maxCached = 10000

// at makes epoch the current one if it is newer, and reports whether it is
// current. Callers hold mu.
func (c *memberCache) at(epoch int64) bool {
	if epoch > c.epoch {
		c.epoch, c.members = epoch, nil
	}
	return epoch == c.epoch && epoch != 0
}

func (c *memberCache) member(epoch int64, tenantID, userID string) (*vitrine.Membership, bool) {
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

func (c *memberCache) putMember(epoch int64, m *vitrine.Membership) {
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
