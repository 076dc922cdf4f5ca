package service_test

// The set-up shared by the tests of the team rules: a world of users on a
// fresh database, and, for each case, a company of its own with the same
// cast. Every call that says who acts goes through the few functions at the
// end of this file, so that a change to how an actor is given to the
// service is made here, once.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
)

var ctx = context.Background()

// operator names the operator (the vitrine CLI) as an actor.
const operator = "operator"

// people are the users of every world; each one's email is name@example.com.
// nina has no membership anywhere, dave is disabled.
var people = []string{"olga", "owen", "adam", "ada", "sam", "max", "mia", "dora", "vic", "oscar", "rhea", "nina", "dave"}

func email(name string) string { return name + "@example.com" }

// world is a database with people and one service on it.
type world struct {
	svc     *service.Service
	ids     map[string]string // user id by name
	names   map[string]string // name by user id
	tenants int
}

func newWorld(t *testing.T, url string) *world {
	t.Helper()
	w := &world{svc: service.New(dbtest.Open(t, url), nil), ids: map[string]string{}, names: map[string]string{}}
	for _, name := range people {
		u, err := w.svc.Operator().CreateUser(ctx, email(name), name)
		if err != nil {
			t.Fatal(err)
		}
		w.ids[name], w.names[u.ID] = u.ID, name
	}
	disabled := true
	if _, err := w.svc.Operator().UpdateUser(ctx, email("dave"), accounts.UserChanges{Disabled: &disabled}); err != nil {
		t.Fatal(err)
	}
	return w
}

// team is one company of a world, with the cast every case starts from:
//
//	olga   owner (the only one)
//	adam   admin
//	ada    admin + a grant of tenants:delete: every permission, no owner
//	sam    custom role "super": every permission, no owner
//	max    member + a grant of members:manage
//	mia    member
//	dora   member + a grant of tenants:delete
//	vic    viewer
//	oscar  custom role "ops"
//	rhea   custom role "roler"
//
// and the custom roles ops (tenants:read, products:read), destroyer
// (tenants:read, tenants:delete, held by nobody), super (every permission)
// and roler (tenants:read, products:read, roles:read, roles:manage).
// owen, nina and dave are not members.
type team struct {
	*world
	t    *testing.T
	slug string
	id   string
}

func (w *world) newTeam(t *testing.T) *team {
	t.Helper()
	w.tenants++
	tm := &team{world: w, t: t, slug: fmt.Sprintf("team-%d", w.tenants)}
	tn, err := w.svc.Operator().CreateTenant(ctx, "Team "+tm.slug, tm.slug, email("olga"))
	if err != nil {
		t.Fatal(err)
	}
	tm.id = tn.ID
	tm.must(tm.createRole("olga", "ops", vitrine.TenantsRead, vitrine.ProductsRead))
	tm.must(tm.createRole("olga", "destroyer", vitrine.TenantsRead, vitrine.TenantsDelete))
	tm.must(tm.createRole("olga", "super", vitrine.AllPermissions.List()...))
	tm.must(tm.createRole("olga", "roler", vitrine.TenantsRead, vitrine.ProductsRead, vitrine.RolesRead, vitrine.RolesManage))
	for _, m := range []struct{ name, role string }{
		{"adam", "admin"}, {"ada", "admin"}, {"sam", "super"}, {"max", "member"}, {"mia", "member"},
		{"dora", "member"}, {"vic", "viewer"}, {"oscar", "ops"}, {"rhea", "roler"},
	} {
		tm.add(m.name, m.role, "active")
	}
	tm.must(tm.grant("olga", "ada", vitrine.TenantsDelete))
	tm.must(tm.grant("olga", "max", vitrine.MembersManage))
	tm.must(tm.grant("olga", "dora", vitrine.TenantsDelete))
	return tm
}

func (tm *team) must(err error) {
	tm.t.Helper()
	if err != nil {
		tm.t.Fatal(err)
	}
}

// add gives who a membership, as the operator does (vitrine member add).
func (tm *team) add(who, role, status string) {
	tm.t.Helper()
	if _, err := tm.svc.Operator().AddMember(ctx, tm.slug, email(who), role, status); err != nil {
		tm.t.Fatalf("add %s as %s (%s): %v", who, role, status, err)
	}
}

// state describes the company as its team sees it: members with role,
// status and grants, custom roles, pending invitations. A refused change
// leaves it as it was.
func (tm *team) state() string {
	tm.t.Helper()
	a, err := tm.svc.Operator().Actor(ctx, tm.slug, "", "operator")
	if err != nil {
		tm.t.Fatal(err)
	}
	var b strings.Builder
	page, err := tm.svc.ListMembers(ctx, a, vitrine.MaxPageLimit, "")
	if err != nil {
		tm.t.Fatal(err)
	}
	for _, m := range page.Members {
		fmt.Fprintf(&b, "member %s %s %s [%s]\n", tm.names[m.UserID], m.Role, m.Status, m.Grants)
	}
	roles, err := tm.svc.Roles(ctx, a)
	if err != nil {
		tm.t.Fatal(err)
	}
	for _, r := range roles {
		fmt.Fprintf(&b, "role %s [%s]\n", r.Name, r.Permissions)
	}
	for _, name := range people {
		for _, inv := range tm.invitations(name) {
			fmt.Fprintf(&b, "invitation %s %s\n", name, inv.Role)
		}
	}
	return b.String()
}

// invitations returns who's pending invitations into the team.
func (tm *team) invitations(who string) []service.PendingInvitation {
	tm.t.Helper()
	all, err := tm.svc.Invitations(ctx, tm.caller(who))
	if err != nil {
		tm.t.Fatal(err)
	}
	return slices.DeleteFunc(all, func(p service.PendingInvitation) bool { return p.Tenant.ID != tm.id })
}

// outcome is what a case expects: success, or an error of a type, with
// the SPEC's message where the SPEC fixes one.
type outcome struct {
	typ vitrine.ErrorType
	msg string
}

var (
	allowed = outcome{}
	denied  = outcome{vitrine.PermissionError, vitrine.MsgPermissionDenied}
	// lastOwner: the SPEC fixes the type of the refusal, not its message.
	lastOwner    = outcome{typ: vitrine.ConflictError}
	noMembership = outcome{vitrine.GenericError, vitrine.MsgNoMembership}
)

func (o outcome) String() string {
	if o.typ == "" {
		return "success"
	}
	return fmt.Sprintf("%s %q", o.typ, o.msg)
}

// check reports err unless it is the outcome.
func (o outcome) check(t *testing.T, rule string, err error) {
	t.Helper()
	if o.typ == "" {
		if err != nil {
			t.Errorf("%s: got %v, want success", rule, err)
		}
		return
	}
	e := vitrine.AsError(err)
	if e == nil || e.Type != o.typ || (o.msg != "" && e.Message != o.msg) {
		t.Errorf("%s: got %v, want %s", rule, err, o)
	}
}

// teamCase is a change tried on a fresh team: the rule it proves, any
// change made first, the change, and what must come of it.
type teamCase struct {
	rule, name string
	setup      func(tm *team)
	act        func(tm *team) error
	want       outcome
}

// runTeamCases runs the cases on every database, each on a team of its
// own. A refused change must leave the team as it was; an allowed one
// must change it.
func runTeamCases(t *testing.T, cases []teamCase) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				tm := w.newTeam(t)
				if c.setup != nil {
					c.setup(tm)
				}
				before := tm.state()
				err := c.act(tm)
				c.want.check(t, c.rule, err)
				switch after := tm.state(); {
				case err != nil && after != before:
					t.Errorf("%s: the refused change changed the team from\n%s\nto\n%s", c.rule, before, after)
				case err == nil && after == before:
					t.Errorf("%s: the change was accepted and changed nothing:\n%s", c.rule, after)
				}
			})
		}
	})
}

// The actors. Who acts is given to the service here and nowhere else.

// callerOf returns the user with that email as a caller, with no token.
func callerOf(t testing.TB, svc *service.Service, email string) *vitrine.Caller {
	t.Helper()
	c, err := svc.Operator().ActAs(ctx, email, "service test")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// actorIn returns the access of the user with that email in the tenant
// with that slug; the user must have an active membership there.
func actorIn(t testing.TB, svc *service.Service, tenantSlug, email string) *service.Access {
	t.Helper()
	tn, err := svc.Operator().Tenant(ctx, tenantSlug)
	if err != nil {
		t.Fatal(err)
	}
	a, err := svc.Access(ctx, callerOf(t, svc, email), tn.ID)
	if err != nil {
		t.Fatalf("%s in %s: %v", email, tenantSlug, err)
	}
	return a
}

// caller returns who as a caller, with no token.
func (tm *team) caller(who string) *vitrine.Caller { return callerOf(tm.t, tm.svc, email(who)) }

// as returns who's access to the team.
func (tm *team) as(who string) *service.Access {
	tm.t.Helper()
	if who == operator {
		tm.t.Fatal("the operator has no access through a membership")
	}
	return actorIn(tm.t, tm.svc, tm.slug, email(who))
}

func (tm *team) updateMember(by, who string, ch service.MemberChanges) error {
	tm.t.Helper()
	if by == operator {
		_, err := tm.svc.Operator().UpdateMember(ctx, tm.slug, email(who), ch)
		return err
	}
	_, err := tm.svc.UpdateMember(ctx, tm.as(by), tm.ids[who], ch)
	return err
}

func (tm *team) remove(by, who string) error {
	tm.t.Helper()
	if by == operator {
		return tm.svc.Operator().RemoveMember(ctx, tm.slug, email(who))
	}
	return tm.svc.RemoveMember(ctx, tm.as(by), tm.ids[who])
}

func (tm *team) grant(by, who string, p vitrine.Permission) error {
	tm.t.Helper()
	_, err := tm.svc.GrantPermission(ctx, tm.as(by), tm.ids[who], string(p))
	return err
}

func (tm *team) revoke(by, who string, p vitrine.Permission) error {
	tm.t.Helper()
	_, err := tm.svc.RevokePermission(ctx, tm.as(by), tm.ids[who], string(p))
	return err
}

// invite is add_member: an invitation of the address with a role.
func (tm *team) invite(by, address, role string) (*service.Invitation, error) {
	tm.t.Helper()
	return tm.svc.Invite(ctx, tm.as(by), address, role)
}

func roleInput(name string, ps []vitrine.Permission) service.RoleInput {
	in := service.RoleInput{Name: name}
	for _, p := range ps {
		in.Permissions = append(in.Permissions, string(p))
	}
	return in
}

func (tm *team) createRole(by, name string, ps ...vitrine.Permission) error {
	tm.t.Helper()
	_, err := tm.svc.CreateRole(ctx, tm.as(by), roleInput(name, ps))
	return err
}

func (tm *team) updateRole(by, name string, ps ...vitrine.Permission) error {
	tm.t.Helper()
	_, err := tm.svc.UpdateRole(ctx, tm.as(by), roleInput(name, ps))
	return err
}

func (tm *team) deleteRole(by, name string) error {
	tm.t.Helper()
	return tm.svc.DeleteRole(ctx, tm.as(by), name)
}
