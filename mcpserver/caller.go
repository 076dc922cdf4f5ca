package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/vitrine/vitrine"
)

// callerKey holds the authenticated caller in auth.TokenInfo.Extra; only
// TokenInfo and CallerOf know it.
const callerKey = "vitrine.caller"

// TokenInfo is what an HTTP transport hands the SDK (as the request's
// auth.TokenInfo, through the SDK's auth.RequireBearerToken) for a caller
// it has authenticated: the tools then act as that caller. CallerOf reads
// it back.
func TokenInfo(c *vitrine.Caller) *auth.TokenInfo {
	info := &auth.TokenInfo{UserID: c.User.ID, Extra: map[string]any{callerKey: c}}
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
