package shapes

import "time"

type InvitationView struct {
	TenantID   string    `json:"tenant_id"`
	TenantName string    `json:"tenant_name"`
	Role       string    `json:"role"`
	InvitedAt  time.Time `json:"invited_at"`
}

type ListInvitationsOut struct {
	Invitations []InvitationView `json:"invitations"`
	NextCursor  string           `json:"next_cursor"`
}

type InvitationIn struct {
	// Not TenantArg: the company that invited the caller is not among
	// their companies (list_tenants) until they accept.
	TenantID string `json:"tenant_id" jsonschema:"From list_invitations."`
}

type DeclineInvitationOut struct {
	TenantID string `json:"tenant_id"`
	Declined bool   `json:"declined"`
}
