package mcpserver_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
)

// toolsOf names the tools of the toolsets, as an owner lists them (every
// tool, or with readOnly only those that change nothing).
func toolsOf(w *world, toolsets []string, readOnly bool) []string {
	var names []string
	for _, t := range mcpserver.AllTools(w.svc, mcpserver.Options{}) {
		if slices.Contains(toolsets, t.Toolset) && (t.ReadOnly || !readOnly) {
			names = append(names, t.Name)
		}
	}
	slices.Sort(names)
	return names
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	return names(listTools(t, cs))
}

func listTools(t *testing.T, cs *mcp.ClientSession) []*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

func names(tools []*mcp.Tool) []string {
	var out []string
	for _, tool := range tools {
		out = append(out, tool.Name)
	}
	slices.Sort(out)
	return out
}

func plus(names []string, more ...string) []string {
	out := append(slices.Clone(names), more...)
	slices.Sort(out)
	return out
}

type requestToolsetOut struct {
	Toolsets []struct {
		Name  string
		About string
		Tools []string
	}
	Granted string
}

// What a client lists is its grant: the toolsets its token grants, the
// write tools only without read-only, and request_toolset while there is
// more to ask for, naming what. The same on every transport, and however
// often another caller asks for more.
func TestToolsListedByGrant(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	catalog := vitrine.DefaultToolsets()
	tokens := map[string]struct {
		secret string
		want   []string
	}{
		"default":          {w.token(owner, nil), plus(toolsOf(w, catalog, false), "request_toolset")},
		"with members":     {w.token(owner, []string{"tenants", "products", "members"}), plus(toolsOf(w, []string{"tenants", "products", "members"}, false), "request_toolset")},
		"read-only, audit": {w.token(owner, []string{"products", "audit"}, true), plus(toolsOf(w, []string{"products", "audit"}, true), "request_toolset")},
		"every toolset":    {w.token(owner, []string{"all"}), toolsOf(w, mcpserver.Toolsets, false)},
	}
	for _, tr := range transports {
		for name, tok := range tokens {
			cs := w.sessionWithToken(tr, tok.secret)
			if got := toolNames(t, cs); !slices.Equal(got, tok.want) {
				t.Errorf("%s, %s token lists %v\nwant %v", tr, name, got, tok.want)
			}
		}
		// request_toolset's description names what the caller may ask for.
		for _, tool := range listTools(t, w.sessionWithToken(tr, tokens["default"].secret)) {
			if tool.Name == "request_toolset" && !strings.HasSuffix(tool.Description, "You may ask for: inventory, catalog, members, roles, audit, shop and company.") {
				t.Errorf("%s: request_toolset says %q", tr, tool.Description)
			}
		}
	}
	// Asking for a toolset changes no list: not the asker's (its token is
	// the same), nor another's.
	asker := w.sessionWithToken("http", tokens["default"].secret)
	other := w.sessionWithToken("http-sessions", tokens["default"].secret)
	testkit.ErrorOf(t, asker, "request_toolset", map[string]any{"toolset": "members"})
	for _, cs := range []*mcp.ClientSession{asker, other} {
		if got := toolNames(t, cs); !slices.Equal(got, tokens["default"].want) {
			t.Errorf("after a request_toolset, lists %v", got)
		}
	}
}

// A call outside the grant answers a personal token's holder which token
// would do, as a business error (over HTTP, an OAuth client is answered 403
// with the scope to ask for instead: httpserver's TestStepUp); one of a
// tool the deployment does not serve is the contract's "Unknown tool".
func TestCallOutsideGrant(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	technova := w.tenants["technova"]
	for _, tr := range transports {
		cs := w.sessionWithToken(tr, w.token(owner, nil))
		testkit.Fails(t, cs, "list_members", map[string]any{"tenant_id": technova},
			`{"error":true,"type":"Error","message":"This token does not grant the members toolset: ask the user for a token that does: `+
				`they make one on their account page (/account, Create a token) or the operator with vitrine token create `+
				`--toolsets tenants,products,members","toolset":"members"}`)
		reader := w.sessionWithToken(tr, w.token(owner, []string{"products"}, true))
		testkit.Fails(t, reader, "create_product", map[string]any{"tenant_id": technova, "sku": "RO-1", "name": "x", "price": "1.00"},
			`{"error":true,"type":"Error","message":"This token does not grant write (it is read-only): ask the user for a token that does: `+
				`they make one on their account page (/account, Create a token) or the operator with vitrine token create `+
				`--toolsets products without --read-only"}`)
		// The same toolset asked for with request_toolset: the same answer.
		e := testkit.ErrorOf(t, cs, "request_toolset", map[string]any{"toolset": "audit"})
		if e["toolset"] != "audit" || !strings.HasPrefix(e["message"].(string), "This token does not grant the audit toolset") {
			t.Errorf("%s: request_toolset audit answers %v", tr, e)
		}
	}
	// Within its grant, request_toolset lists what else there is.
	cs := w.sessionWithToken("memory", w.token(owner, []string{"tenants", "products", "members"}))
	out := testkit.OK[requestToolsetOut](t, cs, "request_toolset", map[string]any{"toolset": "members"})
	var got []string
	for _, ts := range out.Toolsets {
		got = append(got, ts.Name)
		if ts.About == "" || len(ts.Tools) == 0 {
			t.Errorf("toolset %+v", ts)
		}
	}
	if out.Granted != "members" || !slices.Equal(got, []string{"inventory", "catalog", "roles", "audit", "shop", "company"}) {
		t.Errorf("request_toolset lists %v, granted %q", got, out.Granted)
	}
	testkit.OK[map[string]any](t, cs, "list_members", map[string]any{"tenant_id": technova})
	testkit.ErrorOf(t, cs, "request_toolset", map[string]any{"toolset": "nonsense"})

	// A deployment serving products only: other tools do not exist.
	only := w.connect(mcpserver.Options{Toolsets: []string{"products"}}, owner, nil)
	_, err := only.CallTool(ctx, &mcp.CallToolParams{Name: "list_members", Arguments: map[string]any{"tenant_id": technova}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != -32602 || werr.Message != "Unknown tool: list_members" {
		t.Errorf("a tool not served: %v", err)
	}
}

// --toolsets bounds what the deployment serves, whatever a token grants.
func TestToolsetsOption(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	all := w.tokens[owner] // the demo's tokens grant every toolset
	for _, c := range []struct {
		toolsets []string
		token    string
		want     []string
	}{
		{nil, all, toolsOf(w, mcpserver.Toolsets, false)},
		{[]string{"all"}, all, toolsOf(w, mcpserver.Toolsets, false)},
		{[]string{"members", "audit"}, all, toolsOf(w, []string{"members", "audit"}, false)},
		// A default token and a deployment of team tools: nothing granted
		// but the way to ask.
		{[]string{"members"}, w.token(owner, nil), []string{"request_toolset"}},
	} {
		got := toolNames(t, w.connectWith(mcpserver.Options{Toolsets: c.toolsets, Token: c.token}, nil))
		if !slices.Equal(got, c.want) {
			t.Errorf("--toolsets %v lists %v, want %v", c.toolsets, got, c.want)
		}
	}
	for _, bad := range [][]string{{"default"}, {"nonsense"}} {
		if _, err := mcpserver.New(w.svc, mcpserver.Options{Toolsets: bad}); err == nil || !strings.Contains(err.Error(), "there is no toolset") {
			t.Errorf("--toolsets %v: %v", bad, err)
		}
	}
}
