package shopwindow

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// What the window's MCP endpoint answers before the SDK does, so that
// every client gets JSON-RPC as JSON-RPC 2.0 and UCP write it: the window
// never streams, so a client that accepts only application/json (Shopify's
// ucp-cli) is answered JSON, as one that accepts event streams too; a body
// that is not JSON is -32700 with id null, a request that is not a
// JSON-RPC request -32600, a method the window does not have -32601 (the
// SDK answered all three 400 text/plain); and a UCP negotiation error
// carries UCP's HTTP status (424 for profile_unreachable, 422, 400), the
// JSON-RPC error in the body, as UCP's MCP binding asks ("the HTTP status
// code is the primary signal").

// JSON-RPC 2.0's own codes (§5.1).
const (
	rpcParseError     = -32700
	rpcMethodNotFound = -32601
)

// mcpMethods are the methods the window's MCP server answers: the SDK's,
// those of the capabilities the window declares (tools) and of the
// protocol itself.
var mcpMethods = map[string]bool{
	"initialize": true, "ping": true, "server/discover": true,
	"tools/list": true, "tools/call": true,
	// What clients ask of every server, answered empty.
	"resources/list": true, "resources/templates/list": true, "prompts/list": true,
	"notifications/initialized": true, "notifications/cancelled": true, "notifications/progress": true,
	"notifications/roots/list_changed": true,
}

// rpcRequest is what the front reads of one JSON-RPC message.
type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
}

// acceptJSON lets a client that accepts only application/json (or names
// no type) through the SDK's check, which asks for event streams too: the
// window's handler answers JSON whatever the client accepts
// (JSONResponse), so a client that takes JSON gets what it takes.
func acceptJSON(r *http.Request) {
	if r.Method != http.MethodPost {
		return
	}
	a := strings.ToLower(r.Header.Get("Accept"))
	if a == "" || strings.Contains(a, "application/json") || strings.Contains(a, "*/*") || strings.Contains(a, "application/*") {
		r.Header.Set("Accept", "application/json, text/event-stream")
	}
}

// rpcProblem answers a POST body that the SDK would refuse as text: not
// JSON, not a JSON-RPC request, or a method the window does not have. It
// reports whether it answered; a batch (an array) is serveMCP's.
func rpcProblem(w http.ResponseWriter, body []byte) bool {
	body = bytes.TrimSpace(body)
	if !json.Valid(body) {
		writeRPCError(w, http.StatusBadRequest, nil, rpcParseError, "Parse error: the body is not JSON")
		return true
	}
	if len(body) > 0 && body[0] == '[' {
		return false
	}
	var m rpcRequest
	if body[0] != '{' || json.Unmarshal(body, &m) != nil || m.JSONRPC != "2.0" || m.Method == nil || !validID(m.ID) {
		writeRPCError(w, http.StatusBadRequest, idOrNull(m.ID), rpcInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 request object")
		return true
	}
	if !mcpMethods[*m.Method] {
		if len(m.ID) == 0 {
			// A notification the window does not know: nothing to answer.
			w.WriteHeader(http.StatusAccepted)
			return true
		}
		writeRPCError(w, http.StatusOK, m.ID, rpcMethodNotFound, "Method not found: "+*m.Method)
		return true
	}
	return false
}

// validID reports whether a request's id is one JSON-RPC allows: absent
// (a notification), a string, a number or null.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return true
	}
	switch id[0] {
	case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

func idOrNull(id json.RawMessage) json.RawMessage {
	if len(id) == 0 || !validID(id) {
		return json.RawMessage("null")
	}
	return id
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	type rpcErr struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	writeJSON(w, status, struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcErr          `json:"error"`
	}{"2.0", idOrNull(id), rpcErr{code, message}})
}

// rpcStatus carries, from a tool's handler to the endpoint's writer, the
// HTTP status of the UCP error it answered; 0 keeps the SDK's.
type rpcStatus struct {
	status int
	// language is the Content-Language of the call's answer, "" for none.
	language string
}

type rpcStatusKey struct{}

// setRPCStatus records the HTTP status of a tool call's UCP error.
func setRPCStatus(ctx context.Context, status int) {
	if s, ok := ctx.Value(rpcStatusKey{}).(*rpcStatus); ok {
		s.status = status
	}
}

// setRPCLanguage records the language of a tool call's answer.
func setRPCLanguage(ctx context.Context, language string) {
	if s, ok := ctx.Value(rpcStatusKey{}).(*rpcStatus); ok {
		s.language = language
	}
}

// statusWriter writes the recorded status in place of the SDK's 200, and
// the recorded language.
type statusWriter struct {
	http.ResponseWriter
	st    *rpcStatus
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	if w.st.language != "" {
		w.Header().Set("Content-Language", w.st.language)
	}
	if code == http.StatusOK && w.st.status != 0 {
		code = w.st.status
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
