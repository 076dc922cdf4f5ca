// Package service holds Vitrine's rules: who may do what in which tenant,
// and what makes a valid product, membership or token. Every adapter (the
// MCP tools, the operator's CLI) goes through it; it goes to the database
// only through vitrine.Store.
package service

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/vitrine/vitrine"
)

// Service is the domain service.
type Service struct {
	store vitrine.Store
	log   *slog.Logger
	now   func() time.Time
	audit *auditLog
	cache accessCache
	pw    *passwords
	// touching holds the ids of the tokens whose use is being recorded.
	touching sync.Map
	// cursor signs list cursors, once cursorMu has read its key.
	cursorMu sync.Mutex
	cursor   *vitrine.Cursors
}

// New returns a service over store. A nil logger discards.
func New(store vitrine.Store, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, log: log, now: vitrine.Now, audit: &auditLog{store: store, log: log}, pw: newPasswords()}
}

// Access is the proof that a caller holds an active membership in a tenant,
// or that the operator acts there. Only Service.Access makes a caller's,
// and Operator the operator's; every tenant-scoped operation takes one:
// that is the single place where membership is checked. Require is the
// single place where permissions are. A nil *Access is always refused.
type Access struct {
	Caller     *vitrine.Caller
	TenantID   string
	Membership *vitrine.Membership
	// operator: the operator's command line acts, holding every
	// permission and bound by no team rule but the last owner's.
	operator bool
}

// operatorAccess is the operator acting in a tenant.
func operatorAccess(tenantID string) *Access { return &Access{TenantID: tenantID, operator: true} }

// Access checks that the caller has an active membership in the tenant.
// Without one, the answer is the same whether the tenant exists or not:
// vitrine.ErrNoMembership.
func (s *Service) Access(ctx context.Context, caller *vitrine.Caller, tenantID string) (*Access, error) {
	if caller == nil {
		return nil, ErrUnauthenticated
	}
	if !vitrine.ValidID(tenantID) {
		return nil, vitrine.ErrNoMembership
	}
	m, ok := s.cache.member(caller.AccessEpoch, tenantID, caller.User.ID)
	if !ok {
		var err error
		m, err = s.store.Membership(ctx, tenantID, caller.User.ID)
		if vitrine.TypeOf(err) == vitrine.NotFoundError {
			return nil, vitrine.ErrNoMembership
		}
		if err != nil {
			return nil, err
		}
		s.cache.putMember(caller.AccessEpoch, m)
	}
	if m.Status != vitrine.MembershipActive {
		return nil, vitrine.ErrNoMembership
	}
	return &Access{Caller: caller, TenantID: tenantID, Membership: m}, nil
}

// Permissions returns what the caller may do in the tenant: the
// membership's permissions, narrowed to reading by a read-only token.
func (a *Access) Permissions() vitrine.PermissionSet {
	switch {
	case a == nil:
		return 0
	case a.operator:
		return vitrine.AllPermissions
	}
	return effective(a.Caller, a.Membership)
}

func effective(c *vitrine.Caller, m *vitrine.Membership) vitrine.PermissionSet {
	ps := m.Permissions()
	if c.ReadOnly() {
		ps &= vitrine.ReadPermissions
	}
	return ps
}

// Require answers vitrine.ErrPermissionDenied unless the caller holds p.
func (a *Access) Require(p vitrine.Permission) error {
	if !a.Permissions().Has(p) {
		return vitrine.ErrPermissionDenied
	}
	return nil
}
