package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
)

// ProductURITemplate names a product as an MCP resource.
const ProductURITemplate = "vitrine://tenants/{tenant_id}/products/{id}"

// ProductURI is the resource URI of a product.
func ProductURI(tenantID, id string) string {
	return "vitrine://tenants/" + tenantID + "/products/" + id
}

// Resource errors are JSON-RPC errors, as MCP wants them: a code, the
// message the tool would give, and in data the same error JSON as a tool's.
// -32002 is MCP's "resource not found"; -32010 is ours for a denial (the
// SDK's JSON-RPC layer reserves -32001 and -32003 to -32005).
const (
	codeResourceNotFound = -32002
	codeResourceDenied   = -32010
)

func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: ProductURITemplate,
		Name:        "product",
		Title:       "Product",
		Description: "A product of a company's catalog, as get_product returns it. Readable with products:read in that company.",
		MIMEType:    "application/json",
	}, s.readProduct)
}

// readProduct serves a product resource with the checks of get_product:
// membership, then permission, then lookup; audited like a tool call.
func (s *Server) readProduct(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	start := time.Now()
	s.metrics.begin()
	e := &vitrine.AuditEvent{ID: vitrine.NewID(), Time: vitrine.Now(), TenantID: vitrine.NoTenant, Tool: "resources/read"}
	e.RequestID = e.ID
	res, err := s.productResource(ctx, req, e)
	if e.UserID != "" {
		e.Outcome = outcome(err)
		if aerr := s.svc.RecordAudit(ctx, e); aerr != nil {
			res, err = nil, fmt.Errorf("record audit event: %w", aerr)
		}
	}
	level := slog.LevelInfo
	if err != nil && vitrine.AsError(err) == nil {
		level = slog.LevelError
	}
	s.log.Log(ctx, level, "resource read", "request_id", e.RequestID, "uri", uri, "outcome", outcome(err), "err", err)
	s.metrics.end(e.Tool, outcome(err), time.Since(start))
	if err != nil {
		return nil, resourceError(err, e.RequestID)
	}
	return res, nil
}

func (s *Server) productResource(ctx context.Context, req *mcp.ReadResourceRequest, e *vitrine.AuditEvent) (*mcp.ReadResourceResult, error) {
	caller, err := s.caller(ctx, req)
	if err != nil {
		return nil, vitrine.ErrNoMembership
	}
	e.UserID, e.TokenID = caller.User.ID, caller.Token.ID
	rest, ok := strings.CutPrefix(req.Params.URI, "vitrine://tenants/")
	tenantID, id, ok2 := strings.Cut(rest, "/products/")
	if !ok || !ok2 || strings.Contains(id, "/") {
		return nil, vitrine.NotFound("Product")
	}
	e.TargetID = id
	a, err := s.svc.Access(ctx, caller, tenantID)
	if err != nil {
		return nil, err
	}
	e.TenantID = tenantID
	p, err := s.svc.GetProduct(ctx, a, id, "")
	if err != nil {
		return nil, err
	}
	text, err := json.Marshal(productView(p))
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(text)}}}, nil
}

func resourceError(err error, requestID string) error {
	res := errorResult(err, requestID)
	text := res.Content[0].(*mcp.TextContent).Text
	var body errorBody
	json.Unmarshal([]byte(text), &body)
	code := int64(jsonrpc.CodeInternalError)
	switch vitrine.TypeOf(err) {
	case vitrine.NotFoundError:
		code = codeResourceNotFound
	case vitrine.PermissionError:
		code = codeResourceDenied
	case vitrine.ValidationError:
		code = jsonrpc.CodeInvalidParams
	case vitrine.GenericError:
		if vitrine.AsError(err) != nil {
			code = codeResourceDenied // no membership
		}
	}
	return &jsonrpc.Error{Code: code, Message: body.Message, Data: json.RawMessage(text)}
}
