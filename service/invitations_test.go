package service_test

import (
	"slices"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service"
)

// add_member answers the same whether the email belongs to a user, to
// nobody, to a disabled user or to someone already invited, so that it
// tells nobody who has an account; its refusals are the same too. Only
// an existing member, whom list_members shows anyway, is a conflict.
func TestInviteAnswersTheSameForAnyEmail(t *testing.T) {
	const rule = "add_member gives the same answer for registered and unknown emails"
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		for _, c := range []struct {
			name, by, address, role string
			setup                   func(tm *team)
			want                    outcome
			invited                 string // who holds an invitation after it, if anyone
		}{
			{name: "a registered user", by: "adam", address: email("nina"), role: vitrine.RoleMember, want: allowed, invited: "nina"},
			{name: "an unknown email", by: "adam", address: "ghost@example.com", role: vitrine.RoleMember, want: allowed},
			{name: "a disabled user", by: "adam", address: email("dave"), role: vitrine.RoleMember, want: allowed},
			{name: "a user already invited", by: "adam", address: email("nina"), role: vitrine.RoleMember, want: allowed, invited: "nina",
				setup: func(tm *team) { tm.must(second(tm.invite("olga", email("nina"), vitrine.RoleMember))) }},
			{name: "a registered user, with a role above the caller's", by: "adam", address: email("nina"), role: vitrine.RoleOwner, want: denied},
			{name: "an unknown email, with a role above the caller's", by: "adam", address: "ghost@example.com", role: vitrine.RoleOwner, want: denied},
			{name: "a registered user, with a role that does not exist", by: "adam", address: email("nina"), role: "nope", want: notFound("Role")},
			{name: "an unknown email, with a role that does not exist", by: "adam", address: "ghost@example.com", role: "nope", want: notFound("Role")},
			{name: "a registered user, by a caller without members:manage", by: "mia", address: email("nina"), role: vitrine.RoleViewer, want: denied},
			{name: "an unknown email, by a caller without members:manage", by: "mia", address: "ghost@example.com", role: vitrine.RoleViewer, want: denied},
			{name: "an active member", by: "adam", address: email("mia"), role: vitrine.RoleViewer, want: outcome{typ: vitrine.ConflictError}},
			{name: "an inactive member", by: "adam", address: email("mia"), role: vitrine.RoleViewer, want: outcome{typ: vitrine.ConflictError},
				setup: func(tm *team) { tm.must(tm.updateMember("adam", "mia", deactivate)) }},
		} {
			t.Run(c.name, func(t *testing.T) {
				tm := w.newTeam(t)
				if c.setup != nil {
					c.setup(tm)
				}
				inv, err := tm.invite(c.by, c.address, c.role)
				c.want.check(t, rule, err)
				if err == nil {
					want := service.Invitation{Email: c.address, Role: c.role, Status: vitrine.MembershipInvited}
					if inv == nil || *inv != want {
						t.Errorf("%s: answered %+v, want %+v", rule, inv, want)
					}
				}
				for _, name := range people {
					if got := len(tm.invitations(name)) > 0; got != (name == c.invited) {
						t.Errorf("%s: %s holds an invitation: %v", c.name, name, got)
					}
				}
			})
		}
	})
}

// An invitation grants nothing until its invitee accepts it: no access,
// no place in the team, nothing the team may change or count.
func TestInvitedGrantsNothing(t *testing.T) {
	const rule = "an invited membership grants nothing"
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		for _, c := range []struct {
			name string
			act  func(tm *team) error
			want outcome
		}{
			{name: "the invitee calls into the company", want: noMembership,
				act: func(tm *team) error { return second(tm.svc.Access(ctx, tm.caller("nina"), tm.id)) }},
			{name: "an owner changes the invitee's role", want: notFound("Member"),
				act: func(tm *team) error {
					return tm.updateMember("olga", "nina", service.MemberChanges{Role: vitrine.RoleViewer})
				}},
			{name: "an owner activates the invitation", want: notFound("Member"),
				act: func(tm *team) error { return tm.updateMember("olga", "nina", reactivate) }},
			{name: "an owner grants the invitee a permission", want: notFound("Member"),
				act: func(tm *team) error { return tm.grant("olga", "nina", vitrine.AuditRead) }},
			{name: "an owner removes the invitee", want: notFound("Member"),
				act: func(tm *team) error { return tm.remove("olga", "nina") }},
		} {
			t.Run(c.name, func(t *testing.T) {
				tm := w.newTeam(t)
				tm.must(second(tm.invite("olga", email("nina"), vitrine.RoleOwner)))
				c.want.check(t, rule, c.act(tm))
				if inv := tm.invitations("nina"); len(inv) != 1 || inv[0].Role != vitrine.RoleOwner {
					t.Errorf("%s: nina's invitations are now %+v", rule, inv)
				}
			})
		}
		// Nor does the invitee see the company, nor the team the invitee.
		tm := w.newTeam(t)
		tm.must(second(tm.invite("olga", email("nina"), vitrine.RoleAdmin)))
		tenants, err := w.svc.Tenants(ctx, tm.caller("nina"))
		if err != nil || len(tenants) != 0 {
			t.Errorf("%s: the invitee's companies are %+v, %v", rule, tenants, err)
		}
		page, err := w.svc.ListMembers(ctx, tm.as("olga"), vitrine.MaxPageLimit, "")
		if err != nil || slices.ContainsFunc(page.Members, func(m *vitrine.Member) bool { return m.UserID == w.ids["nina"] }) {
			t.Errorf("%s: list_members shows the invitee: %v", rule, err)
		}
	})
}

// The invitee, and only the invitee, answers an invitation: accepting makes
// it an active membership with the role it was made with, declining
// deletes it; either way it is answered once.
func TestAnswerInvitation(t *testing.T) {
	const rule = "the invitee accepts or declines an invitation"
	notInvited := notFound("Invitation")
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		for _, c := range []struct {
			name string
			act  func(tm *team) error
			want outcome
			// role is nina's role afterwards, "" for no access; pending,
			// whether her invitation is still there.
			role    string
			pending bool
		}{
			{name: "accept", want: allowed, role: vitrine.RoleAdmin,
				act: func(tm *team) error { return tm.accept(tm.caller("nina"), tm.id) }},
			{name: "decline", want: allowed,
				act: func(tm *team) error { return tm.decline(tm.caller("nina"), tm.id) }},
			{name: "accept twice", want: notInvited, role: vitrine.RoleAdmin,
				act: func(tm *team) error {
					tm.must(tm.accept(tm.caller("nina"), tm.id))
					return tm.accept(tm.caller("nina"), tm.id)
				}},
			{name: "decline an accepted invitation", want: notInvited, role: vitrine.RoleAdmin,
				act: func(tm *team) error {
					tm.must(tm.accept(tm.caller("nina"), tm.id))
					return tm.decline(tm.caller("nina"), tm.id)
				}},
			{name: "accept a declined invitation", want: notInvited,
				act: func(tm *team) error {
					tm.must(tm.decline(tm.caller("nina"), tm.id))
					return tm.accept(tm.caller("nina"), tm.id)
				}},
			{name: "invited again after declining, accept", want: allowed, role: vitrine.RoleViewer,
				act: func(tm *team) error {
					tm.must(tm.decline(tm.caller("nina"), tm.id))
					tm.must(second(tm.invite("olga", email("nina"), vitrine.RoleViewer)))
					return tm.accept(tm.caller("nina"), tm.id)
				}},
			{name: "accept with a read-only token", want: denied, pending: true,
				act: func(tm *team) error {
					c := tm.caller("nina")
					c.Token.ReadOnly = true
					return tm.accept(c, tm.id)
				}},
			{name: "decline with a read-only token", want: denied, pending: true,
				act: func(tm *team) error {
					c := tm.caller("nina")
					c.Token.ReadOnly = true
					return tm.decline(c, tm.id)
				}},
			{name: "accept into a company that does not exist", want: notInvited, pending: true,
				act: func(tm *team) error { return tm.accept(tm.caller("nina"), vitrine.NewID()) }},
			{name: "accept into a malformed id", want: notInvited, pending: true,
				act: func(tm *team) error { return tm.accept(tm.caller("nina"), "id-invalido") }},
			{name: "someone else accepts it", want: notInvited, pending: true,
				act: func(tm *team) error { return tm.accept(tm.caller("owen"), tm.id) }},
			{name: "an active member accepts", want: notInvited, pending: true,
				act: func(tm *team) error { return tm.accept(tm.caller("mia"), tm.id) }},
			{name: "an inactive member accepts", want: notInvited, pending: true,
				act: func(tm *team) error {
					tm.must(tm.updateMember("adam", "mia", deactivate))
					err := tm.accept(tm.caller("mia"), tm.id)
					if _, err := tm.membership("mia"); err == nil {
						tm.t.Errorf("%s: an inactive member regained access by accepting", rule)
					}
					return err
				}},
			{name: "someone else declines it", want: notInvited, pending: true,
				act: func(tm *team) error { return tm.decline(tm.caller("owen"), tm.id) }},
			{name: "an active member declines", want: notInvited, pending: true,
				act: func(tm *team) error {
					err := tm.decline(tm.caller("mia"), tm.id)
					if _, err := tm.membership("mia"); err != nil {
						tm.t.Errorf("%s: declining removed an active member: %v", rule, err)
					}
					return err
				}},
		} {
			t.Run(c.name, func(t *testing.T) {
				tm := w.newTeam(t)
				tm.must(second(tm.invite("adam", email("nina"), vitrine.RoleAdmin)))
				c.want.check(t, rule, c.act(tm))
				m, err := tm.membership("nina")
				switch {
				case c.role == "":
					noMembership.check(t, rule+": no access", err)
				case err != nil:
					t.Errorf("%s: nina has no access: %v", rule, err)
				case m.Role != c.role || m.Status != vitrine.MembershipActive || m.Permissions() != roleOf(c.role):
					t.Errorf("%s: nina's membership is %+v, want the role %s and its permissions", rule, m, c.role)
				}
				if pending := len(tm.invitations("nina")) > 0; pending != c.pending {
					t.Errorf("%s: nina's invitation pending: %v, want %v", rule, pending, c.pending)
				}
				tenants, err := tm.svc.Tenants(ctx, tm.caller("nina"))
				if err != nil {
					t.Fatal(err)
				}
				if listed := slices.ContainsFunc(tenants, func(ta service.TenantAccess) bool { return ta.Tenant.ID == tm.id }); listed != (c.role != "") {
					t.Errorf("%s: list_tenants shows the company: %v", rule, listed)
				}
			})
		}
	})
}

func roleOf(name string) vitrine.PermissionSet {
	return vitrine.NewPermissionSet(specRoles[name]...)
}
