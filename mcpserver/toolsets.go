package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
)

// Toolsets lists the toolsets in the order their tools are listed: those of
// vitrine.Toolsets, the one list a new toolset is added to.
var Toolsets = vitrine.ToolsetNames()

// DiscoveryToolset holds request_toolset, which every grant holds: an
// agent learns with it what else the server serves, and asks for it.
const DiscoveryToolset = "toolsets"

// servedToolsets reads Options.Toolsets, the toolsets the deployment
// serves (a tool of another does not exist: "Unknown tool"): toolset
// names, or "all" (empty means it).
func servedToolsets(names []string) ([]string, error) {
	if len(names) == 0 {
		return vitrine.ToolsetNames(), nil
	}
	served, err := vitrine.ParseToolsets("toolsets", names)
	if err != nil {
		return nil, errors.New(strings.Replace(err.Error(), "toolsets: ", "--toolsets: ", 1))
	}
	if len(served) == 0 {
		return nil, fmt.Errorf("--toolsets names no toolset; the toolsets are %s, or all", strings.Join(Toolsets, ", "))
	}
	return served, nil
}

// granted applies the caller's grant (filter 3) to a tool the server
// serves: its toolset is one the token grants, and a read-only token
// grants only the tools that change nothing. The discovery tool is in
// every grant. No caller (the docs' view) is granted everything.
func granted(t *Tool, c *vitrine.Caller) bool {
	if c == nil || t.Toolset == DiscoveryToolset {
		return true
	}
	return c.Token.Grants(t.Toolset) && (t.ReadOnly || !c.ReadOnly())
}

// notGranted returns the toolsets the server serves that the caller's
// token does not grant, in listing order.
func (s *Server) notGranted(c *vitrine.Caller) []string {
	var out []string
	for _, ts := range s.served {
		if c != nil && !c.Token.Grants(ts) {
			out = append(out, ts)
		}
	}
	return out
}

// outsideGrant is the refusal of a call the caller's token does not
// grant: the toolset it needs, or (toolset "") writing with a read-only
// token. It is a business error of type Error, whose message says which
// token would do: over HTTP, an OAuth client is answered 403 with the
// scope to ask for before the call runs (StepUp), so this reaches only
// the holders of a personal token, who must make another.
type outsideGrant struct {
	err     *vitrine.Error
	toolset string
}

func (e *outsideGrant) Error() string { return e.err.Error() }
func (e *outsideGrant) Unwrap() error { return e.err }

// refuseOutsideGrant words the refusal for the caller: what to ask for, and
// how a person gets it.
func refuseOutsideGrant(c *vitrine.Caller, toolset string) error {
	what := "write (it is read-only)"
	if toolset != "" {
		what = "the " + toolset + " toolset"
	}
	how := "ask the user for a token that does: they make one on their account page (/account, Create a token) " +
		"or the operator with vitrine token create --toolsets " + strings.Join(withToolset(c.Token.Toolsets, toolset), ",")
	if toolset == "" {
		how += " without --read-only"
	}
	if c.Token.OAuth {
		how = "reconnect the app and approve " + what + " on the consent page"
	}
	return &outsideGrant{toolset: toolset, err: &vitrine.Error{Type: vitrine.GenericError,
		Message: "This token does not grant " + what + ": " + how}}
}

// withToolset returns the toolsets with one more, in listing order.
func withToolset(toolsets []string, toolset string) []string {
	return vitrine.DecodeToolsets(vitrine.EncodeToolsets(append(slices.Clone(toolsets), toolset)))
}

// checkGrant refuses a call of t the caller's token does not grant.
func checkGrant(t *Tool, c *vitrine.Caller) error {
	switch {
	case granted(t, c):
		return nil
	case !c.Token.Grants(t.Toolset):
		return refuseOutsideGrant(c, t.Toolset)
	default:
		return refuseOutsideGrant(c, "")
	}
}

// StepUp returns the OAuth scopes a caller would need for the request of
// method with params (JSON) to be within its grant: for a tools/call of
// a served tool its token does not grant, or of request_toolset naming a
// toolset it does not grant, every scope of its grant and the one more it
// needs (the client asks the person for that set: step-up authorization).
// It returns nil for everything else, which then answers for itself
// ("Unknown tool", a ValidationError). Only an OAuth client can ask: the
// HTTP transport calls it for OAuth tokens, and answers 403
// insufficient_scope with these scopes.
func (s *Server) StepUp(c *vitrine.Caller, method string, params json.RawMessage) []string {
	if method != "tools/call" || c == nil {
		return nil
	}
	var p struct {
		Name      string `json:"name"`
		Arguments struct {
			Toolset string `json:"toolset"`
		} `json:"arguments"`
	}
	// Read as the SDK reads it, and only what this needs: the tool's name
	// and the toolset asked for.
	if _, err := segjson.Parse(params, &p, segjson.DontMatchCaseInsensitiveStructFields|segjson.ZeroCopy); err != nil {
		return nil
	}
	t, ok := s.byName[p.Name]
	switch {
	case !ok:
		return nil
	case t.Toolset == DiscoveryToolset && slices.Contains(s.served, p.Arguments.Toolset) && !c.Token.Grants(p.Arguments.Toolset):
		return vitrine.Scopes(c.ReadOnly(), withToolset(c.Token.Toolsets, p.Arguments.Toolset))
	case granted(t, c):
		return nil
	}
	return vitrine.Scopes(c.ReadOnly() && t.ReadOnly, withToolset(c.Token.Toolsets, t.Toolset))
}

type requestToolsetIn struct {
	Toolset shapes.ToolsetName `json:"toolset,omitempty" jsonschema:"Omit to only list."`
}

type toolsetOut struct {
	Name  string   `json:"name"`
	About string   `json:"about"`
	Tools []string `json:"tools"`
}

type requestToolsetOut struct {
	Toolsets []toolsetOut `json:"toolsets" jsonschema:"The toolsets you were not granted."`
	Granted  string       `json:"granted,omitempty" jsonschema:"The toolset asked for, now granted."`
}

// discoveryTools makes request_toolset. It lists the toolsets the server
// serves that the caller's token does not grant, with their tools; given
// one, it asks for it. Over HTTP an OAuth client is answered 403 with the
// scope to ask the person for (StepUp) before the call runs, and calls
// again with the new token, which grants it: the answer then says so, and
// the client's next tools/list holds its tools. A personal token's holder
// is told which token to make.
func discoveryTools(s *Server) []*Tool {
	return []*Tool{callerTool(Tool{
		Name:        "request_toolset",
		Title:       "Ask for a toolset",
		Description: "List the toolsets you were not granted; with toolset, ask the user to grant it, then list your tools again.",
		Toolset:     DiscoveryToolset, ReadOnly: true, Idempotent: true,
	}, func(ctx context.Context, svc *service.Service, c *vitrine.Caller, in requestToolsetIn) (requestToolsetOut, error) {
		name := string(in.Toolset)
		if name != "" && !slices.Contains(s.served, name) {
			return requestToolsetOut{}, vitrine.Invalid("toolset", "this server does not serve the toolset %q", name)
		}
		if name != "" && !c.Token.Grants(name) {
			return requestToolsetOut{}, refuseOutsideGrant(c, name)
		}
		out := requestToolsetOut{Toolsets: []toolsetOut{}, Granted: name}
		for _, ts := range s.notGranted(c) {
			info, _ := vitrine.ToolsetNamed(ts)
			o := toolsetOut{Name: ts, About: info.About, Tools: []string{}}
			for _, t := range s.tools {
				if t.Toolset == ts && (t.ReadOnly || !c.ReadOnly()) {
					o.Tools = append(o.Tools, t.Name)
				}
			}
			out.Toolsets = append(out.Toolsets, o)
		}
		return out, nil
	})}
}

// discoveryDefinition is request_toolset as a caller lists it: its
// description names the toolsets the caller may ask for, so that an agent
// knows them without a call. One definition per set of toolsets, made once.
func (s *Server) discoveryDefinition(base *mcp.Tool, missing []string) *mcp.Tool {
	key := strings.Join(missing, " ")
	if d, ok := s.discovery.Load(key); ok {
		return d.(*mcp.Tool)
	}
	d := *base
	d.Description = base.Description + " You may ask for: " + vitrine.ToolsetList(missing) + "."
	s.discovery.Store(key, &d)
	return &d
}

// localizedDefinition is the definition of t (listed as base) that the
// caller sees: without its Localized fields unless the caller's token
// grants the translations toolset.
func (s *Server) localizedDefinition(t *Tool, base *mcp.Tool, c *vitrine.Caller) *mcp.Tool {
	if len(t.Localized.args)+len(t.Localized.results) == 0 || c == nil || c.Token.Grants("translations") {
		return base
	}
	if d, ok := s.unlocalized.Load(t.Name); ok {
		return d.(*mcp.Tool)
	}
	d := *base
	d.InputSchema = withoutProperties(base.InputSchema, t.Localized.args)
	if base.OutputSchema != nil {
		d.OutputSchema = withoutProperties(base.OutputSchema, t.Localized.results)
	}
	s.unlocalized.Store(t.Name, &d)
	return &d
}

// withoutProperties is a listed schema (JSON, as wireSchemas gives it)
// without the named properties at its top.
func withoutProperties(schema any, names []string) any {
	raw, ok := schema.(json.RawMessage)
	if !ok || len(names) == 0 {
		return schema
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		panic(fmt.Sprintf("a listed schema: %v", err)) // wireSchemas wrote it
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for _, n := range names {
			delete(props, n)
		}
	}
	data, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return json.RawMessage(data)
}
