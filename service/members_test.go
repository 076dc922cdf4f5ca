package service_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service"
)

var (
	demote     = service.MemberChanges{Role: vitrine.RoleAdmin}
	deactivate = service.MemberChanges{Status: string(vitrine.MembershipInactive)}
	reactivate = service.MemberChanges{Status: string(vitrine.MembershipActive)}
	makeOwner  = service.MemberChanges{Role: vitrine.RoleOwner}
)

// A company always keeps at least one active owner: demoting, deactivating
// or removing the last one is refused, whoever asks.
func TestLastOwner(t *testing.T) {
	const rule = "a tenant always keeps at least one active owner"
	secondOwner := func(status string) func(tm *team) {
		return func(tm *team) { tm.add("owen", vitrine.RoleOwner, status) }
	}
	var cases []teamCase
	for _, by := range []string{"olga", operator} {
		who := "the last owner herself"
		if by == operator {
			who = "the operator"
		}
		cases = append(cases,
			teamCase{rule: rule, name: who + " demotes the last owner", want: lastOwner,
				act: func(tm *team) error { return tm.updateMember(by, "olga", demote) }},
			teamCase{rule: rule, name: who + " deactivates the last owner", want: lastOwner,
				act: func(tm *team) error { return tm.updateMember(by, "olga", deactivate) }},
			teamCase{rule: rule, name: who + " removes the last owner", want: lastOwner,
				act: func(tm *team) error { return tm.remove(by, "olga") }},
			teamCase{rule: rule, name: who + " gives the last owner a custom role holding every permission", want: lastOwner,
				act: func(tm *team) error { return tm.updateMember(by, "olga", service.MemberChanges{Role: "super"}) }},
			teamCase{rule: rule, name: who + " demotes and deactivates the last owner at once", want: lastOwner,
				act: func(tm *team) error {
					return tm.updateMember(by, "olga", service.MemberChanges{Role: vitrine.RoleViewer, Status: "inactive"})
				}},
			teamCase{rule: rule, name: who + ": an inactive owner does not count", setup: secondOwner("inactive"), want: lastOwner,
				act: func(tm *team) error { return tm.updateMember(by, "olga", demote) }},
			teamCase{rule: rule, name: who + ": a removed owner does not count", want: lastOwner,
				setup: func(tm *team) { secondOwner("active")(tm); tm.must(tm.remove("olga", "owen")) },
				act:   func(tm *team) error { return tm.remove(by, "olga") }},
		)
	}
	cases = append(cases,
		teamCase{rule: rule + ": an invited owner does not count", name: "the last owner steps down beside an invited owner", want: lastOwner,
			setup: func(tm *team) { tm.must(second(tm.invite("olga", email("owen"), vitrine.RoleOwner))) },
			act:   func(tm *team) error { return tm.updateMember("olga", "olga", demote) }},
		teamCase{rule: rule + ", and only an owner changes an owner", name: "an admin demotes the last owner", want: denied,
			act: func(tm *team) error { return tm.updateMember("adam", "olga", demote) }},
		teamCase{rule: rule + ", and only an owner changes an owner", name: "an admin removes the last owner", want: denied,
			act: func(tm *team) error { return tm.remove("adam", "olga") }},
		// The other owner, once they are the last one.
		teamCase{rule: rule, name: "the other owner, having demoted the first, demotes himself", want: lastOwner,
			setup: func(tm *team) { secondOwner("active")(tm); tm.must(tm.updateMember("owen", "olga", demote)) },
			act:   func(tm *team) error { return tm.updateMember("owen", "owen", demote) }},
		teamCase{rule: rule, name: "the other owner, having deactivated the first, removes himself", want: lastOwner,
			setup: func(tm *team) { secondOwner("active")(tm); tm.must(tm.updateMember("owen", "olga", deactivate)) },
			act:   func(tm *team) error { return tm.remove("owen", "owen") }},
		// While another owner is active, an owner may step down.
		teamCase{rule: rule + " (not the last)", name: "an owner demotes herself beside another active owner", want: allowed,
			setup: secondOwner("active"), act: func(tm *team) error { return tm.updateMember("olga", "olga", demote) }},
		teamCase{rule: rule + " (not the last)", name: "an owner deactivates herself beside another active owner", want: allowed,
			setup: secondOwner("active"), act: func(tm *team) error { return tm.updateMember("olga", "olga", deactivate) }},
		teamCase{rule: rule + " (not the last)", name: "an owner leaves beside another active owner", want: allowed,
			setup: secondOwner("active"), act: func(tm *team) error { return tm.remove("olga", "olga") }},
		teamCase{rule: rule + " (not the last)", name: "the operator removes an owner beside another active owner", want: allowed,
			setup: secondOwner("active"), act: func(tm *team) error { return tm.remove(operator, "olga") }},
	)
	runTeamCases(t, cases)
}

// Nobody grants a permission they lack, or gives a role that holds more
// than they hold: by grant_permission, add_member, or update_member.
func TestNobodyGivesMoreThanTheyHold(t *testing.T) {
	const rule = "nobody grants a permission or a role beyond what they hold"
	grant := func(by, who string, p vitrine.Permission) func(*team) error {
		return func(tm *team) error { return tm.grant(by, who, p) }
	}
	invite := func(by, role string) func(*team) error {
		return func(tm *team) error { return second(tm.invite(by, email("nina"), role)) }
	}
	setRole := func(by, who, role string) func(*team) error {
		return func(tm *team) error { return tm.updateMember(by, who, service.MemberChanges{Role: role}) }
	}
	runTeamCases(t, []teamCase{
		{rule: rule, name: "grant: an admin grants tenants:delete", act: grant("adam", "mia", vitrine.TenantsDelete), want: denied},
		{rule: rule, name: "grant: an admin grants himself tenants:delete", act: grant("adam", "adam", vitrine.TenantsDelete), want: denied},
		{rule: rule, name: "grant: an admin grants products:delete", act: grant("adam", "mia", vitrine.ProductsDelete), want: allowed},
		{rule: rule, name: "grant: a member who manages members grants products:delete", act: grant("max", "vic", vitrine.ProductsDelete), want: denied},
		{rule: rule, name: "grant: a member who manages members grants himself roles:manage", act: grant("max", "max", vitrine.RolesManage), want: denied},
		{rule: rule, name: "grant: a member who manages members grants products:create, of his role", act: grant("max", "vic", vitrine.ProductsCreate), want: allowed},
		{rule: rule, name: "grant: a member who manages members grants members:manage, of his grant", act: grant("max", "vic", vitrine.MembersManage), want: allowed},
		{rule: rule, name: "grant: an owner grants tenants:delete", act: grant("olga", "mia", vitrine.TenantsDelete), want: allowed},
		{rule: rule, name: "revoke: an admin revokes tenants:delete, which he lacks", act: func(tm *team) error { return tm.revoke("adam", "dora", vitrine.TenantsDelete) }, want: denied},

		{rule: rule, name: "add_member: an admin invites an admin", act: invite("adam", vitrine.RoleAdmin), want: allowed},
		{rule: rule, name: "add_member: an admin invites with a custom role holding tenants:delete", act: invite("adam", "destroyer"), want: denied},
		{rule: rule, name: "add_member: an admin invites with a custom role within his own", act: invite("adam", "ops"), want: allowed},
		{rule: rule, name: "add_member: a member who manages members invites an admin", act: invite("max", vitrine.RoleAdmin), want: denied},
		{rule: rule, name: "add_member: a member who manages members invites a member", act: invite("max", vitrine.RoleMember), want: allowed},
		{rule: rule, name: "add_member: a member who manages members invites a viewer", act: invite("max", vitrine.RoleViewer), want: allowed},
		{rule: rule, name: "add_member: a member who manages members invites with a role of every permission", act: invite("max", "super"), want: denied},

		{rule: rule, name: "update_member: an admin makes a member admin", act: setRole("adam", "mia", vitrine.RoleAdmin), want: allowed},
		{rule: rule, name: "update_member: an admin gives a custom role holding tenants:delete", act: setRole("adam", "mia", "destroyer"), want: denied},
		{rule: rule, name: "update_member: an admin gives a custom role of every permission", act: setRole("adam", "vic", "super"), want: denied},
		{rule: rule, name: "update_member: an owner gives a custom role holding tenants:delete", act: setRole("olga", "mia", "destroyer"), want: allowed},
		{rule: rule, name: "update_member: a member who manages members makes a viewer member", act: setRole("max", "vic", vitrine.RoleMember), want: allowed},
		{rule: rule, name: "update_member: a member who manages members makes a viewer admin", act: setRole("max", "vic", vitrine.RoleAdmin), want: denied},
		{rule: rule, name: "update_member: a member who manages members makes himself admin", act: setRole("max", "max", vitrine.RoleAdmin), want: denied},
	})
}

// Nobody changes a member who holds more than they do: not their role, nor
// their status, nor their grants, nor their membership.
func TestNobodyChangesWhoHoldsMore(t *testing.T) {
	const rule = "nobody changes a member who holds more than they do"
	runTeamCases(t, []teamCase{
		{rule: rule, name: "an admin makes a member with tenants:delete a viewer", want: denied,
			act: func(tm *team) error {
				return tm.updateMember("adam", "dora", service.MemberChanges{Role: vitrine.RoleViewer})
			}},
		{rule: rule, name: "an admin deactivates a member with tenants:delete", want: denied,
			act: func(tm *team) error { return tm.updateMember("adam", "dora", deactivate) }},
		{rule: rule, name: "an admin removes a member with tenants:delete", want: denied,
			act: func(tm *team) error { return tm.remove("adam", "dora") }},
		{rule: rule, name: "an admin grants products:delete to a member with tenants:delete", want: denied,
			act: func(tm *team) error { return tm.grant("adam", "dora", vitrine.ProductsDelete) }},
		{rule: rule, name: "a member who manages members deactivates an admin", want: denied,
			act: func(tm *team) error { return tm.updateMember("max", "adam", deactivate) }},
		{rule: rule, name: "a member who manages members removes an admin", want: denied,
			act: func(tm *team) error { return tm.remove("max", "adam") }},
		{rule: rule + " (within reach)", name: "an admin deactivates a member", want: allowed,
			act: func(tm *team) error { return tm.updateMember("adam", "mia", deactivate) }},
		{rule: rule + " (within reach)", name: "an admin removes a member", want: allowed,
			act: func(tm *team) error { return tm.remove("adam", "mia") }},
		{rule: rule + " (within reach)", name: "an owner removes a member with tenants:delete", want: allowed,
			act: func(tm *team) error { return tm.remove("olga", "dora") }},
	})
}

// Only an owner changes an owner (role, status, grants, membership) or
// makes one: holding every permission is not enough.
func TestOnlyAnOwnerChangesAnOwner(t *testing.T) {
	const rule = "only an owner changes an owner"
	const makes = "only an owner makes an owner"
	var cases []teamCase
	for _, by := range []string{"adam", "ada", "sam"} {
		who := map[string]string{"adam": "an admin", "ada": "an admin holding every permission",
			"sam": "a custom role of every permission"}[by]
		cases = append(cases,
			teamCase{rule: rule, name: who + " demotes an owner", want: denied,
				act: func(tm *team) error { return tm.updateMember(by, "owen", demote) }},
			teamCase{rule: rule, name: who + " deactivates an owner", want: denied,
				act: func(tm *team) error { return tm.updateMember(by, "owen", deactivate) }},
			teamCase{rule: rule, name: who + " removes an owner", want: denied,
				act: func(tm *team) error { return tm.remove(by, "owen") }},
			teamCase{rule: rule, name: who + " revokes a grant of an owner", want: denied,
				setup: func(tm *team) { tm.must(tm.grant("olga", "owen", vitrine.AuditRead)) },
				act:   func(tm *team) error { return tm.revoke(by, "owen", vitrine.AuditRead) }},
			teamCase{rule: makes, name: who + " makes a member owner", want: denied,
				act: func(tm *team) error { return tm.updateMember(by, "mia", makeOwner) }},
			teamCase{rule: makes, name: who + " invites an owner", want: denied,
				act: func(tm *team) error { return second(tm.invite(by, email("nina"), vitrine.RoleOwner)) }},
		)
	}
	cases = append(cases,
		teamCase{rule: rule, name: "an owner demotes another owner", want: allowed,
			act: func(tm *team) error { return tm.updateMember("olga", "owen", demote) }},
		teamCase{rule: rule, name: "an owner deactivates another owner", want: allowed,
			act: func(tm *team) error { return tm.updateMember("olga", "owen", deactivate) }},
		teamCase{rule: rule, name: "an owner removes another owner", want: allowed,
			act: func(tm *team) error { return tm.remove("olga", "owen") }},
		teamCase{rule: makes, name: "an owner makes a member owner", want: allowed,
			act: func(tm *team) error { return tm.updateMember("olga", "mia", makeOwner) }},
		teamCase{rule: makes, name: "an owner invites an owner", want: allowed,
			act: func(tm *team) error { return second(tm.invite("olga", email("nina"), vitrine.RoleOwner)) }},
		teamCase{rule: makes + " (the operator is outside the rule)", name: "the operator makes a member owner", want: allowed,
			act: func(tm *team) error { return tm.updateMember(operator, "mia", makeOwner) }},
	)
	for i := range cases {
		setup := cases[i].setup
		cases[i].setup = func(tm *team) {
			tm.add("owen", vitrine.RoleOwner, "active")
			if setup != nil {
				setup(tm)
			}
		}
	}
	runTeamCases(t, cases)
}

func second[T any](_ T, err error) error { return err }

// Two owners stepping down at the same moment: one of them stays, on
// either database, however the two changes interleave.
func TestLastOwnerUnderConcurrentChanges(t *testing.T) {
	const rule = "a tenant always keeps at least one active owner, under concurrent changes"
	for _, c := range []struct {
		name string
		act  func(tm *team, who string) error
	}{
		{"both demote themselves", func(tm *team, who string) error { return tm.updateMember(who, who, demote) }},
		{"both deactivate themselves", func(tm *team, who string) error { return tm.updateMember(who, who, deactivate) }},
		{"both leave", func(tm *team, who string) error { return tm.remove(who, who) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dbtest.Each(t, func(t *testing.T, url string) {
				w := newWorld(t, url)
				for range 5 {
					tm := w.newTeam(t)
					tm.add("owen", vitrine.RoleOwner, "active")
					owners := []string{"olga", "owen"}
					errs := make([]error, len(owners))
					start := make(chan struct{})
					var wg sync.WaitGroup
					for i, who := range owners {
						wg.Go(func() {
							<-start
							errs[i] = c.act(tm, who)
						})
					}
					close(start)
					wg.Wait()
					var refused int
					for i, err := range errs {
						if err != nil {
							refused++
							lastOwner.check(t, rule+": "+owners[i], err)
						}
					}
					if left := tm.activeOwners(); refused != 1 || len(left) != 1 {
						t.Fatalf("%s: %d refused (%v), active owners left: %v; want one of each", rule, refused, errs, left)
					}
				}
			})
		})
	}
}

// activeOwners returns the names of the team's active owners.
func (tm *team) activeOwners() []string {
	tm.t.Helper()
	var out []string
	for _, line := range strings.Split(tm.state(), "\n") {
		if f := strings.Fields(line); len(f) >= 4 && f[0] == "member" && f[2] == vitrine.RoleOwner && f[3] == string(vitrine.MembershipActive) {
			out = append(out, f[1])
		}
	}
	return out
}
