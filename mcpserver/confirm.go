package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/service"
)

// confirmID names the confirmation among a call's input requests.
const confirmID = "confirm"

// inputRequired carries a result that asks the client for input before the
// call can go on (MCP multi round-trip requests). The SDK asks the user
// (elicitation) and calls the tool again with the answer; clients of the
// sessionless protocol do the same themselves. It is not an outcome: the
// call is logged and audited when it completes.
type inputRequired struct{ res *mcp.CallToolResult }

func (e *inputRequired) Error() string { return "input required" }

// confirmDeletion asks the user, through elicitation, to confirm deleting
// a product, when the client can ask (--confirm-destructive). It returns
// why nothing should be deleted, or "" to go ahead. A client without
// elicitation deletes without asking, as without --confirm-destructive.
func confirmDeletion(ctx context.Context, svc *service.Service, a *service.Access, id string) (string, error) {
	req := requestFrom(ctx)
	if req == nil || !canElicit(req.Session) {
		return "", nil
	}
	if resp, ok := req.Params.InputResponses[confirmID].(*mcp.ElicitResult); ok {
		switch {
		case resp.Action == "accept" && resp.Content["confirm"] == true:
			return "", nil
		case resp.Action == "accept":
			return "The user did not confirm the deletion; nothing was deleted.", nil
		case resp.Action == "decline":
			return "The user declined to delete the product; nothing was deleted.", nil
		default:
			return "The user dismissed the confirmation; nothing was deleted.", nil
		}
	}
	p, err := svc.ProductToDelete(ctx, a, id)
	if err != nil {
		return "", err
	}
	return "", &inputRequired{&mcp.CallToolResult{InputRequests: mcp.InputRequestMap{confirmID: &mcp.ElicitParams{
		Message: fmt.Sprintf("Delete the product %q (SKU %s) for good? This cannot be undone.", p.Name, p.SKU),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"confirm": map[string]any{"type": "boolean", "title": "Delete it", "description": "Check to delete the product for good."},
			},
			"required": []string{"confirm"},
		},
	}}}}
}

// canElicit reports whether the client said it can ask its user questions.
func canElicit(s *mcp.ServerSession) bool {
	if s == nil {
		return false
	}
	p := s.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

type requestKey struct{}

func withRequest(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	return context.WithValue(ctx, requestKey{}, req)
}

// requestFrom returns the tool call running in ctx.
func requestFrom(ctx context.Context) *mcp.CallToolRequest {
	req, _ := ctx.Value(requestKey{}).(*mcp.CallToolRequest)
	return req
}
