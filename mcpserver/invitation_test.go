package mcpserver_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

const noMembership = `{"error":true,"type":"Error","message":"Membership not found or inactive"}`

// add_member invites: the answer is the same for a registered email and an
// unknown one, the invitation opens nothing and changes nothing the
// company sees, and only its invitee accepts or declines it.
func TestInvitations(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova, verdeTenant := w.tenants["technova"], w.tenants["mercado-verde"]
		ana, marina, diego := w.session("memory", owner), w.session("memory", verde), w.session("memory", viewer)
		marinaID := w.userID(verde)

		known, _ := testkit.Call(t, ana, "add_member", map[string]any{"tenant_id": technova, "email": verde, "role": "viewer"})
		unknown, _ := testkit.Call(t, ana, "add_member", map[string]any{"tenant_id": technova, "email": "nobody@nowhere.example", "role": "viewer"})
		again, _ := testkit.Call(t, ana, "add_member", map[string]any{"tenant_id": technova, "email": verde, "role": "viewer"})
		if want := strings.ReplaceAll(unknown, "nobody@nowhere.example", verde); known != want || again != want {
			t.Errorf("add_member tells accounts apart:\n%s\n%s\n%s", known, unknown, again)
		}

		// Invited: nothing opens, and the company sees no member to change.
		testkit.Fails(t, marina, "list_products", map[string]any{"tenant_id": technova}, noMembership)
		for _, tn := range testkit.OK[struct{ Tenants []struct{ ID string } }](t, marina, "list_tenants", nil).Tenants {
			if tn.ID == technova {
				t.Error("an invitation shows in list_tenants")
			}
		}
		for _, m := range testkit.OK[struct{ Members []memberRec }](t, ana, "list_members", map[string]any{"tenant_id": technova, "limit": 100}).Members {
			if m.UserID == marinaID {
				t.Error("an invitation shows in list_members")
			}
		}
		notFound := `{"error":true,"type":"NotFoundError","message":"Member not found"}`
		testkit.Fails(t, ana, "update_member", map[string]any{"tenant_id": technova, "user_id": marinaID, "status": "active"}, notFound)
		testkit.Fails(t, ana, "grant_permission", map[string]any{"tenant_id": technova, "user_id": marinaID, "permission": "products:read"}, notFound)

		// The invitee sees it and accepts it, once.
		invs := testkit.OK[struct {
			Invitations []struct {
				TenantID   string `json:"tenant_id"`
				TenantName string `json:"tenant_name"`
				Role       string
			}
		}](t, marina, "list_invitations", nil)
		if len(invs.Invitations) != 1 || invs.Invitations[0].TenantID != technova || invs.Invitations[0].Role != "viewer" {
			t.Fatalf("list_invitations: %+v", invs)
		}
		noInvitation := `{"error":true,"type":"NotFoundError","message":"Invitation not found"}`
		testkit.Fails(t, diego, "accept_invitation", map[string]any{"tenant_id": technova}, noInvitation) // already a member
		testkit.Fails(t, marina, "accept_invitation", map[string]any{"tenant_id": "id-invalido"}, noInvitation)
		if got := testkit.OK[map[string]any](t, marina, "accept_invitation", map[string]any{"tenant_id": technova}); got["role"] != "viewer" {
			t.Errorf("accept_invitation: %v", got)
		}
		testkit.OK[productList](t, marina, "list_products", map[string]any{"tenant_id": technova})
		testkit.Fails(t, marina, "accept_invitation", map[string]any{"tenant_id": technova}, noInvitation)

		// Declined, it is gone.
		testkit.OK[map[string]any](t, marina, "add_member", map[string]any{"tenant_id": verdeTenant, "email": viewer, "role": "member"})
		testkit.OK[map[string]any](t, diego, "decline_invitation", map[string]any{"tenant_id": verdeTenant})
		if invs := testkit.OK[map[string]any](t, diego, "list_invitations", nil); len(invs["invitations"].([]any)) != 0 {
			t.Errorf("after decline: %v", invs)
		}
		testkit.Fails(t, diego, "list_products", map[string]any{"tenant_id": verdeTenant}, noMembership)
		testkit.Fails(t, diego, "accept_invitation", map[string]any{"tenant_id": verdeTenant}, noInvitation)
	})
}

// A lookalike company's derived slug says nothing of how many companies
// of that name exist.
func TestDerivedSlugRevealsNoCount(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	got := testkit.OK[map[string]any](t, w.session("memory", member), "create_tenant", map[string]any{"name": "Mercado Verde"})
	if slug := got["slug"].(string); !regexp.MustCompile(`^mercado-verde-[a-z0-9]{6}$`).MatchString(slug) {
		t.Errorf("slug %q", slug)
	}
}

// The whole server on PostgreSQL as a plain database owner (no superuser,
// BYPASSRLS or CREATEROLE): it migrates, serves, and keeps companies apart.
func TestServeAsPlainDatabaseOwner(t *testing.T) {
	w := newWorld(t, dbtest.PostgresOwnerURL(t))
	technova := w.tenants["technova"]
	cs := w.session("http", owner)
	testkit.OK[product](t, cs, "create_product", map[string]any{"tenant_id": technova, "sku": "OWN-1", "name": "Owned", "price": "1.00"})
	if got := testkit.OK[productList](t, cs, "list_products", map[string]any{"tenant_id": technova, "query": "owned"}); len(got.Products) != 1 {
		t.Errorf("list_products: %+v", got)
	}
	testkit.Fails(t, w.session("http", verde), "list_products", map[string]any{"tenant_id": technova}, noMembership)
}
