package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
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

// protocolError is a call's answer as a JSON-RPC error rather than a tool
// result: the request itself is wrong (a requestState that does not
// verify), which MCP answers so.
type protocolError struct{ err *jsonrpc.Error }

func (e *protocolError) Error() string { return e.err.Message }

// Unwrap makes it, for the audit log and the log line, what it is: the
// client's mistake.
func (e *protocolError) Unwrap() error {
	return &vitrine.Error{Type: vitrine.ValidationError, Field: "requestState", Message: e.err.Message}
}

// confirmTTL is how long the server takes the answer to a confirmation it
// asked for.
const confirmTTL = 10 * time.Minute

// deletion is what confirmDeletion asks the user to confirm: the noun of
// the thing deleted ("product", "company"), its id, and the question,
// looked up only when it is asked.
type deletion struct {
	noun, id string
	question func() (message, check string, err error)
}

// productDeletion is the confirmation of delete_product.
func productDeletion(ctx context.Context, cat *catalog.Catalog, a *service.Access, id string) deletion {
	return deletion{noun: "product", id: id, question: func() (string, string, error) {
		p, err := cat.ProductToDelete(ctx, a, id)
		if err != nil {
			return "", "", err
		}
		return fmt.Sprintf("Delete the product %q (SKU %s) for good? This cannot be undone.", p.Name, p.SKU),
			"Check to delete the product for good.", nil
	}}
}

// confirmDeletion asks the user, through elicitation, to confirm a
// deletion, when the client can ask. It returns why nothing should be
// deleted, or "" to go ahead. A client without elicitation deletes
// without asking.
//
// An answer counts only if it comes with the requestState of the question:
// the server's signature over who asked to delete what. An answer a client
// sends on its first call, unasked, is ignored, and the question asked; a
// requestState that does not verify (altered, expired, or another call's)
// is a protocol error, and nothing is deleted. No argument of the tool
// stands for the answer.
func confirmDeletion(ctx context.Context, svc *service.Service, a *service.Access, d deletion) (string, error) {
	req := requestFrom(ctx)
	if req == nil || !canElicit(req.Session) {
		return "", nil
	}
	scope := "confirm-delete\x00" + a.TenantID + "\x00" + a.Caller.User.ID + "\x00" + d.id
	if d.noun != "product" {
		scope = "confirm-delete-" + d.noun + "\x00" + a.TenantID + "\x00" + a.Caller.User.ID + "\x00" + d.id
	}
	resp, answered := req.Params.InputResponses[confirmID].(*mcp.ElicitResult)
	if answered && req.Params.RequestState != "" {
		asked, err := svc.OpenState(ctx, scope, req.Params.RequestState)
		if err != nil {
			return "", err
		}
		if !asked {
			return "", &protocolError{&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: "requestState does not verify: it was altered, it expired, or it belongs to another call; call the tool again without it to be asked again"}}
		}
	} else {
		answered = false
	}
	if answered {
		switch {
		case resp.Action == "accept" && resp.Content["confirm"] == true:
			return "", nil
		case resp.Action == "accept":
			return "The user did not confirm the deletion; nothing was deleted.", nil
		case resp.Action == "decline":
			return "The user declined to delete the " + d.noun + "; nothing was deleted.", nil
		default:
			return "The user dismissed the confirmation; nothing was deleted.", nil
		}
	}
	message, check, err := d.question()
	if err != nil {
		return "", err
	}
	state, err := svc.SealState(ctx, scope, confirmTTL)
	if err != nil {
		return "", err
	}
	return "", &inputRequired{&mcp.CallToolResult{RequestState: state, InputRequests: mcp.InputRequestMap{confirmID: &mcp.ElicitParams{
		Message: message,
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"confirm": map[string]any{"type": "boolean", "title": "Delete it", "description": check},
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

// callDeadline bounds a whole tool call by --call-timeout, the questions it
// asks the client included: the SDK asks them (elicitation) between two
// runs of the tool's handler, outside the handler's own deadline, and a
// client that never answers would hold the call, and a shutdown, forever.
func (s *Server) callDeadline(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		r, ok := req.(*mcp.CallToolRequest)
		if !ok {
			return next(ctx, method, req)
		}
		ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
		defer cancel()
		res, err := next(ctx, method, req)
		if err != nil && ctx.Err() != nil {
			id := vitrine.NewID()
			s.log.Warn("tool call", "request_id", id, "tool", r.Params.Name, "outcome", "no_answer", "err", err.Error())
			return errorResult(&vitrine.Error{Type: vitrine.GenericError,
				Message: "The client did not answer within the call's time limit; nothing was done"}, id), nil
		}
		return res, err
	}
}
