package vitrine

import (
	"regexp"
	"strings"
	"time"
)

// Tenant is a company whose catalog and team live in Vitrine ("empresa").
type Tenant struct {
	ID   string
	Name string
	Slug string
	// Currency is the ISO 4217 code its imports, new products and price
	// filters use unless told otherwise.
	Currency string
	// Locales are its BCP 47 locales, the first its default, in which its
	// catalog is written; translations are into the others (Languages
	// reads them: DefaultLocale alone when none were named).
	Locales   []string
	CreatedAt time.Time
	UpdatedAt time.Time
	// DeletesAt, when set, is when the company, scheduled for deletion,
	// may be purged: until then it is closed and restorable.
	DeletesAt time.Time
}

// MembershipStatus says whether a membership opens its tenant to its user.
type MembershipStatus string

const (
	MembershipActive   MembershipStatus = "active"
	MembershipInactive MembershipStatus = "inactive"
	// MembershipInvited is a membership a member offered and its user has
	// not accepted yet: it opens nothing.
	MembershipInvited MembershipStatus = "invited"
)

// SettableMembershipStatuses are those a member's status may be set to:
// only its invitee makes an invitation active.
var SettableMembershipStatuses = []MembershipStatus{MembershipActive, MembershipInactive}

// Membership ties a user to a tenant with a role, plus permissions granted on
// top of it. A user reaches a tenant only through an active membership.
type Membership struct {
	ID       string
	TenantID string
	UserID   string
	Role     string
	Status   MembershipStatus
	// Grants are the permissions granted beyond the role.
	Grants PermissionSet
	// RolePermissions are the permissions of Role, resolved by the store.
	RolePermissions PermissionSet
	CreatedAt       time.Time
	UpdatedAt       time.Time
	// TenantDeletesAt is the tenant's DeletesAt, resolved by the store
	// with the membership: a scheduled company refuses its members' calls.
	TenantDeletesAt time.Time
}

// Permissions returns the effective permissions: the role's and the grants.
func (m *Membership) Permissions() PermissionSet { return m.RolePermissions | m.Grants }

// TenantMembership is a tenant seen through one user's membership in it.
type TenantMembership struct {
	Tenant     Tenant
	Membership Membership
}

var slugRE = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)

// ValidateSlug checks a tenant slug: lowercase letters, digits and inner
// hyphens, 1 to 63 characters.
func ValidateSlug(field, slug string) (string, error) {
	slug = strings.TrimSpace(slug)
	if !slugRE.MatchString(slug) {
		return "", Invalid(field, "%s must be 1 to 63 lowercase letters, digits or inner hyphens, such as \"acme-brasil\"", field)
	}
	return slug, nil
}

// Slugify derives a slug from a name: "Loja São João" becomes "loja-sao-joao".
func Slugify(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range Fold(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 63 {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > 63 {
		s = strings.Trim(s[:63], "-")
	}
	if s == "" {
		s = "empresa"
	}
	return s
}
