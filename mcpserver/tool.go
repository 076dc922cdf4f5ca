package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// Tool is one tool as data: its definition, the toolset it belongs to, the
// permission it needs and what it does. Everything an agent sees of a tool,
// and everything the filters and the generated docs read, is here.
type Tool struct {
	Name        string
	Title       string
	Description string
	Toolset     string
	// Permission is what the caller must hold in the tenant. Tools without
	// one act on the caller alone (whoami, list_tenants).
	Permission vitrine.Permission
	// ReadOnly tools change nothing; Destructive ones may remove data;
	// Idempotent ones have no further effect when repeated.
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	// TargetArg names the argument that holds the id of the resource the
	// call is about, for the audit log. Without one, a result's "id" is.
	TargetArg string

	InputSchema  *jsonschema.Schema
	OutputSchema *jsonschema.Schema
	run          func(ctx context.Context, c *call) (any, error)
}

// call is one invocation on its way through the pipeline.
type call struct {
	caller *vitrine.Caller
	args   map[string]any
}

// TenantArg is the argument every tenant-scoped tool takes first.
type TenantArg struct {
	TenantID string `json:"tenant_id" jsonschema:"The id of the company (tenant) to act in, from list_tenants."`
}

// tenantTool makes a tool that acts in one tenant. Its pipeline is the
// order of checks of docs/errors.md: active membership, then permission,
// then the arguments, then whatever fn looks up and writes.
func tenantTool[In, Out any](svc *service.Service, t Tool, fn func(context.Context, *service.Access, In) (Out, error)) *Tool {
	t.InputSchema, t.OutputSchema = schemaFor[In](), schemaFor[Out]()
	t.run = func(ctx context.Context, c *call) (any, error) {
		tenantID, err := stringArg(c.args, "tenant_id")
		if err != nil {
			return nil, err
		}
		a, err := svc.Access(ctx, c.caller, tenantID)
		e := vitrine.AuditEventFrom(ctx)
		if err != nil {
			if e != nil && e.TargetID == "" {
				// Refused outside any tenant: the operator sees which one was tried.
				e.TargetID = tenantID
			}
			return nil, err
		}
		if e != nil {
			e.TenantID = tenantID
		}
		if err := a.Require(t.Permission); err != nil {
			return nil, err
		}
		var in In
		if err := decodeArgs(c.args, t.InputSchema, &in); err != nil {
			return nil, err
		}
		return fn(ctx, a, in)
	}
	return &t
}

// callerTool makes a tool that acts on the caller alone.
func callerTool[In, Out any](t Tool, fn func(context.Context, *vitrine.Caller, In) (Out, error)) *Tool {
	t.InputSchema, t.OutputSchema = schemaFor[In](), schemaFor[Out]()
	t.run = func(ctx context.Context, c *call) (any, error) {
		var in In
		if err := decodeArgs(c.args, t.InputSchema, &in); err != nil {
			return nil, err
		}
		return fn(ctx, c.caller, in)
	}
	return &t
}

// definition is the tool as MCP lists it. The schemas go to the SDK as
// JSON, encoded once: the SDK re-encodes a *jsonschema.Schema on every
// tools/list and, for the protocol's header checks, on every tools/call.
func (t *Tool) definition() *mcp.Tool {
	return &mcp.Tool{
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  rawSchema(t.InputSchema),
		OutputSchema: rawSchema(t.OutputSchema),
		Annotations: &mcp.ToolAnnotations{
			Title:           t.Title,
			ReadOnlyHint:    t.ReadOnly,
			DestructiveHint: ptr(t.Destructive),
			IdempotentHint:  t.Idempotent,
			OpenWorldHint:   ptr(false),
		},
	}
}

func rawSchema(s *jsonschema.Schema) any {
	if s == nil {
		return nil
	}
	data, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("schema %v: %v", s, err)) // the schemas are made from Go types at start
	}
	return json.RawMessage(data)
}

// successResult carries the output both as structured content and, for
// clients that read only text, as the same JSON in a text content.
func successResult(out any) *mcp.CallToolResult {
	text := compactJSON(out)
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(text),
	}
}
