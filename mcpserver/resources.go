package mcpserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/wire"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// ProductURITemplate names a product as an MCP resource.
const ProductURITemplate = "vitrine://tenants/{tenant_id}/products/{id}"

// ProductURI is the resource URI of a product.
func ProductURI(tenantID, id string) string {
	return "vitrine://tenants/" + tenantID + "/products/" + id
}

// Resource errors are JSON-RPC errors, as MCP wants them: a code, the
// message the tool would give, and in data the same error JSON as a tool's
// with the uri read. A resource not found is -32602, Invalid Params, as
// MCP asks since 2026-07-28 (SEP-2164; -32002 before); -32010 is ours for
// a denial (the SDK's JSON-RPC layer reserves -32001 and -32003 to
// -32005).
const (
	codeResourceNotFound = jsonrpc.CodeInvalidParams
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
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: ExportURITemplate,
		Name:        "export",
		Title:       "Company archive",
		Description: "An archive of export_tenant (a zip), for 24 hours. Readable with tenants:delete in that company.",
		MIMEType:    "application/zip",
	}, s.readExport)
}

// readProduct is the product resource's adapter to the pipeline
// (handle), with the checks of get_product: membership, then permission,
// then lookup; audited like a tool call.
func (s *Server) readProduct(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	out, requestID, err := s.handle(ctx, "resource read", "resources/read", req, func(ctx context.Context, svc *service.Service, caller *vitrine.Caller) (any, about, error) {
		return productResource(ctx, svc, caller, req.Params.URI)
	})
	if err != nil {
		return nil, resourceError(err, requestID, req.Params.URI)
	}
	return out.(*mcp.ReadResourceResult), nil
}

func productResource(ctx context.Context, svc *service.Service, caller *vitrine.Caller, uri string) (*mcp.ReadResourceResult, about, error) {
	rest, ok := strings.CutPrefix(uri, "vitrine://tenants/")
	tenantID, id, ok2 := strings.Cut(rest, "/products/")
	if !ok || !ok2 || strings.Contains(id, "/") {
		return nil, about{}, vitrine.NotFound("Product")
	}
	ab := about{target: id}
	a, err := svc.Access(ctx, caller, tenantID)
	if err != nil {
		return nil, ab, err
	}
	ab.tenant = tenantID
	p, err := catalog.New(svc).GetProduct(ctx, a, id, "")
	if err != nil {
		return nil, ab, err
	}
	text, err := json.Marshal(shapes.ProductView(p))
	if err != nil {
		return nil, ab, err
	}
	// A product changes whenever someone writes it, and only its readers
	// may see it.
	return readResult(perCaller, &mcp.ResourceContents{URI: uri, MIMEType: "application/json", Text: string(text)}), ab, nil
}

// resourceError answers a resource read's error as a JSON-RPC error whose
// data is the error body a tool would answer, with the uri read.
func resourceError(err error, requestID, uri string) error {
	body := errorBodyOf(err, requestID)
	body.URI = uri
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
	return &jsonrpc.Error{Code: code, Message: body.Message, Data: json.RawMessage(wire.Compact(body))}
}
