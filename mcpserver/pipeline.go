package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
)

// handle runs one call of any kind (a tool, a resource read) through the
// one pipeline, top to bottom:
//
//  1. its request id (vitrine.Call) and deadline;
//  2. the caller, from the request's token, given the call: the read-only
//     value the service and the store take as who acts and why;
//  3. the call itself (run), on the service the call runs on (runAs), a
//     panic in it made an internal error; run returns what the call was
//     about (about), from what it already has;
//  4. its audit event, exactly one: every authenticated call hands its
//     event to the service's audit log; a call that wrote has stored the
//     same event (same id: the request id) in its write's transaction,
//     and the store ignores the second copy;
//  5. its log line, metrics and the session's notification.
//
// It returns run's output, or the error that the kind's adapter turns into
// its answer through errorBodyOf, the one place where errors become
// bodies. A call that asks the client a question first (inputRequired)
// returns that, and is neither audited nor logged until it is answered.
func (s *Server) handle(ctx context.Context, kind, name string, req mcp.Request, run runFunc) (any, string, error) {
	start := time.Now()
	s.metrics.begin()
	// A tool's writes say why stock changes in the tool's own name.
	call := vitrine.Call{Actor: vitrine.ActorUser, RequestID: vitrine.NewID(), Tool: name, At: vitrine.Now(), Reason: name}
	ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	defer cancel()

	caller, err := s.signedIn(ctx, req)
	var (
		out any
		ab  about
	)
	if err == nil {
		caller, out, ab, err = s.runAs(ctx, caller, recheckFor(req), call, run)
	}
	e := &vitrine.AuditEvent{ID: call.RequestID, Time: call.At, TenantID: vitrine.NoTenant, Actor: call.Actor, Tool: name,
		TargetID: ab.target, Outcome: outcome(err), RequestID: call.RequestID}
	if ab.tenant != "" {
		e.TenantID = ab.tenant
	}
	var input *inputRequired
	if errors.As(err, &input) {
		s.metrics.end(name, "input_required", time.Since(start))
		return nil, e.RequestID, err
	}
	if caller != nil {
		e.UserID, e.TokenID = caller.User.ID, caller.Token.ID
		if aerr := s.svc.Audit().Record(ctx, e); aerr != nil {
			// An answer whose trace is lost must not go out as a success.
			out, err = nil, fmt.Errorf("record audit event: %w", aerr)
		}
	}
	took := time.Since(start)
	level := s.logCall(ctx, kind, e, err, took)
	s.metrics.end(name, outcome(err), took)
	ss, _ := req.GetSession().(*mcp.ServerSession)
	notifyLog(ctx, ss, level, kind, name, e.RequestID, outcome(err), took)
	return out, e.RequestID, err
}

// runFunc is one call of a kind, run on the service given as the caller
// given.
type runFunc func(context.Context, *service.Service, *vitrine.Caller) (any, about, error)

// runAs runs the call as the caller, on its own copy of it (the caller is
// shared, cached; the call is this one's). A caller taken from the access
// cache (recheck set) was read under an access epoch not read since: the
// call runs on a service of its own (Service.CheckingEpoch) whose first
// unit of work checks that epoch, in its own round trip. When the epoch
// had moved (the unit wrote nothing), or the call reached no unit of work
// and the epoch read after it (ConfirmEpoch) is not the caller's, the
// caller is authenticated again, and the call run again as the fresh
// caller if the epoch had moved. It returns the caller the call ran as,
// nil if the token is now refused.
func (s *Server) runAs(ctx context.Context, caller *vitrine.Caller, recheck Recheck, call vitrine.Call, run runFunc) (*vitrine.Caller, any, about, error) {
	c := *caller
	c.Call = call
	if recheck == nil {
		out, ab, err := guard(ctx, s.svc, &c, run)
		return caller, out, ab, err
	}
	svc := s.svc.CheckingEpoch(caller.AccessEpoch)
	out, ab, err := guard(ctx, svc, &c, run)
	stale := errors.Is(err, vitrine.ErrStaleAccess)
	if !stale && svc.ConfirmEpoch(ctx) == nil {
		return caller, out, ab, err
	}
	fresh, rerr := recheck(ctx)
	if rerr != nil {
		// Refused now: as a token refused before the call, it made no call
		// of its own to audit.
		return nil, nil, about{}, signInError(rerr)
	}
	if !stale && fresh.AccessEpoch == caller.AccessEpoch {
		return caller, out, ab, err
	}
	c = *fresh
	c.Call = call
	out, ab, err = guard(ctx, s.svc, &c, run)
	return fresh, out, ab, err
}

// recheckFor returns the Recheck an HTTP transport handed with the
// request's caller, if any.
func recheckFor(req mcp.Request) Recheck {
	if extra := req.GetExtra(); extra != nil {
		return recheckOf(extra.TokenInfo)
	}
	return nil
}

// signedIn returns the caller of a request. A refused token is a business
// error that tells the agent what to do; any other failure (the database
// is down) is an internal error, logged and answered as one.
func (s *Server) signedIn(ctx context.Context, req mcp.Request) (*vitrine.Caller, error) {
	c, err := s.caller(ctx, req)
	if err != nil {
		return nil, signInError(err)
	}
	return c, nil
}

// signInError words a refused token as a business error that tells the
// agent what to do; any other failure stays an internal error.
func signInError(err error) error {
	var ae *accounts.AuthError
	if errors.As(err, &ae) {
		return &vitrine.Error{Type: vitrine.GenericError, Message: "Not signed in: " + ae.Reason + ". Ask the user for a valid Vitrine token"}
	}
	return err
}

// about is what a call was about, for its audit event and log line, as
// the call's adapter knows it from the arguments and the result it has:
// the tenant it acted in ("" for none: vitrine.NoTenant), and the
// resource it named or made (or, refused outside any tenant, the tenant
// it tried).
type about struct{ tenant, target string }

// guard runs a call, making a panic in it an internal error.
func guard(ctx context.Context, svc *service.Service, c *vitrine.Caller, run runFunc) (out any, ab about, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return run(ctx, svc, c)
}

// logCall writes the call's log line ("tool call", "resource read") and
// returns its level: an internal error is an error, with its detail; the
// rest is information.
func (s *Server) logCall(ctx context.Context, kind string, e *vitrine.AuditEvent, err error, took time.Duration) slog.Level {
	level := slog.LevelInfo
	internal := err != nil && vitrine.AsError(err) == nil
	if internal {
		level = slog.LevelError
	}
	// The record straight to the handler: Logger.LogAttrs would walk the
	// stack for the caller's position, which no handler here prints, at
	// every call. Its attributes added one by one, into the record's own
	// room for five: no slice, no map a call.
	h := s.log.Handler()
	if !h.Enabled(ctx, level) {
		return level
	}
	r := slog.NewRecord(time.Now(), level, kind, 0)
	r.AddAttrs(slog.String("request_id", e.RequestID), slog.String(targetKey(kind), e.Tool),
		slog.Duration("duration", took), slog.String("outcome", outcome(err)))
	if e.UserID != "" {
		r.AddAttrs(slog.String("user_id", e.UserID))
	}
	switch {
	case e.TenantID != vitrine.NoTenant:
		r.AddAttrs(slog.String("tenant_id", e.TenantID))
	case e.TargetID != "":
		r.AddAttrs(slog.String("target_id", e.TargetID)) // refused outside any tenant: the one tried
	}
	if internal {
		r.AddAttrs(slog.String("err", err.Error()))
	}
	h.Handle(ctx, r)
	return level
}

// targetKey is the log line's key for what a call of the kind ran: the
// tool, the resource.
func targetKey(kind string) string {
	switch kind {
	case "tool call":
		return "tool"
	case "resource read":
		return "resource"
	}
	return ""
}

func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	return string(vitrine.TypeOf(err))
}
