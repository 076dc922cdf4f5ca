package service_test

import (
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
)

// Inviting someone again with another role changes the invitation to that
// role, when the caller may: what they are told is what the invitee gets.
// An invitation the caller could not manage keeps its role.
func TestInvitingAgainChangesTheRole(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		tm := newWorld(t, url).newTeam(t)
		for _, step := range []struct{ by, role, want string }{
			{"adam", "viewer", "viewer"},
			{"adam", "member", "member"}, // invited again: the new role
			{"olga", "owner", "owner"},
			{"adam", "viewer", "owner"}, // an admin cannot change an owner's invitation
		} {
			inv, err := tm.invite(step.by, email("nina"), step.role)
			if err != nil || inv.Role != step.role {
				t.Fatalf("%s invites as %s: %+v %v", step.by, step.role, inv, err)
			}
			got := tm.invitations("nina")
			if len(got) != 1 || got[0].Role != step.want {
				t.Errorf("after %s invites as %s: %+v, want role %s", step.by, step.role, got, step.want)
			}
		}
	})
}
