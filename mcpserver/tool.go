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

	InputSchema  *jsonschema.Schema
	OutputSchema *jsonschema.Schema
	run          func(ctx context.Context, c *call) (any, error)
}

// Permission is what the caller must hold in the tenant: what the tool's
// operation needs, or nothing for a tool without one.
func (t *Tool) Permission() vitrine.Permission {
	if t.Op == "" {
		return ""
	}
	return t.Op.Needs()
}

// call is one invocation on its way through the pipeline.
type call struct {
	caller *vitrine.Caller
	args   map[string]any
}

// TenantArg is the argument every tenant-scoped tool takes first. Its
// wording, like that of limit and cursor (pageArgs), is the same in every
// tool: said once, in the same words, an agent reads it as one thing.
type TenantArg struct {
	TenantID string `json:"tenant_id" jsonschema:"From list_tenants."`
}

// pageArgs are the arguments of a list that pages.
type pageArgs struct {
	Limit  pageLimit  `json:"limit,omitempty" jsonschema:"Page size. Default: 20."`
	Cursor pageCursor `json:"cursor,omitempty" jsonschema:"next_cursor of the last page."`
}

// tenantTool makes a tool that acts in one tenant. Its pipeline is the
// order of checks of docs/errors.md: active membership, then permission,
// then the arguments, then whatever fn looks up and writes.
func tenantTool[In, Out any](svc *service.Service, t Tool, fn func(context.Context, *service.Access, In) (Out, error)) *Tool {
	t.InputSchema, t.OutputSchema = schemaFor[In](), outputSchemaFor[Out]()
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
		if err := a.Allow(t.Op); err != nil {
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
	t.InputSchema, t.OutputSchema = schemaFor[In](), outputSchemaFor[Out]()
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
// The annotations say each thing once: the title is the tool's own, and
// destructiveHint, which the protocol reads only when readOnlyHint is
// false, goes with the tools that write.
func (t *Tool) definition() *mcp.Tool {
	a := &mcp.ToolAnnotations{ReadOnlyHint: t.ReadOnly, IdempotentHint: t.Idempotent, OpenWorldHint: ptr(false)}
	if !t.ReadOnly {
		a.DestructiveHint = ptr(t.Destructive)
	}
	return &mcp.Tool{
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  rawSchema(t.InputSchema),
		OutputSchema: rawSchema(t.OutputSchema),
		Annotations:  a,
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
