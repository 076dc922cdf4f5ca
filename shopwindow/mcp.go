package shopwindow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/wire"
)

// mcpServer is the windows' MCP server: UCP's MCP binding of the catalog,
// the three tools of tools.go and nothing else (no resources, no prompts,
// no admin tool). Each answers the UCP payload as structuredContent, with
// its JSON as the text mirror.
func (s *Server) mcpServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "vitrine-shop", Title: "Vitrine shop window", Version: Version}, &mcp.ServerOptions{
		Instructions: "A shop's catalog, as UCP's catalog capability (" + strings.Join(Versions, " and ") + ", the version your profile declares): search_catalog, lookup_catalog, get_product. " +
			"Every call carries meta[\"ucp-agent\"].profile, the URL of your agent's UCP profile. Prices are in minor units of their currency.",
		Logger:       s.log,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		// The tools are the same for everyone and change only with a
		// deploy: any client or intermediary may keep the list an hour.
		SetCacheable: func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
			if _, ok := req.(*mcp.ListToolsRequest); ok {
				c.TTLMs, c.CacheScope = int(time.Hour.Milliseconds()), "public"
				return
			}
			c.TTLMs, c.CacheScope = 0, "public"
		},
	})
	for _, t := range toolOps {
		schemas := t.schemas()
		srv.AddTool(&mcp.Tool{Name: t.name, Title: t.title, Description: t.description, InputSchema: schemas.in, OutputSchema: schemas.out,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}}, s.toolHandler(t.op))
	}
	return srv
}

func ptr[T any](v T) *T { return &v }

// toolHandler runs one operation for the window the request reached.
func (s *Server) toolHandler(op string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		win := windowOf(ctx)
		if win == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "no window"}
		}
		var args toolArgs
		if len(req.Params.Arguments) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, s.rpcError(ctx, win, op, invalid("the arguments are not {\"meta\": {...}, \"catalog\": {...}}: %s", jsonProblem(err)))
			}
		}
		if len(args.Catalog) == 0 {
			if stray := strayKeys(req.Params.Arguments); len(stray) > 0 {
				return nil, s.rpcError(ctx, win, op, invalid("the operation's request goes under \"catalog\", as UCP's MCP binding says: "+
					"{\"meta\": {\"ucp-agent\": {...}}, \"catalog\": {...}}; %s given at the top level", strings.Join(stray, ", ")))
			}
		}
		profileURL := agentProfileOf(&args, req.Params.Meta)
		// serveMCP counted the profile it read; should this one differ
		// (a JSON decoder that reads a message otherwise), it is counted
		// here, so that the profile limited is the one used.
		if counted, _ := ctx.Value(countedProfileKey{}).(string); profileURL != counted {
			if d := s.profileWait(profileURL); d > 0 {
				return nil, s.rpcError(ctx, win, op, rateLimited(d))
			}
		}
		capability := capabilityOf(op)
		v, ok, uerr := s.negotiate(ctx, win, profileURL, capability)
		if uerr != nil {
			return nil, s.rpcError(ctx, win, op, uerr)
		}
		var payload any
		if !ok {
			s.metrics.requests.WithLabelValues(win.Tenant.Slug, op, "capabilities_incompatible").Inc()
			payload = incompatible(win, v, capability)
		} else {
			res, in, err := s.run(ctx, win, op, v, args.Catalog)
			if err != nil {
				var ue *ucpError
				if errors.As(err, &ue) {
					return nil, s.rpcError(ctx, win, op, ue)
				}
				id := vitrine.NewID()
				s.log.Error("shop window: "+op, "request_id", id, "err", err)
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error (request " + id + ")"}
			}
			s.metrics.requests.WithLabelValues(win.Tenant.Slug, op, outcome(res)).Inc()
			setRPCLanguage(ctx, in.language())
			payload = res
		}
		// Encoded once, as the admin tools' results are (internal/wire):
		// the text content's wire form is made from it, not encoded again.
		text := wire.Compact(payload)
		s.metrics.seconds.WithLabelValues(op, "mcp").Observe(time.Since(start).Seconds())
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(text), Content: []mcp.Content{wire.Text(text)}}, nil
	}
}

// strayKeys are the keys of a call's arguments other than meta and
// catalog: an agent that wrote the request at the top level.
func strayKeys(raw json.RawMessage) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var out []string
	for k := range m {
		if k != "meta" && k != "catalog" {
			out = append(out, strconv.Quote(k))
		}
	}
	slices.Sort(out)
	return out
}

// rpcError is a transport error as UCP's MCP binding writes it: its
// JSON-RPC code, UCP's code and content in its data.
func (s *Server) rpcError(ctx context.Context, win *Window, op string, e *ucpError) error {
	if e.rpc == rpcNegotiation || e.rpc == rpcProtocol {
		setRPCStatus(ctx, e.status)
	}
	s.metrics.requests.WithLabelValues(win.Tenant.Slug, op, e.code).Inc()
	data, _ := json.Marshal(refusal(win, e))
	msg := e.content
	switch e.rpc {
	case rpcNegotiation:
		msg = "UCP discovery failed"
		if e.code == "version_unsupported" {
			msg = "Protocol version not supported"
		}
	case rpcProtocol:
		msg = "Rate limit exceeded"
		data, _ = json.Marshal(map[string]any{"code": e.code, "content": e.content, "retry_after": retrySeconds(e.retryAfter)})
	}
	return &jsonrpc.Error{Code: e.rpc, Message: msg, Data: data}
}

// serveMCP answers the window's MCP endpoint. A POST is read here, before
// the SDK: a batch (a JSON array) is refused; what is not a JSON-RPC
// request of a method the window has is answered as JSON-RPC says
// (jsonrpc.go); a tools/call counts against the per-profile limit, so
// that a request past it is answered 429, as UCP asks of MCP over HTTP,
// with a JSON-RPC error of code -32000 and its retry_after; then the SDK
// answers, JSON to a client that accepts only JSON, with the HTTP status
// of a UCP error.
//
// Batches are refused rather than counted call by call: the window speaks
// MCP 2025-11-25 and later, which have none, and the SDK, which takes a
// request without MCP-Protocol-Version for 2025-03-26, would otherwise run
// a whole array of calls for one request of the per-address limit and one
// parse of the per-profile one.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		s.mcp.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeRPCError(w, http.StatusRequestEntityTooLarge, nil, rpcInvalidRequest, "request body exceeds "+strconv.FormatInt(mbe.Limit, 10)+" bytes")
			return
		}
		writeRPCError(w, http.StatusBadRequest, nil, rpcInvalidRequest, "the request body could not be read")
		return
	}
	if isBatch(body) {
		writeRPCError(w, http.StatusBadRequest, nil, rpcInvalidRequest,
			"Batches are not supported: send one JSON-RPC request per POST (MCP 2025-11-25 and later have no batches).")
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if rpcProblem(w, body) {
		return
	}
	if s.agents != nil {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Arguments toolArgs       `json:"arguments"`
				Meta      map[string]any `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &m) == nil && m.Method == "tools/call" {
			profile := agentProfileOf(&m.Params.Arguments, m.Params.Meta)
			if d := s.profileWait(profile); d > 0 {
				tooManyRPC(w, m.ID, d)
				return
			}
			r = r.WithContext(context.WithValue(r.Context(), countedProfileKey{}, profile))
		}
	}
	acceptJSON(r)
	st := &rpcStatus{}
	r = r.WithContext(context.WithValue(r.Context(), rpcStatusKey{}, st))
	s.mcp.ServeHTTP(&statusWriter{ResponseWriter: w, st: st}, r)
}

// rpcInvalidRequest is JSON-RPC's code for a request that is not a valid
// Request object: here, a batch.
const rpcInvalidRequest = -32600

// countedProfileKey holds, in a tools/call's context, the agent profile
// serveMCP counted against the per-profile limit.
type countedProfileKey struct{}

// agentProfileOf is the agent profile a tools/call names, where the
// per-profile limit and the tool both read it: UCP's
// meta["ucp-agent"].profile in the arguments, else the same in MCP's own
// _meta, where some clients write it.
func agentProfileOf(args *toolArgs, meta map[string]any) string {
	if p := args.Meta.Agent.Profile; p != "" {
		return string(p)
	}
	if m, ok := meta["ucp-agent"].(map[string]any); ok {
		p, _ := m["profile"].(string)
		return p
	}
	return ""
}

// isBatch reports whether a request body is a JSON-RPC batch: a JSON
// array, after the white space JSON allows before it (as the SDK reads
// it).
func isBatch(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// tooManyRPC answers 429 with Retry-After and UCP's JSON-RPC error.
func tooManyRPC(w http.ResponseWriter, id json.RawMessage, after time.Duration) {
	secs := retrySeconds(after)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	writeJSON(w, http.StatusTooManyRequests, map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": rpcProtocol, "message": "Rate limit exceeded", "data": map[string]any{"retry_after": secs}}})
}

// mcpHandler is the windows' MCP endpoint: Streamable HTTP without
// sessions (each request stands alone: nothing of an anonymous client is
// kept), both revisions Vitrine serves, the three catalog tools.
func (s *Server) mcpHandler() http.Handler {
	srv := s.mcpServer()
	// Without the SDK's DNS-rebinding check, which on a loopback listener
	// refuses a Host that is not loopback: a window is reached by its own
	// hosts (behind a proxy on the same machine too), holds nothing
	// private and takes no credential, so a rebound page learns nothing
	// the internet cannot read.
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Logger: s.log, Stateless: true, JSONResponse: true, DisableLocalhostProtection: true})
}
