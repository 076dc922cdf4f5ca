package mcpserver

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cachePolicy says how long, and for whom, a client may keep an answer
// (SEP-2549: ttlMs and cacheScope, on lists and resource reads). Every
// list and every resource has one, stated where it is served; a new kind of
// resource (the ui:// views of MCP Apps) states its own.
type cachePolicy struct {
	// public: the answer is the same for everyone, and any client or
	// intermediary may keep it; otherwise only the caller's own client.
	public bool
	// ttl is how long it stays fresh; 0: it may change at the next request.
	ttl time.Duration
}

var (
	// untilDeploy is an answer that only a new release of the server
	// changes, the same for every caller: the resource templates, the
	// (empty) prompts, the views. An hour bounds how long a client keeps
	// the previous release's after a deploy.
	untilDeploy = cachePolicy{public: true, ttl: time.Hour}
	// perGrant is tools/list: it changes only with a deploy and with the
	// grant of the token presented, so the caller's own client may keep it
	// an hour (private: it varies by grant). A client that steps up to a
	// wider grant gets a new token, and lists again with it.
	perGrant = cachePolicy{ttl: time.Hour}
	// perCaller is an answer that depends on who asks and may change at
	// their next request: a product changes whenever someone writes it.
	perCaller = cachePolicy{}
)

// apply writes the policy into a result.
func (p cachePolicy) apply(c *mcp.Cacheable) {
	c.TTLMs, c.CacheScope = int(p.ttl.Milliseconds()), "private"
	if p.public {
		c.CacheScope = "public"
	}
}

// cacheable is the SDK's ServerOptions.SetCacheable: each list's policy,
// and for a resource read the policy its handler applied (readResult),
// private when it applied none, so that nothing per caller is ever marked
// public by default (the protocol's default scope is public).
func cacheable(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	switch req.(type) {
	case *mcp.ListToolsRequest:
		perGrant.apply(c)
	case *mcp.ListPromptsRequest, *mcp.ListResourcesRequest, *mcp.ListResourceTemplatesRequest, *mcp.ServerRequest[*mcp.DiscoverParams]:
		untilDeploy.apply(c)
	case *mcp.ReadResourceRequest:
		if c.CacheScope == "" {
			perCaller.apply(c)
		}
	default:
		perCaller.apply(c)
	}
}

// readResult is a resource read's result under its policy.
func readResult(p cachePolicy, contents ...*mcp.ResourceContents) *mcp.ReadResourceResult {
	res := &mcp.ReadResourceResult{Contents: contents}
	p.apply(&res.Cacheable)
	return res
}
