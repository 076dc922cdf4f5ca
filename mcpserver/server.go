// Package mcpserver serves Vitrine's tools over the Model Context Protocol
// with the official Go SDK: on stdio here, on Streamable HTTP through
// package httpserver. It turns MCP requests into calls of the domain
// service and its answers into results or the error JSON of
// docs/errors.md.
package mcpserver

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/views"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
)

// Options configure a Server.
type Options struct {
	// Toolsets are the toolsets the deployment serves: names of Toolsets,
	// or "all" (empty means it). Within them, each caller lists and calls
	// the tools of the toolsets its token grants.
	Toolsets []string
	// ReadOnly exposes only the tools that change nothing.
	ReadOnly bool
	// Token authenticates every call of a single-user transport (stdio).
	// HTTP callers present their own token with each request instead.
	Token string
	// Logger receives one line per tool call, and internal errors in full.
	Logger *slog.Logger
	// Version is reported to clients in the initialize handshake.
	Version string
	// IconsURL is where the binary serves its icons (the HTTP server's
	// public URL + httpserver.IconsPath), named by the server's identity
	// and by every tool. Empty (stdio: no URL to name), the server's
	// icon is a data: URI and tools name none.
	IconsURL string
	// PublicURL is the base URL the HTTP server is reached at, under which
	// the shop windows are served ({PublicURL}/shops/{slug}/): get_shop
	// names their URLs. Empty (stdio), it names only the hosts.
	PublicURL string
	// ShopDomain, if set, serves each open window at the root of
	// {slug}.{ShopDomain} too, as get_shop says.
	ShopDomain string
	// ConfirmDestructive makes delete_product ask the user to confirm,
	// through elicitation, when the client can ask.
	ConfirmDestructive bool
	// DeletionGrace is how long a company scheduled for deletion stays
	// restorable (delete_tenant); 0 is vitrine.DefaultDeletionGrace.
	DeletionGrace time.Duration
	// Metrics, if set, receives the server's Prometheus instruments.
	Metrics prometheus.Registerer
	// CallTimeout bounds a tool call; past it the call answers an internal
	// error (and its transaction rolls back). Default: 60 seconds.
	CallTimeout time.Duration
	// SDKLogger receives the MCP SDK's own messages; nil uses Logger.
	SDKLogger *slog.Logger
}

// Server is Vitrine's MCP server.
type Server struct {
	svc     *service.Service
	opts    Options
	log     *slog.Logger
	tools   []*Tool // after the server's filters, in listing order
	byName  map[string]*Tool
	served  []string // the toolsets the deployment serves
	mcp     *mcp.Server
	metrics *metrics
	// discovery holds request_toolset's definition by the toolsets a
	// caller may ask for (discoveryDefinition).
	discovery sync.Map
	// unlocalized holds, by tool name, the definitions of the tools with
	// Localized fields as a caller not granted translations sees them.
	unlocalized sync.Map
}

// New builds the server and its tools.
func New(svc *service.Service, opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = time.Minute
	}
	served, err := servedToolsets(opts.Toolsets)
	if err != nil {
		return nil, err
	}
	s := &Server{svc: svc, opts: opts, log: opts.Logger, byName: map[string]*Tool{}, served: served}
	for _, t := range allTools(opts, s) {
		if s.serves(t) {
			s.tools = append(s.tools, t)
			s.byName[t.Name] = t
		}
	}
	if opts.SDKLogger == nil {
		opts.SDKLogger = opts.Logger
	}
	// No list changes while a server runs: what a caller lists changes
	// with a deploy (a new server) or with a grant (a new token), so no
	// list declares listChanged. How long each answer may be kept says
	// cacheable (cache.go).
	caps := &mcp.ServerCapabilities{
		Tools:     &mcp.ToolCapabilities{},
		Resources: &mcp.ResourceCapabilities{},
		// Vitrine serves no prompts; prompts/list answers an empty list,
		// as the capability says it may be asked.
		Prompts: &mcp.PromptCapabilities{},
		//lint:ignore SA1019 MCP logging is deprecated as of protocol 2026-07-28 (SEP-2577), with no replacement in the protocol or the SDK; kept for the clients of earlier revisions that ask for it (logging/setLevel), functional for at least twelve months.
		Logging: &mcp.LoggingCapabilities{},
	}
	if s.serves(&Tool{Toolset: "products", ReadOnly: true}) {
		// The views of MCP Apps: a host and a server opt in to an
		// extension only when both declare it.
		caps.AddExtension(views.Extension, map[string]any{"mimeTypes": []string{views.MIMEType}})
	}
	s.mcp = mcp.NewServer(implementation(opts), &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       opts.SDKLogger,
		Capabilities: caps,
		SetCacheable: cacheable,
	})
	for _, t := range s.tools {
		s.mcp.AddTool(t.definition(opts.IconsURL), s.handler(t))
	}
	if s.serves(&Tool{Toolset: "products", ReadOnly: true}) {
		s.addResources()
		s.addViews()
	}
	s.mcp.AddReceivingMiddleware(s.visibility, s.callDeadline)
	s.metrics = newMetrics(opts.Metrics, s)
	return s, nil
}

// instructions tell a model how to use the server as a whole.
const instructions = `Vitrine is a product catalog shared by several companies (tenants). ` +
	`Call whoami or list_tenants first: they give the ids of the companies you can act in and what you may do in each. ` +
	`Every other tool takes a tenant_id. Errors come back as JSON with a type: PermissionError (tell the user to ask ` +
	`an administrator), NotFoundError (check the id), ConflictError (check the data), ValidationError (fix the ` +
	`arguments and retry), Error (report it; for "Membership not found or inactive", call list_tenants). ` +
	`Your tools are those the user granted you; request_toolset lists the others and asks for one.`

// AllTools returns every tool, in listing order, before any filter.
func AllTools(svc *service.Service, opts Options) []*Tool {
	served, _ := servedToolsets(opts.Toolsets)
	return allTools(opts, &Server{svc: svc, opts: opts, served: served})
}

func allTools(opts Options, s *Server) []*Tool {
	tools := slices.Concat(tenantTools(), invitationTools(), listingTools(), productTools(opts), variantTools(), stockTools(), importTools(), exportTools(), taxonomyTools(), synonymTools(),
		memberTools(), roleTools(), auditTools(), shopTools(opts), marketTools(opts), companyTools(opts), exportTenantTools(opts.PublicURL), translationTools(), translationFileTools())
	return append(tools, discoveryTools(s)...)
}

// MCP returns the underlying SDK server.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one session on t until the client disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error { return s.mcp.Run(ctx, t) }

// The filters that decide which tools a caller sees, in their one order:
//  1. the deployment's toolsets (Options.Toolsets);
//  2. the deployment's read-only mode (Options.ReadOnly);
//  3. the caller's grant: the toolsets its token grants, and with a
//     read-only token only the tools that change nothing;
//  4. the caller's permissions, checked per call in the tenant named: a tool
//     stays listed, and answers PermissionError where it is not allowed.
//
// A tool hidden by 1 or 2 does not exist: calling it is the protocol error
// "Unknown tool". One outside the caller's grant (3) is not listed, and
// calling it is refused so that the client can ask for more: over HTTP an
// OAuth client is answered 403 insufficient_scope with the scope to ask
// for (StepUp), a personal token's holder a business error that says
// which token would do (checkGrant). Nothing else changes what a caller
// lists: not an earlier request, nor another caller's.

// serves applies filters 1 and 2.
func (s *Server) serves(t *Tool) bool {
	return (slices.Contains(s.served, t.Toolset) || t.Toolset == DiscoveryToolset) && (!s.opts.ReadOnly || t.ReadOnly)
}

// visibility is the SDK middleware that answers unknown tools with the
// contract's exact message (the SDK's own reads `unknown tool "x"`), and
// applies filter 3 to tools/list.
func (s *Server) visibility(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch r := req.(type) {
		case *mcp.CallToolRequest:
			if _, ok := s.byName[r.Params.Name]; !ok {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unknown tool: " + r.Params.Name}
			}
		case *mcp.ListToolsRequest:
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			c, _ := s.caller(ctx, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok {
				lr.Tools = s.listFor(c, lr.Tools)
				if views.Shown(req) {
					lr.Tools = views.Link(lr.Tools)
				}
			}
			return res, nil
		}
		return next(ctx, method, req)
	}
}

// listFor returns the tools of a tools/list that the caller's grant holds,
// request_toolset only while the caller may ask for more.
func (s *Server) listFor(c *vitrine.Caller, tools []*mcp.Tool) []*mcp.Tool {
	missing := s.notGranted(c)
	out := make([]*mcp.Tool, 0, len(tools))
	for _, d := range tools {
		t := s.byName[d.Name]
		switch {
		case t.Toolset == DiscoveryToolset && len(missing) > 0:
			out = append(out, s.discoveryDefinition(d, missing))
		case t.Toolset != DiscoveryToolset && granted(t, c):
			out = append(out, s.localizedDefinition(t, d, c))
		}
	}
	return out
}

// caller returns who makes the request: the caller that the HTTP layer
// authenticated for this very request, or else the holder of the server's
// own token (stdio), checked again so that a revocation applies at once.
func (s *Server) caller(ctx context.Context, req mcp.Request) (*vitrine.Caller, error) {
	if extra := req.GetExtra(); extra != nil {
		if c := CallerOf(extra.TokenInfo); c != nil {
			return c, nil
		}
	}
	if s.opts.Token != "" {
		return s.svc.Accounts().Authenticate(ctx, s.opts.Token)
	}
	return nil, accounts.ErrUnauthenticated
}

// handler is a tool's adapter to the pipeline (handle): it parses the
// arguments and runs the tool, and turns the output or the error into the
// tool's result.
func (s *Server) handler(t *Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		out, requestID, err := s.handle(withRequest(ctx, req), "tool call", t.Name, req, func(ctx context.Context, svc *service.Service, caller *vitrine.Caller) (any, about, error) {
			return s.runTool(ctx, t, svc, caller, req)
		})
		var (
			input    *inputRequired
			protocol *protocolError
		)
		switch {
		case errors.As(err, &input):
			return input.res, nil
		case errors.As(err, &protocol):
			return nil, protocol.err
		case err != nil:
			return errorResult(err, requestID), nil
		}
		return out.(*mcp.CallToolResult), nil
	}
}

// runTool parses a tool's arguments and runs it, and says what the call
// was about: the resource its arguments name (Tool.TargetArg), which the
// caller's call carries down to the store's event too; else, on success,
// the record the result is; else what the run said (the tenant a refused
// call tried). What a failed call would have created does not exist.
func (s *Server) runTool(ctx context.Context, t *Tool, svc *service.Service, caller *vitrine.Caller, req *mcp.CallToolRequest) (*mcp.CallToolResult, about, error) {
	if err := checkGrant(t, caller); err != nil {
		return nil, about{}, err
	}
	c := call{svc: svc, caller: caller, args: req.Params.Arguments}
	out, ab, err := t.run(ctx, &c)
	switch {
	case c.target != "":
		ab.target = c.target
	case err == nil:
		ab.target = resultID(out)
	}
	if err != nil {
		return nil, ab, err
	}
	return successResult(out), ab, nil
}

// idFields holds, by result type, the index of its "id" field ([]int, nil
// for none).
var idFields sync.Map

// resultID returns the "id" of a result that is one record, read from the
// typed result (a list's page, say, has none), without decoding its JSON.
func resultID(out any) string {
	v := reflect.ValueOf(out)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	index, ok := idFields.Load(v.Type())
	if !ok {
		index = idField(v.Type())
		idFields.Store(v.Type(), index)
	}
	if index.([]int) == nil {
		return ""
	}
	f, err := v.FieldByIndexErr(index.([]int))
	if err != nil {
		return ""
	}
	return f.String()
}

// idField returns the index of t's string field that encodes as "id".
func idField(t reflect.Type) []int {
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.IsExported() && name == "id" && f.Type.Kind() == reflect.String {
			return f.Index
		}
	}
	return nil
}

// notifyLog tells the client of the call, as an MCP log message, if the
// session asked for messages of that level (logging/setLevel). It carries
// what the agent already knows, never an internal error's detail.
func notifyLog(ctx context.Context, ss *mcp.ServerSession, level slog.Level, kind, name, requestID, outcome string, took time.Duration) {
	if ss == nil {
		return
	}
	lvl := "info"
	if level >= slog.LevelError {
		lvl = "error"
	}
	// Best effort: a client that went away must not fail the call.
	//lint:ignore SA1019 the logging feature is deprecated; see the capability in New.
	_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(lvl), Logger: "vitrine", Data: map[string]any{
		"msg": kind, "tool": name, "outcome": outcome, "request_id": requestID, "duration_ms": took.Milliseconds(),
	}})
}
