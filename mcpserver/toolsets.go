package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
)

// Toolsets lists the toolsets in the order their tools are listed.
var Toolsets = []string{"tenants", "products", "inventory", "members", "roles", "audit"}

// DefaultToolsets are listed from the start under the default --toolsets;
// the others are served too, and listed in a session once it enables them
// with enable_toolset. An agent pays for tools/list in context on every
// conversation: stock history, bulk imports and team administration are
// rarer than the catalog's daily work.
var DefaultToolsets = []string{"tenants", "products"}

// DiscoveryToolset holds enable_toolset, served only when some toolset
// is served but not listed from the start.
const DiscoveryToolset = "toolsets"

var toolsetAbout = map[string]string{
	"tenants":   "Your companies and what you may do in each.",
	"products":  "The catalog: find, read, write products and their stock.",
	"inventory": "Stock movements and bulk imports.",
	"members":   "A company's members, their roles and grants.",
	"roles":     "The permission catalog and custom roles.",
	"audit":     "The audit log of every call.",
}

// toolsetPlan is what Options.Toolsets asks for: the toolsets served (a tool
// of another does not exist: "Unknown tool") and those listed from the start.
type toolsetPlan struct {
	served, listed []string
}

// planToolsets reads Options.Toolsets: toolset names, "all" (every toolset,
// all listed), or "default" (every toolset served, DefaultToolsets and the
// toolsets named beside it listed). Empty means "default".
func planToolsets(names []string) (toolsetPlan, error) {
	if len(names) == 0 {
		names = []string{"default"}
	}
	var p toolsetPlan
	all, dflt := false, false
	for _, n := range names {
		switch {
		case n == "all":
			all = true
		case n == "default":
			dflt = true
		case slices.Contains(Toolsets, n):
			p.listed = append(p.listed, n)
		default:
			return p, fmt.Errorf("unknown toolset %q; the toolsets are %s, or all, or default", n, strings.Join(Toolsets, ", "))
		}
	}
	switch {
	case all:
		p.served, p.listed = Toolsets, Toolsets
	case dflt:
		p.served, p.listed = Toolsets, append(p.listed, DefaultToolsets...)
	default:
		p.served = p.listed
	}
	// In the order of Toolsets, whatever the order given.
	p.listed = slices.DeleteFunc(slices.Clone(Toolsets), func(n string) bool { return !slices.Contains(p.listed, n) })
	if len(p.listed) < len(p.served) {
		p.served = append(slices.Clone(p.served), DiscoveryToolset)
		p.listed = append(p.listed, DiscoveryToolset)
	}
	return p, nil
}

// onDemand returns the toolsets served but not listed from the start.
func (p toolsetPlan) onDemand() []string {
	return slices.DeleteFunc(slices.Clone(p.served), func(n string) bool { return slices.Contains(p.listed, n) })
}

// sessionToolsets remembers the toolsets each session enabled. It lives in
// the memory of the instance that holds the session, like the session
// itself: a request served statelessly (by another instance, or in the
// sessionless protocol revision) lists the toolsets of the start. Nothing
// is lost with it, because listing is not access: every tool the server
// serves answers a call by its name in any session, listed or not, and its
// permission is checked per call. So the state is kept neither in the
// database nor in the token, and a restart or another instance costs the
// agent one more enable_toolset at most.
type sessionToolsets struct {
	mu      sync.Mutex
	enabled map[*mcp.ServerSession][]string
}

func (st *sessionToolsets) has(ss *mcp.ServerSession, toolset string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return slices.Contains(st.enabled[ss], toolset)
}

// enable adds toolset to the session's list, and reports whether it was new.
func (st *sessionToolsets) enable(ss *mcp.ServerSession, toolset string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if slices.Contains(st.enabled[ss], toolset) {
		return false
	}
	if st.enabled == nil {
		st.enabled = map[*mcp.ServerSession][]string{}
	}
	if _, known := st.enabled[ss]; !known {
		go func() {
			ss.Wait() // the session ended: forget it
			st.mu.Lock()
			defer st.mu.Unlock()
			delete(st.enabled, ss)
		}()
	}
	st.enabled[ss] = append(st.enabled[ss], toolset)
	return true
}

type toolsetName string

type enableToolsetIn struct {
	Toolset toolsetName `json:"toolset,omitempty" jsonschema:"Omit to only list."`
}

type toolsetOut struct {
	Name   string   `json:"name"`
	About  string   `json:"about"`
	Listed bool     `json:"listed" jsonschema:"In your tool list now."`
	Tools  []string `json:"tools"`
}

type enableToolsetOut struct {
	Toolsets []toolsetOut `json:"toolsets"`
}

// discoveryTools makes enable_toolset: it shows the toolsets this server
// serves, with the tools the caller can call, and adds one to the
// session's tools/list, telling the client to reload it
// (notifications/tools/list_changed).
func discoveryTools(plan toolsetPlan, opts Options, st *sessionToolsets, tools []*Tool) []*Tool {
	onDemand := plan.onDemand()
	return []*Tool{callerTool(Tool{
		Name:  "enable_toolset",
		Title: "Enable a toolset",
		Description: "List the toolsets and their tools; with toolset, add its tools to your tool list. On demand: " +
			strings.Join(onDemand, ", ") + ". Unlisted tools answer when called by name too.",
		Toolset: DiscoveryToolset, ReadOnly: true, Idempotent: true,
	}, func(ctx context.Context, c *vitrine.Caller, in enableToolsetIn) (enableToolsetOut, error) {
		req := requestFrom(ctx)
		var ss *mcp.ServerSession
		if req != nil {
			ss = req.Session
		}
		name := string(in.Toolset)
		if name != "" && !slices.Contains(plan.served, name) {
			return enableToolsetOut{}, vitrine.Invalid("toolset", "this server does not serve the toolset %q", name)
		}
		if slices.Contains(onDemand, name) && ss != nil && st.enable(ss, name) {
			// Best effort: a client that cannot hear it still gets the answer below.
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: listChangedToken})
		}
		var out enableToolsetOut
		for _, ts := range plan.served {
			if ts == DiscoveryToolset {
				continue
			}
			o := toolsetOut{Name: ts, About: toolsetAbout[ts], Listed: slices.Contains(plan.listed, ts) || (ss != nil && st.has(ss, ts)), Tools: []string{}}
			for _, t := range tools {
				if t.Toolset == ts && serves(plan, opts, t) && visible(t, c) {
					o.Tools = append(o.Tools, t.Name)
				}
			}
			out.Toolsets = append(out.Toolsets, o)
		}
		return out, nil
	})}
}

// listChangedToken marks the progress notification that a sending
// middleware turns into notifications/tools/list_changed for one session.
// The SDK sends that notification only to every session at once, when the
// server's own tools change; the tools here stay the same, and only one
// session's list grows.
const listChangedToken = "vitrine:tools/list_changed"

// listChanged is the sending middleware that does it.
func listChanged(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.ProgressNotificationParams); ok && p.ProgressToken == listChangedToken {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				return next(ctx, "notifications/tools/list_changed", &mcp.ServerRequest[*mcp.ToolListChangedParams]{
					Session: ss, Params: &mcp.ToolListChangedParams{}})
			}
		}
		return next(ctx, method, req)
	}
}
