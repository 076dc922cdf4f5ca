package vitrine

import "time"

// Who acts and why travel as explicit, read-only arguments: the adapter
// that knows the call describes it (Call, on the Caller it passes down),
// the service turns the caller and its purpose into a Change, and the
// store method that writes takes that Change and records it in the
// write's own transaction. No layer writes anything back up the stack.

// Actor says who makes a call, on its audit event: a user through one of
// their tokens (an MCP call), or the operator at the command line, in no
// one's name or in a user's (--as). Each is an explicit value: an event
// names the operator as such, never by an empty user or token.
type Actor string

const (
	// ActorUser is a user calling through a token of theirs.
	ActorUser Actor = "user"
	// ActorOperator is the operator's command line (vitrine tenant create,
	// member add, product import, ...), which holds the database.
	ActorOperator Actor = "operator"
)

// OperatorCall is a command of the operator's, as its audit event names
// it: the command ("vitrine member add"), about target when the command
// names one.
func OperatorCall(command, target string) Call {
	return Call{RequestID: NewID(), Tool: command, Target: target, At: Now(), Reason: command, Actor: ActorOperator}
}

// Call is one call of an adapter (a tool call, a resource read, an
// operator's command), as the audit log and the stock history name it.
// The zero Call is no call: the demo and the benchmark's fill write
// without one, and leave no audit event.
type Call struct {
	// Actor is who makes the call: ActorUser for a tool call, ActorOperator
	// for an operator's command.
	Actor Actor
	// RequestID is the call's id, and the id of its audit event.
	RequestID string
	// Tool is what was called: a tool's name, or "resources/read".
	Tool string
	// Target is the resource the caller named in its arguments, when the
	// tool names one (a product's id, a member's user id, a role's name);
	// empty when the call creates what it is about.
	Target string
	// At is when the call began: its audit event's time.
	At time.Time
	// Reason says why the call writes, on the stock movements its writes
	// cause: the tool called, "demo data", "vitrine product import". A
	// write that has its own reason (an agent's, for adjust_stock) says
	// that instead.
	Reason string
}

// Change is what every store method that writes tenant data takes: who
// makes the change, in which call, and why. In the write's transaction the
// store records the call's audit event (when there is a call), about the
// call's Target or, when the caller named none, what the write wrote; and
// the stock movements the write causes carry Reason, the user and the
// request id. A write and its event commit or vanish together.
type Change struct {
	UserID  string
	TokenID string // empty when the operator acts in a user's name
	Call    Call
	// Reason says why stock changes, on the movements the write records:
	// the tool's own words ("create_product"), an agent's reason for an
	// adjustment, "demo data".
	Reason string
}

// Change returns the change c makes in its call, for the call's reason.
func (c *Caller) Change() Change {
	return Change{UserID: c.User.ID, TokenID: c.Token.ID, Call: c.Call, Reason: c.Call.Reason}
}

// Event returns the audit event of a change written in a tenant, about
// target unless the call named its own; nil outside a call.
func (ch Change) Event(tenantID, target string) *AuditEvent {
	if ch.Call.RequestID == "" {
		return nil
	}
	if ch.Call.Target != "" {
		target = ch.Call.Target
	}
	return &AuditEvent{ID: ch.Call.RequestID, Time: ch.Call.At, TenantID: tenantID, Actor: ch.Call.Actor, UserID: ch.UserID, TokenID: ch.TokenID,
		Tool: ch.Call.Tool, TargetID: target, Outcome: OutcomeOK, RequestID: ch.Call.RequestID}
}
