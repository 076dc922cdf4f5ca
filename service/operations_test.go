package service

import (
	"testing"

	"github.com/vitrine/vitrine"
)

// Every operation declares its permission, once.
func TestEveryOperationNeedsAPermission(t *testing.T) {
	for _, op := range Operations() {
		if op.Needs() == "" {
			t.Errorf("%s needs no permission", op)
		}
	}
}

// A nil *Access is a bug, never a privilege: every check refuses it. The
// operator is a value of its own, allowed by the permission checks and the
// team rules (the last owner's is the store's, for everyone).
func TestNilAccessIsDeniedAndTheOperatorIsExplicit(t *testing.T) {
	var none *Access
	if none.Require(vitrine.ProductsRead) == nil || none.Allow(OpListProducts) == nil {
		t.Error("a nil access passed a permission check")
	}
	owner := &vitrine.Membership{Role: vitrine.RoleOwner, RolePermissions: vitrine.AllPermissions}
	if none.mayManage(owner) == nil || none.mayGive(vitrine.RoleOwner, vitrine.AllPermissions) == nil {
		t.Error("a nil access passed a team rule")
	}
	op := (&Operator{}).access(vitrine.NewID(), "")
	if op.Allow(OpDeleteProduct) != nil || op.mayManage(owner) != nil || op.mayGive(vitrine.RoleOwner, vitrine.AllPermissions) != nil {
		t.Error("the operator was refused")
	}
}
