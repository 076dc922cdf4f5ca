package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
)

// companyTools are the tools of a company's whole life (toolset company).
func companyTools(opts Options) []*Tool {
	grace := opts.DeletionGrace
	if grace <= 0 {
		grace = vitrine.DefaultDeletionGrace
	}
	return []*Tool{
		tenantTool(Tool{
			Name:        "delete_tenant",
			Title:       "Delete a company",
			Description: fmt.Sprintf("Schedule the company's deletion in %s: closed at once, restorable until then. The user may have to confirm.", days(grace)),
			Toolset:     "company", Op: service.OpDeleteTenant, Destructive: true, TargetArg: "tenant_id",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, _ shapes.DeleteTenantIn) (shapes.DeleteTenantOut, error) {
			// Asked whenever the client can ask, whatever
			// --confirm-destructive says: a whole company goes.
			if declined, err := confirmDeletion(ctx, svc, a, tenantDeletion(ctx, svc, a, grace)); err != nil || declined != "" {
				return shapes.DeleteTenantOut{ID: a.TenantID, Message: declined}, err
			}
			t, err := svc.DeleteTenant(ctx, a, grace)
			if err != nil {
				return shapes.DeleteTenantOut{}, err
			}
			return shapes.DeleteTenantOut{ID: t.Tenant.ID, DeletesAt: &t.Tenant.DeletesAt}, nil
		}),
		tenantTool(Tool{
			Name:        "restore_tenant",
			Title:       "Restore a company",
			Description: "Cancel a company's scheduled deletion; it comes back whole.",
			Toolset:     "company", Op: service.OpRestoreTenant, Idempotent: true, TargetArg: "tenant_id", ResultAs: "get_tenant",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, _ shapes.GetTenantIn) (shapes.TenantOut, error) {
			return shapes.TenantOf(svc.RestoreTenant(ctx, a))
		}),
	}
}

// tenantDeletion is the confirmation of delete_tenant.
func tenantDeletion(ctx context.Context, svc *service.Service, a *service.Access, grace time.Duration) deletion {
	return deletion{noun: "company", id: a.TenantID, question: func() (string, string, error) {
		t, err := svc.Tenant(ctx, a)
		if err != nil {
			return "", "", err
		}
		return fmt.Sprintf("Delete the company %q (%s) and everything in it? It closes now, and its owner can restore it for %s; then it is gone for good.",
				t.Tenant.Name, t.Tenant.Slug, days(grace)),
			"Check to delete the company.", nil
	}}
}

// days says a grace in days, or in hours when shorter than two days.
func days(d time.Duration) string {
	if d < 48*time.Hour {
		return fmt.Sprintf("%.0f hours", d.Hours())
	}
	return fmt.Sprintf("%.0f days", d.Hours()/24)
}
