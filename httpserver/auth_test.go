package httpserver_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/service/accounts"
)

// call posts one tools/call of the sessionless revision, and returns the
// response's status, its WWW-Authenticate header and its body.
func call(t *testing.T, url, token, tool, args string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+httpserver.MCPPath, strings.NewReader(
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`,"_meta":`+meta2026+`}}`))
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("WWW-Authenticate"), string(body)
}

// meta2026 is the _meta every request of the sessionless revision carries.
const meta2026 = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// A call outside an OAuth token's grant is answered 403 insufficient_scope,
// before it runs, with every scope of the grant and the one it needs, so
// that the client asks the person for them (SEP-835); so is request_toolset
// naming a toolset the token lacks. A token of the identity provider that
// names no toolset scope grants the default toolsets; one naming some
// grants those. A personal token cannot step up: its call runs, and
// answers which token to make.
func TestStepUp(t *testing.T) {
	w, is, hs := oauthWorld(t, nil)
	technova := `{"tenant_id":"` + w.tenants["technova"] + `"}`
	plain := is.token(map[string]any{"email": owner, "scope": "vitrine:read vitrine:write"}, nil)
	reader := is.token(map[string]any{"email": owner, "scope": "vitrine:read vitrine:toolset:products"}, nil)
	for name, c := range map[string]struct {
		token, tool, args, scope string
	}{
		"a toolset not granted": {plain, "list_members", technova,
			"vitrine:read vitrine:write vitrine:toolset:tenants vitrine:toolset:products vitrine:toolset:members"},
		"asked for by request_toolset": {plain, "request_toolset", `{"toolset":"audit"}`,
			"vitrine:read vitrine:write vitrine:toolset:tenants vitrine:toolset:products vitrine:toolset:audit"},
		"a write with a read scope": {reader, "create_product", technova, "vitrine:read vitrine:write vitrine:toolset:products"},
	} {
		status, ch, body := call(t, hs.URL, c.token, c.tool, c.args)
		if status != http.StatusForbidden || !strings.Contains(ch, `error="insufficient_scope"`) || !strings.Contains(ch, `scope="`+c.scope+`"`) ||
			!strings.Contains(ch, `resource_metadata="`+hs.URL+`/.well-known/oauth-protected-resource/mcp"`) || strings.Contains(body, "jsonrpc") {
			t.Errorf("%s: %d %q %s", name, status, ch, body)
		}
	}
	// Within the grant, and for what answers itself, the call runs.
	for name, c := range map[string]struct{ token, tool, args string }{
		"a tool of the grant":                   {plain, "list_products", technova},
		"request_toolset, only listing":         {plain, "request_toolset", `{}`},
		"request_toolset, a toolset not served": {plain, "request_toolset", `{"toolset":"nonsense"}`},
		"an unknown tool":                       {plain, "invalid_tool_name", `{}`},
	} {
		if status, ch, _ := call(t, hs.URL, c.token, c.tool, c.args); status == http.StatusForbidden {
			t.Errorf("%s: 403 %q", name, ch)
		}
	}
	// The person approved members: the new token lists and calls its tools.
	wider := is.token(map[string]any{"email": owner, "scope": "vitrine:read vitrine:write vitrine:toolset:tenants vitrine:toolset:products vitrine:toolset:members"}, nil)
	cs := connectTo(t, hs.URL, wider)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "list_members") || slices.Contains(names, "list_roles") || !slices.Contains(names, "create_product") {
		t.Errorf("a token granting members lists %v", names)
	}
	out := testkit.OK[struct{ Granted string }](t, cs, "request_toolset", map[string]any{"toolset": "members"})
	if out.Granted != "members" {
		t.Errorf("request_toolset members by a token granting it: %+v", out)
	}
	testkit.OK[any](t, cs, "list_members", map[string]any{"tenant_id": w.tenants["technova"]})

	// A personal token is not asked to step up: the tool answers.
	_, secret, err := w.svc.Operator().CreateToken(ctx, accounts.NewToken{Email: owner, Name: "catalog"})
	if err != nil {
		t.Fatal(err)
	}
	status, _, body := call(t, hs.URL, secret, "list_members", technova)
	if status != http.StatusOK || !strings.Contains(body, `This token does not grant the members toolset`) {
		t.Errorf("a personal token outside its grant: %d %q", status, body)
	}
}
