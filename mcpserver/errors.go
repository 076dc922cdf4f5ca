package mcpserver

import (
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/wire"
	"github.com/vitrine/vitrine/mcpserver/shapes"
)

// internalMessage is what an agent learns of an unexpected failure: that it
// happened, and the id that finds it in the log.
const internalMessage = "Internal error: the request could not be completed. Report request id %s to the operator if it persists"

// InternalErrorMessage is what a client learns of an unexpected failure of
// the request with that id, on any transport.
func InternalErrorMessage(requestID string) string { return fmt.Sprintf(internalMessage, requestID) }

// errorBodyOf maps any error to the seed's error body: the one place where
// that happens, for tools, resources and import rows alike. A business
// error shows its own type and message; anything else shows only a
// generic message with the request id (the pipeline logs the detail).
func errorBodyOf(err error, requestID string) shapes.ErrorBody {
	body := shapes.ErrorBody{Error: true}
	if e := vitrine.AsError(err); e != nil {
		body.Type, body.Message, body.Field = string(e.Type), e.Message, e.Field
		var og *outsideGrant
		if errors.As(err, &og) {
			body.Toolset = og.toolset
		}
	} else {
		body.Type = string(vitrine.GenericError)
		body.Message = InternalErrorMessage(requestID)
		body.RequestID = requestID
	}
	return body
}

// errorResult is a tool's error result: the body as its one text content.
func errorResult(err error, requestID string) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: wire.Compact(errorBodyOf(err, requestID))}},
	}
}
