package vitrine

import (
	"regexp"
	"strconv"
	"strings"
)

// Member is a membership with its user, as a tenant's team list shows it.
type Member struct {
	Membership
	Email string
	Name  string
}

// MemberKey is a member's position in the team list, ordered by email.
type MemberKey struct {
	Email  string `json:"e"`
	UserID string `json:"u"`
}

// ValidCursor bounds what a cursor may place the team list at.
func (k MemberKey) ValidCursor() bool { return len(k.Email) <= 320 && ValidID(k.UserID) }

var roleNameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,39}$`)

// ValidateRoleName checks the name of a custom role: lowercase letters,
// digits, - and _, starting with a letter, at most 40 characters, and not
// the name of a built-in role.
func ValidateRoleName(field, name string) (string, error) {
	name = strings.TrimSpace(name)
	if !roleNameRE.MatchString(name) {
		return "", Invalid(field, "%s must be 1 to 40 lowercase letters, digits, - or _, starting with a letter, such as \"catalog-editor\"; got %q", field, name)
	}
	if _, builtin := BuiltinRole(name); builtin {
		return "", Invalid(field, "%q is a built-in role; choose another name", name)
	}
	return name, nil
}

// ParsePermissions validates a list of permission names.
func ParsePermissions(field string, names []string) (PermissionSet, error) {
	var s PermissionSet
	for i, n := range names {
		p := Permission(strings.TrimSpace(n))
		if !KnownPermission(p) {
			return 0, Invalid(field+"["+strconv.Itoa(i)+"]", "unknown permission %q; list_permissions gives the catalog", n)
		}
		s |= NewPermissionSet(p)
	}
	return s, nil
}
