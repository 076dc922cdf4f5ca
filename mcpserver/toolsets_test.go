package mcpserver_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service/accounts"
)

// listedByDefault names the tools a default server lists from the start.
func listedByDefault(w *world) []string {
	var names []string
	for _, t := range mcpserver.AllTools(w.svc, mcpserver.Options{}) {
		if slices.Contains(mcpserver.DefaultToolsets, t.Toolset) || t.Name == "enable_toolset" {
			names = append(names, t.Name)
		}
	}
	slices.Sort(names)
	return names
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

type toolsetsOut struct {
	Toolsets []struct {
		Name   string
		Listed bool
		Tools  []string
	}
}

// An agent starts with the catalog and its companies listed, enables the
// team's tools when it needs them, and is told to reload its list; every
// tool answers by name all along, and no other session's list changes.
func TestEnableToolset(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	technova := w.tenants["technova"]
	changed := make(chan struct{}, 10)
	watch := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }}
	for _, tr := range []string{"memory", "http-sessions"} {
		var cs *mcp.ClientSession
		if tr == "memory" {
			cs = w.connect(mcpserver.Options{}, owner, watch)
		} else {
			c, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, watch).Connect(ctx, &mcp.StreamableClientTransport{
				Endpoint: w.http.URL + httpserver.MCPPath, HTTPClient: testkit.BearerClient(w.tokens[owner]), MaxRetries: -1,
			}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			cs = c
		}
		other := w.session("http-sessions", owner)
		start := toolNames(t, cs)
		if want := listedByDefault(w); !slices.Equal(start, want) || slices.Contains(start, "list_members") {
			t.Fatalf("%s: lists %v at start, want %v", tr, start, want)
		}
		// Unlisted, and still there.
		testkit.OK[map[string]any](t, cs, "list_members", map[string]any{"tenant_id": technova})

		sets := testkit.OK[toolsetsOut](t, cs, "enable_toolset", nil)
		for _, ts := range sets.Toolsets {
			if ts.Listed != slices.Contains(mcpserver.DefaultToolsets, ts.Name) || len(ts.Tools) == 0 {
				t.Errorf("%s: toolset %+v at start", tr, ts)
			}
		}
		sets = testkit.OK[toolsetsOut](t, cs, "enable_toolset", map[string]any{"toolset": "members"})
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no notifications/tools/list_changed after enable_toolset", tr)
		}
		now := toolNames(t, cs)
		for _, name := range []string{"list_members", "add_member", "grant_permission"} {
			if !slices.Contains(now, name) {
				t.Errorf("%s: %s not listed after enabling members: %v", tr, name, now)
			}
		}
		if slices.Contains(now, "list_roles") || len(now) != len(start)+6 {
			t.Errorf("%s: after enabling members, lists %v", tr, now)
		}
		for _, ts := range sets.Toolsets {
			if ts.Name == "members" && !ts.Listed {
				t.Errorf("%s: enable_toolset answers members unlisted", tr)
			}
		}
		if got := toolNames(t, other); !slices.Equal(got, start) {
			t.Errorf("%s: another session of the same user lists %v", tr, got)
		}
	}
	// Served statelessly (the sessionless revision, or another instance),
	// a request has no session to remember the toolsets in: the list stays
	// that of the start, and every tool still answers by name.
	stateless := w.session("http", owner)
	testkit.OK[toolsetsOut](t, stateless, "enable_toolset", map[string]any{"toolset": "roles"})
	if got := toolNames(t, stateless); !slices.Equal(got, listedByDefault(w)) {
		t.Errorf("stateless: lists %v", got)
	}
	testkit.OK[map[string]any](t, stateless, "list_roles", map[string]any{"tenant_id": technova})

	// A truly unknown tool is still the contract's protocol error.
	_, err := w.connect(mcpserver.Options{}, owner, nil).CallTool(ctx, &mcp.CallToolParams{Name: "invalid_tool_name"})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != -32602 || werr.Message != "Unknown tool: invalid_tool_name" {
		t.Errorf("unknown tool: %v", err)
	}
}

// --toolsets all lists everything and needs no enable_toolset; a list of
// toolsets serves only those; "default" with names lists those from the start.
func TestToolsetsOption(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	var every []string
	for _, tool := range mcpserver.AllTools(w.svc, mcpserver.Options{}) {
		if tool.Name != "enable_toolset" {
			every = append(every, tool.Name)
		}
	}
	slices.Sort(every)
	if got := toolNames(t, w.connect(mcpserver.Options{Toolsets: []string{"all"}}, owner, nil)); !slices.Equal(got, every) {
		t.Errorf("--toolsets all lists %v, want %v", got, every)
	}
	got := toolNames(t, w.connect(mcpserver.Options{Toolsets: []string{"default", "audit"}}, owner, nil))
	want := append(listedByDefault(w), "list_audit_events")
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("--toolsets default,audit lists %v, want %v", got, want)
	}
	got = toolNames(t, w.connect(mcpserver.Options{Toolsets: []string{"members"}}, owner, nil))
	if len(got) != 6 || slices.Contains(got, "enable_toolset") {
		t.Errorf("--toolsets members lists %v", got)
	}
	// A read-only token enables a toolset's read-only tools only.
	_, secret, err := w.svc.Operator().CreateToken(ctx, accounts.NewToken{Email: owner, Name: "reader", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	reader := w.sessionWithToken("memory", secret)
	sets := testkit.OK[toolsetsOut](t, reader, "enable_toolset", map[string]any{"toolset": "members"})
	for _, ts := range sets.Toolsets {
		if ts.Name == "members" && !slices.Equal(ts.Tools, []string{"list_members"}) {
			t.Errorf("a read-only token is shown the members tools %v", ts.Tools)
		}
	}
	if got := toolNames(t, reader); !slices.Contains(got, "list_members") || slices.Contains(got, "add_member") {
		t.Errorf("a read-only token lists %v after enabling members", got)
	}
}
