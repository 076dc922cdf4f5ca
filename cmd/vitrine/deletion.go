package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// TenantDeleteCmd schedules a company's deletion, or purges it at once.
type TenantDeleteCmd struct {
	Tenant string        `arg:"" placeholder:"ID|SLUG" help:"The company, by id or slug."`
	Now    bool          `help:"Purge it now, every row of it, rather than after the grace period: it cannot be undone."`
	Grace  time.Duration `default:"720h" help:"How long it stays restorable before vitrine serve purges it (serve's --grace decides nothing for a company scheduled already)."`
	JSON   bool          `name:"json" help:"Print the result as one JSON object."`
}

// Run schedules the deletion, and with --now purges the company.
func (c *TenantDeleteCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	op := svc.Operator().Command("vitrine tenant delete")
	if !c.Now {
		t, err := op.DeleteTenant(e.ctx, c.Tenant, c.Grace)
		if err != nil {
			return err
		}
		return e.print(c.JSON, map[string]any{"id": t.ID, "slug": t.Slug, "deletes_at": t.DeletesAt},
			"Company %q (%s) is scheduled for deletion on %s; vitrine tenant restore %s brings it back until then",
			t.Name, t.Slug, t.DeletesAt.Format(time.RFC3339), t.Slug)
	}
	// Scheduled already, its deletion is made due now: one change (the
	// request's who and when kept), not a restore and a new deletion.
	t, hastened, err := op.Command("vitrine tenant delete --now").DeleteTenantNow(e.ctx, c.Tenant)
	if err != nil {
		return err
	}
	if hastened && !c.JSON {
		fmt.Fprintf(e.stderr, "Company %q (%s) was scheduled for deletion; purging it now\n", t.Name, t.Slug)
	}
	// The purge of serve's instances may be under way: wait for the lease.
	p := svc.Purger("vitrine tenant delete "+vitrine.NewID(), nil)
	start := time.Now()
	for {
		got, err := p.Run(e.ctx)
		if err != nil {
			return err
		}
		if !got.Busy {
			break
		}
		time.Sleep(time.Second)
	}
	records, err := op.DeletedTenants(e.ctx, 100)
	if err != nil {
		return err
	}
	for _, r := range records {
		if r.ID == t.ID && !r.PurgedAt.IsZero() {
			return e.print(c.JSON, map[string]any{"id": r.ID, "slug": r.Slug, "purged_at": r.PurgedAt, "rows_removed": r.RowsRemoved},
				"Company %q (%s) purged: %d rows removed in %s", r.Name, r.Slug, r.RowsRemoved, time.Since(start).Round(time.Millisecond))
		}
	}
	return fmt.Errorf("the purge of %s did not finish; vitrine serve finishes it, or run this command again", t.Slug)
}

// TenantRestoreCmd cancels a company's scheduled deletion.
type TenantRestoreCmd struct {
	Tenant string `arg:"" placeholder:"ID|SLUG" help:"The company, by id or slug."`
	JSON   bool   `name:"json" help:"Print the company as one JSON object."`
}

// Run restores the company.
func (c *TenantRestoreCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	t, err := svc.Operator().Command("vitrine tenant restore").RestoreTenant(e.ctx, c.Tenant)
	if err != nil {
		return err
	}
	return e.print(c.JSON, map[string]any{"id": t.ID, "slug": t.Slug, "name": t.Name},
		"Company %q (%s) restored: it is no longer scheduled for deletion", t.Name, t.Slug)
}

// TenantDeletedCmd lists the companies deleted: the records that outlive them.
type TenantDeletedCmd struct {
	JSON bool `name:"json" help:"Print one JSON object per deletion."`
}

// Run lists the deletions, newest first.
func (c *TenantDeletedCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	records, err := svc.Operator().DeletedTenants(e.ctx, 1000)
	if err != nil {
		return err
	}
	l := e.lister(c.JSON, "ID\tSLUG\tNAME\tREQUESTED\tBY\tPURGED\tROWS")
	for _, r := range records {
		by, purged := r.RequestedBy, "under way"
		if by == "" {
			by = "operator"
		}
		if !r.PurgedAt.IsZero() {
			purged = r.PurgedAt.Format(time.RFC3339)
		}
		if err := l.row(map[string]any{"id": r.ID, "slug": r.Slug, "name": r.Name, "requested_at": r.RequestedAt, "requested_by": r.RequestedBy,
			"purge_started_at": r.PurgeStartedAt, "purged_at": r.PurgedAt, "rows_removed": r.RowsRemoved},
			r.ID, r.Slug, r.Name, r.RequestedAt.Format(time.RFC3339), by, purged, fmt.Sprint(r.RowsRemoved)); err != nil {
			return err
		}
	}
	return l.done()
}

// purgeHolder names this process in the purge's lease.
func purgeHolder() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), vitrine.NewID())
}

// purgeEvery runs the purger every so often until ctx ends: each run
// purges the companies due, or finds another instance doing it.
func purgeEvery(ctx context.Context, p *service.Purger, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if got, err := p.Run(ctx); err != nil && ctx.Err() == nil {
			log.Error("purge of deleted companies", "err", err, "purged", len(got.Tenants), "rows", got.Rows)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// UserDeleteCmd erases a person.
type UserDeleteCmd struct {
	Email string `arg:"" help:"The person's email."`
	JSON  bool   `name:"json" help:"Print the result as one JSON object."`
}

// Run erases the user: refused while they are a company's only owner.
func (c *UserDeleteCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	u, err := svc.Operator().Command("vitrine user delete").DeleteUser(e.ctx, c.Email)
	if err != nil {
		return err
	}
	return e.print(c.JSON, map[string]any{"id": u.ID, "deleted": true},
		"Deleted user %s: memberships, tokens, apps and sessions ended, name and email erased; their events stay under this id", u.ID)
}
