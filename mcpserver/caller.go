package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/vitrine/vitrine"
)

// callerKey and recheckKey hold the authenticated caller and its Recheck in
// auth.TokenInfo.Extra; only TokenInfo, CallerOf and recheckOf know them.
const (
	callerKey  = "vitrine.caller"
	recheckKey = "vitrine.recheck"
)

// Recheck authenticates a caller again, reading the access epoch. An HTTP
// transport that took the caller from the access cache, without reading
// the epoch, hands one with it: the pipeline then runs the call on a
// service that checks the epoch (service.Service.CheckingEpoch) and, when
// the epoch has moved, calls it. A refusal it returns (a *service.AuthError), the transport
// answers as it answers any refused token (HTTP 401).
type Recheck func(ctx context.Context) (*vitrine.Caller, error)

// TokenInfo is what an HTTP transport hands the SDK (as the request's
// auth.TokenInfo, through the SDK's auth.RequireBearerToken) for a caller
// it has authenticated: the tools then act as that caller. CallerOf reads
// it back. recheck is nil when the caller was authenticated against the
// current access epoch.
func TokenInfo(c *vitrine.Caller, recheck Recheck) *auth.TokenInfo {
	info := &auth.TokenInfo{UserID: c.User.ID, Extra: map[string]any{callerKey: c}}
	if recheck != nil {
		info.Extra[recheckKey] = recheck
	}
	if c.Token.ExpiresAt != nil {
		info.Expiration = *c.Token.ExpiresAt
	}
	return info
}

// CallerOf returns the caller that TokenInfo put in info, or nil when info
// (nil included) carries none.
func CallerOf(info *auth.TokenInfo) *vitrine.Caller {
	if info == nil {
		return nil
	}
	c, _ := info.Extra[callerKey].(*vitrine.Caller)
	return c
}

func recheckOf(info *auth.TokenInfo) Recheck {
	if info == nil {
		return nil
	}
	r, _ := info.Extra[recheckKey].(Recheck)
	return r
}
