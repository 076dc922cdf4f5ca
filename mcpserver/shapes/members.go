package shapes

import (
	"time"

	"github.com/vitrine/vitrine"
)

type (
	memberStatus   string
	permissionName string
)

// MemberOut is a member of a company as tools return it.
type MemberOut struct {
	UserID      string    `json:"user_id"`
	Email       string    `json:"email"`
	Name        string    `json:"name"`
	Role        string    `json:"role"`
	Status      string    `json:"status"`
	Granted     []string  `json:"granted_permissions"`
	Permissions []string  `json:"permissions"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

func MemberView(m *vitrine.Member) MemberOut {
	return MemberOut{UserID: m.UserID, Email: m.Email, Name: m.Name, Role: m.Role, Status: string(m.Status),
		Granted: m.Grants.Strings(), Permissions: m.Permissions().Strings(), CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
}

type ListMembersIn struct {
	TenantArg
	pageArgs
}

type ListMembersOut struct {
	Members    []MemberOut `json:"members"`
	NextCursor string      `json:"next_cursor"`
}

type AddMemberIn struct {
	TenantArg
	Email email    `json:"email"`
	Role  roleName `json:"role" jsonschema:"Built-in or custom (list_roles)."`
}

// InvitationOut is add_member's answer: the same whether or not the email
// has an account.
type InvitationOut struct {
	Email  string `json:"email"`
	Role   string `json:"role"`
	Status string `json:"status" jsonschema:"invited until the user accepts."`
}

type UpdateMemberIn struct {
	TenantArg
	UserID string       `json:"user_id"`
	Role   roleName     `json:"role,omitempty"`
	Status memberStatus `json:"status,omitempty" jsonschema:"inactive: no access, membership kept."`
}

type MemberRefIn struct {
	TenantArg
	UserID string `json:"user_id"`
}

type RemoveMemberOut struct {
	UserID  string `json:"user_id"`
	Removed bool   `json:"removed"`
}

type PermissionIn struct {
	TenantArg
	UserID     string         `json:"user_id"`
	Permission permissionName `json:"permission"`
}
