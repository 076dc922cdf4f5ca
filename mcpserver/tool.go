package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/wire"
	"github.com/vitrine/vitrine/mcpserver/args"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// Tool is one tool as data: its definition, the toolset it belongs to, the
// permission it needs and what it does. Everything an agent sees of a tool,
// and everything the filters and the generated docs read, is here.
type Tool struct {
	Name        string
	Title       string
	Description string
	Toolset     string
	// Op is the operation the tool does in a tenant, which declares the
	// permission it needs (Permission). Tools without one act on the
	// caller alone (whoami, list_tenants, the invitee's tools).
	Op service.Operation
	// ReadOnly tools change nothing; Destructive ones may remove data;
	// Idempotent ones have no further effect when repeated.
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	// TargetArg names the argument that holds the id of the resource the
	// call is about, for the audit log. Without one, a result's "id" is.
	TargetArg string
	// ResultAs names the tool whose result this one's is (a write that
	// returns the product, as get_product does): its output schema is
	// listed as an object "as get_product", not whole again, to spare the
	// agent's context.
	ResultAs string
	// Localized names the tool's arguments and result fields that concern
	// a company's other locales (translations): tools/list shows them only
	// to a caller granted the translations toolset, so that the default
	// grant's listing keeps within its budget (docs/decisions.md, "The
	// context budget of every toolset"). The tool takes and answers them
	// for any caller.
	Localized fieldNames

	// schemas derives the input and output schemas from the tool's Go
	// types, once, when first needed: by its first call, whose arguments
	// are checked against the input schema, or by the generated docs.
	// What tools/list shows is their JSON, written once to schemas.tsv
	// (listed.go), so that a server starts without deriving them.
	schemas func() toolSchemas
	run     func(ctx context.Context, c *call) (any, about, error)
}

type toolSchemas struct{ in, out *jsonschema.Schema }

// fieldNames name a tool's arguments and its result's fields.
type fieldNames struct{ args, results []string }

// IsLocalized reports whether tools/list shows the tool's argument name
// (or, with result, its result's field) only to a caller granted the
// translations toolset.
func (t *Tool) IsLocalized(name string, result bool) bool {
	if result {
		return slices.Contains(t.Localized.results, name)
	}
	return slices.Contains(t.Localized.args, name)
}

// InputSchema is the schema of the tool's arguments.
func (t *Tool) InputSchema() *jsonschema.Schema { return t.schemas().in }

// OutputSchema is the schema of the tool's result.
func (t *Tool) OutputSchema() *jsonschema.Schema { return t.schemas().out }

// deriveSchemas derives the schemas of a tool taking In and returning Out,
// at the first call of the function it returns.
func deriveSchemas[In, Out any]() func() toolSchemas {
	return sync.OnceValue(func() toolSchemas { return toolSchemas{shapes.SchemaFor[In](), shapes.OutputSchemaFor[Out]()} })
}

// Permission is what the caller must hold in the tenant: what the tool's
// operation needs, or nothing for a tool without one.
func (t *Tool) Permission() vitrine.Permission {
	if t.Op == "" {
		return ""
	}
	return t.Op.Needs()
}

// call is one invocation on its way through the pipeline: the service it
// runs on (runAs), as the caller, with the arguments as the SDK hands them.
type call struct {
	svc    *service.Service
	caller *vitrine.Caller
	args   json.RawMessage
	// target is what the arguments name (Tool.TargetArg), once decoded.
	target string
}

// decode checks and decodes the call's arguments into in, in one pass
// (args.Decode), leads filled in too, and gives the caller's call the
// target the arguments name, which the store's audit event of a write
// says.
func (t *Tool) decode(c *call, in any, leads ...*args.Lead) error {
	target := args.Lead{Name: t.TargetArg}
	if t.TargetArg != "" {
		leads = append(leads, &target)
	}
	err := args.Decode(c.args, t.InputSchema(), in, leads...)
	if c.target = target.Given(); c.target != "" {
		called := *c.caller
		called.Call.Target = c.target
		c.caller = &called
	}
	return err
}

// tenantTool makes a tool that acts in one tenant. Its pipeline is the
// order of checks of docs/errors.md: active membership, then permission,
// then the arguments, then whatever fn looks up and writes.
func tenantTool[In, Out any](t Tool, fn func(context.Context, *service.Service, *service.Access, In) (Out, error)) *Tool {
	t.schemas = deriveSchemas[In, Out]()
	t.run = func(ctx context.Context, c *call) (any, about, error) {
		var decoded In
		tenant := args.Lead{Name: "tenant_id"}
		derr := t.decode(c, &decoded, &tenant)
		if args.Malformed(derr) {
			return nil, about{}, derr
		}
		tenantID, err := tenant.String()
		if err != nil {
			return nil, about{}, err
		}
		a, err := c.svc.Access(ctx, c.caller, tenantID)
		if err != nil {
			// Refused outside any tenant: the operator sees which one was tried.
			return nil, about{target: tenantID}, err
		}
		in := about{tenant: a.TenantID}
		if err := a.Allow(t.Op); err != nil {
			return nil, in, err
		}
		if derr != nil {
			return nil, in, derr
		}
		out, err := fn(ctx, c.svc, a, decoded)
		return out, in, err
	}
	return &t
}

// catalogTool makes a tool that acts on one tenant's catalog, as
// tenantTool does, its fn given the catalog on the call's service
// (service/catalog).
func catalogTool[In, Out any](t Tool, fn func(context.Context, *catalog.Catalog, *service.Access, In) (Out, error)) *Tool {
	return tenantTool(t, func(ctx context.Context, svc *service.Service, a *service.Access, in In) (Out, error) {
		return fn(ctx, catalog.New(svc), a, in)
	})
}

// callerTool makes a tool that acts on the caller alone.
func callerTool[In, Out any](t Tool, fn func(context.Context, *service.Service, *vitrine.Caller, In) (Out, error)) *Tool {
	t.schemas = deriveSchemas[In, Out]()
	t.run = func(ctx context.Context, c *call) (any, about, error) {
		var in In
		if err := t.decode(c, &in); err != nil {
			return nil, about{}, err
		}
		out, err := fn(ctx, c.svc, c.caller, in)
		return out, about{}, err
	}
	return &t
}

// definition is the tool as MCP lists it, its schemas as JSON (listed.go).
// The annotations say each thing once: the title is the tool's own, and
// destructiveHint, which the protocol reads only when readOnlyHint is
// false, goes with the tools that write.
//
// With iconsURL, it names its toolset's icon.
func (t *Tool) definition(iconsURL string) *mcp.Tool {
	a := &mcp.ToolAnnotations{ReadOnlyHint: t.ReadOnly, IdempotentHint: t.Idempotent, OpenWorldHint: ptr(false)}
	if !t.ReadOnly {
		a.DestructiveHint = ptr(t.Destructive)
	}
	in, out := t.wireSchemas()
	tool := &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: in,
		Annotations: a,
		Icons:       toolsetIcons(iconsURL, t.Toolset),
	}
	if out != nil {
		// Not a nil json.RawMessage in the interface, which would be
		// listed as "outputSchema": null, a list clients refuse.
		tool.OutputSchema = out
	}
	return tool
}

// successResult carries the output both as structured content and, for
// clients that read only text, as the same JSON in a text content. The
// output is encoded once, and the text content's wire form made from it
// here: the SDK would otherwise encode the whole page a second time, as a
// JSON string, on every call.
func successResult(out any) *mcp.CallToolResult {
	text := wire.Compact(out)
	res := &mcp.CallToolResult{
		Content:           []mcp.Content{wire.Text(text)},
		StructuredContent: json.RawMessage(text),
	}
	// A result that names a resource to read (export_tenant's archive)
	// links it too.
	if l, ok := out.(interface{ ResourceLink() *mcp.ResourceLink }); ok {
		res.Content = append(res.Content, l.ResourceLink())
	}
	return res
}

func ptr[T any](v T) *T { return &v }
