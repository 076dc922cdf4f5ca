// Package service holds Vitrine's rules: who may do what in which tenant,
// and what makes a valid product, membership or role. Every adapter (the
// MCP tools, the operator's CLI) goes through it; it goes to the database
// only through vitrine.Store. Who a person is (users, tokens, passwords,
// sign-in) is the accounts package's, and the audit log of the calls that
// write nothing is auditlog's; a Service holds one of each.
package service

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service/accounts"
	"github.com/vitrine/vitrine/service/auditlog"
	"github.com/vitrine/vitrine/service/internal/insider"
)

// Service is the domain service.
type Service struct {
	store vitrine.Store
	// epoch is store when it checks the access epoch of one call
	// (CheckingEpoch); nil on the service New returns.
	epoch vitrine.EpochStore
	*shared
}

// shared is what every call's service shares with the one New returned.
type shared struct {
	now      func() time.Time
	audit    *auditlog.Log
	accounts *accounts.Accounts
	members  memberCache
	// cursor signs list cursors, once cursorMu has read its key.
	cursorMu sync.Mutex
	cursor   *Cursors
}

// Options configure what a serving service does beside answering calls.
// The zero value buffers the events of reads and keeps every event.
type Options struct {
	// Audit configures the audit log of the calls that write nothing.
	Audit auditlog.Options
}

// New returns a service over store with the zero Options. A nil logger
// discards.
func New(store accounts.Store, log *slog.Logger) *Service {
	return NewWithOptions(store, log, Options{})
}

// NewWithOptions returns a service over store. A nil logger discards.
// Close it at a graceful stop.
func NewWithOptions(store accounts.Store, log *slog.Logger, o Options) *Service {
	return &Service{store: store, shared: &shared{now: vitrine.Now, audit: auditlog.New(store, log, o.Audit), accounts: accounts.New(store, log)}}
}

// CheckingEpoch returns the service for one call of a caller taken from
// the access cache, read under epoch and not read again since: the call's
// first unit of work checks that the epoch has not moved
// (vitrine.EpochStore), and answers vitrine.ErrStaleAccess, having written
// nothing, if it has. Once the call is done, ConfirmEpoch says whether it
// held.
func (s *Service) CheckingEpoch(epoch int64) *Service {
	call := s.store.CheckingEpoch(epoch)
	return &Service{store: call, epoch: call, shared: s.shared}
}

// ConfirmEpoch returns nil if the epoch the service checks (CheckingEpoch)
// has not moved: at no cost when a unit of work of the call found it so,
// else by reading it. vitrine.ErrStaleAccess if it moved.
func (s *Service) ConfirmEpoch(ctx context.Context) error {
	if s.epoch == nil {
		return nil
	}
	return s.epoch.ConfirmEpoch(ctx)
}

// Accounts returns the accounts: who a person is, authenticated by a
// token or an external identity, signed in with a password, and what they
// do for themselves.
func (s *Service) Accounts() *accounts.Accounts { return s.accounts }

// Store returns the store, to the service's own packages (service/catalog):
// an adapter cannot make an insider.Pass, and goes through the operations.
func (s *Service) Store(insider.Pass) vitrine.Store { return s.store }

// Audit returns the audit log, where a call that wrote nothing records
// its event.
func (s *Service) Audit() *auditlog.Log { return s.audit }

// Close writes the buffered audit events and stops the background work
// (audit retention); events recorded after it are written durably. Call
// it at every graceful stop, before closing the store.
func (s *Service) Close(ctx context.Context) error { return s.audit.Close(ctx) }

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
	// change is the operator's change (Operator.change): its command's
	// call, audited with the operator as its actor.
	change vitrine.Change
}

// Change is the change a makes in its caller's call, which every store
// method that writes tenant data takes. The operator acting in no one's
// name makes its command's (Operator.Command).
func (a *Access) Change() vitrine.Change {
	if a.Caller == nil {
		return a.change
	}
	return a.Caller.Change()
}

// Access checks that the caller has an active membership in the tenant.
// Without one, the answer is the same whether the tenant exists or not:
// vitrine.ErrNoMembership.
func (s *Service) Access(ctx context.Context, caller *vitrine.Caller, tenantID string) (*Access, error) {
	if caller == nil {
		return nil, accounts.ErrUnauthenticated
	}
	if !vitrine.ValidID(tenantID) {
		// A company's slug, resolved among the caller's own active
		// memberships only: a slug of a company the caller is not in
		// answers as an unknown id does.
		id, err := s.tenantBySlug(ctx, caller, tenantID)
		if err != nil {
			return nil, err
		}
		tenantID = id
	}
	m, ok := s.members.member(caller.AccessEpoch, tenantID, caller.User.ID)
	if !ok {
		var err error
		m, err = s.store.Membership(ctx, tenantID, caller.User.ID)
		if vitrine.TypeOf(err) == vitrine.NotFoundError {
			return nil, vitrine.ErrNoMembership
		}
		if err != nil {
			return nil, err
		}
		s.members.putMember(caller.AccessEpoch, m)
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

// tenantBySlug is the id of the company of that slug among the caller's
// active memberships, or ErrNoMembership.
func (s *Service) tenantBySlug(ctx context.Context, caller *vitrine.Caller, slug string) (string, error) {
	if _, err := vitrine.ValidateSlug("tenant_id", slug); err != nil {
		return "", vitrine.ErrNoMembership
	}
	ms, err := s.store.MembershipsOfUser(ctx, caller.User.ID)
	if err != nil {
		return "", err
	}
	for _, tm := range ms {
		if tm.Tenant.Slug == slug && tm.Membership.Status == vitrine.MembershipActive {
			return tm.Tenant.ID, nil
		}
	}
	return "", vitrine.ErrNoMembership
}
