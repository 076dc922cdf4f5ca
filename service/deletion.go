package service

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/vitrine/vitrine"
)

// DeleteTenant schedules the caller's company for deletion after grace:
// from now on it is closed (its window, its members' calls) and its owner
// may restore it until its purge begins.
func (s *Service) DeleteTenant(ctx context.Context, a *Access, grace time.Duration) (*TenantAccess, error) {
	if err := a.Allow(OpDeleteTenant); err != nil {
		return nil, err
	}
	now := s.now()
	t, err := s.store.ScheduleTenantDeletion(ctx, a.Change(), a.TenantID, a.Caller.User.ID, now, now.Add(grace))
	if err != nil {
		return nil, err
	}
	return &TenantAccess{Tenant: *t, Role: a.Membership.Role, Permissions: a.Permissions()}, nil
}

// RestoreTenant brings back a company scheduled for deletion, whole, as
// long as its purge has not begun.
func (s *Service) RestoreTenant(ctx context.Context, a *Access) (*TenantAccess, error) {
	if err := a.Allow(OpRestoreTenant); err != nil {
		return nil, err
	}
	t, err := s.store.RestoreTenant(ctx, a.Change(), a.TenantID)
	if err != nil {
		return nil, err
	}
	return &TenantAccess{Tenant: *t, Role: a.Membership.Role, Permissions: a.Permissions()}, nil
}

// DeleteTenant schedules a company for deletion after grace, as its owner
// would (0: due at once, for PurgeTenant).
func (o *Operator) DeleteTenant(ctx context.Context, ref string, grace time.Duration) (*vitrine.Tenant, error) {
	t, err := o.Tenant(ctx, ref)
	if err != nil {
		return nil, err
	}
	now := o.s.now()
	return o.s.store.ScheduleTenantDeletion(ctx, o.change(t.ID), t.ID, "", now, now.Add(grace))
}

// DeleteTenantNow makes a company due for its purge at once: scheduled
// now, or, scheduled already for later, due now with its request (who
// asked, and when) kept, one change and not a restore and a new deletion.
// hastened says which.
func (o *Operator) DeleteTenantNow(ctx context.Context, ref string) (t *vitrine.Tenant, hastened bool, err error) {
	if t, err = o.Tenant(ctx, ref); err != nil {
		return nil, false, err
	}
	now := o.s.now()
	if t.DeletesAt.IsZero() {
		t, err = o.s.store.ScheduleTenantDeletion(ctx, o.change(t.ID), t.ID, "", now, now)
		if vitrine.TypeOf(err) != vitrine.ConflictError {
			return t, false, err
		}
		// Scheduled meanwhile: hastened below.
	}
	t, err = o.s.store.HastenTenantDeletion(ctx, o.change(t.ID), t.ID, now)
	return t, true, err
}

// RestoreTenant brings back a company scheduled for deletion.
func (o *Operator) RestoreTenant(ctx context.Context, ref string) (*vitrine.Tenant, error) {
	t, err := o.Tenant(ctx, ref)
	if err != nil {
		return nil, err
	}
	return o.s.store.RestoreTenant(ctx, o.change(t.ID), t.ID)
}

// DeletedTenants returns the records of the companies' deletions, newest
// first.
func (o *Operator) DeletedTenants(ctx context.Context, limit int) ([]*vitrine.DeletedTenant, error) {
	return o.s.store.DeletedTenants(ctx, limit)
}

// PurgeLease names the lease under which one instance at a time purges.
const PurgeLease = "purge"

// Purger removes the companies whose deletion is due, in bounded
// batches, under a lease that lets one instance at a time do it.
type Purger struct {
	s *Service
	// Holder names this purger in the lease: unique per process.
	Holder string
	// Batch is the most rows one transaction removes.
	Batch int
	// Lease is how long the lease holds without renewal; the purger
	// renews it at every batch.
	Lease time.Duration
	log   *slog.Logger
}

// DefaultPurgeBatch is the rows one transaction of a purge removes.
const DefaultPurgeBatch = 500

// Purger returns the service's purger, named holder.
func (s *Service) Purger(holder string, log *slog.Logger) *Purger {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Purger{s: s, Holder: holder, Batch: DefaultPurgeBatch, Lease: time.Minute, log: log}
}

// Purged is what one run of a purger did.
type Purged struct {
	// Tenants are the companies it finished.
	Tenants []string
	Rows    int64
	// Busy says another holder had the lease: it did nothing.
	Busy bool
}

// Run purges every company due now, under the lease, and returns what it
// removed. It stops, between two batches, when ctx ends or the lease is
// lost; the next run goes on where it stopped.
func (p *Purger) Run(ctx context.Context) (Purged, error) {
	var out Purged
	held, err := p.s.store.TakeLease(ctx, PurgeLease, p.Holder, p.s.now(), p.Lease)
	if err != nil || !held {
		out.Busy = !held
		return out, err
	}
	defer p.s.store.ReleaseLease(context.WithoutCancel(ctx), PurgeLease, p.Holder)
	for {
		due, err := p.s.store.TenantsDue(ctx, p.s.now(), 10)
		if err != nil || len(due) == 0 {
			return out, err
		}
		for _, id := range due {
			n, err := p.purge(ctx, id)
			out.Rows += n
			if err != nil {
				return out, err
			}
			out.Tenants = append(out.Tenants, id)
		}
	}
}

// purge removes one company, batch by batch, renewing the lease at each.
func (p *Purger) purge(ctx context.Context, tenantID string) (int64, error) {
	var rows int64
	start := time.Now()
	for {
		if err := ctx.Err(); err != nil {
			return rows, err
		}
		held, err := p.s.store.TakeLease(ctx, PurgeLease, p.Holder, p.s.now(), p.Lease)
		if err != nil {
			return rows, err
		}
		if !held {
			return rows, fmt.Errorf("purge of %s: the lease passed to another instance", tenantID)
		}
		n, done, err := p.s.store.PurgeTenantStep(ctx, tenantID, p.s.now(), p.Batch)
		rows += n
		if err != nil {
			return rows, err
		}
		if done {
			break
		}
	}
	// The purge's trace outlives the company: outside any company, the
	// operator's (vitrine audit list --outside), beside deleted_tenants.
	call := vitrine.OperatorCall("purge_tenant", tenantID)
	if e := (vitrine.Change{Call: call}).Event(vitrine.NoTenant, tenantID); e != nil {
		if err := p.s.store.AppendAudit(ctx, []*vitrine.AuditEvent{e}); err != nil {
			return rows, fmt.Errorf("record the purge of %s: %w", tenantID, err)
		}
	}
	p.log.Info("company purged", "tenant_id", tenantID, "rows", rows, "duration", time.Since(start))
	return rows, nil
}
