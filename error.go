package vitrine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrorType is the "type" an integrator reads in a tool error. The five values
// are the whole contract (docs/errors.md).
type ErrorType string

const (
	// PermissionError: the caller's membership lacks the permission.
	PermissionError ErrorType = "PermissionError"
	// NotFoundError: no such resource in the tenant, or a malformed id.
	NotFoundError ErrorType = "NotFoundError"
	// ConflictError: a duplicate, a stale version, or a rule such as the last owner.
	ConflictError ErrorType = "ConflictError"
	// ValidationError: arguments that break the schema or a business rule.
	ValidationError ErrorType = "ValidationError"
	// GenericError: no active membership, or anything unexpected.
	GenericError ErrorType = "Error"
)

// ErrorTypes lists the error types, in the order of the contract.
var ErrorTypes = []ErrorType{PermissionError, NotFoundError, ConflictError, ValidationError, GenericError}

// Error is a business error: its message is written for the agent and its
// user, and is safe to show. Any error that is not an *Error is internal: it
// reaches the agent only as a generic message with a request id.
type Error struct {
	Type    ErrorType
	Message string
	// Field names the argument at fault, when there is one.
	Field string
}

func (e *Error) Error() string { return string(e.Type) + ": " + e.Message }

// Is lets errors.Is match business errors by type and message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Type == e.Type && t.Message == e.Message
}

// Messages fixed by the contract.
const (
	MsgPermissionDenied = "You do not have permission to perform this action"
	MsgNoMembership     = "Membership not found or inactive"
)

var (
	// ErrPermissionDenied is the seed's answer to a missing permission.
	ErrPermissionDenied = &Error{Type: PermissionError, Message: MsgPermissionDenied}
	// ErrNoMembership is the answer for a tenant the caller cannot reach,
	// the same whether the tenant exists or not.
	ErrNoMembership = &Error{Type: GenericError, Message: MsgNoMembership}
)

// NotFound returns the NotFoundError for a kind of resource: "Product not found".
func NotFound(kind string) *Error {
	return &Error{Type: NotFoundError, Message: kind + " not found"}
}

// Invalid returns a ValidationError about one argument.
func Invalid(field, format string, args ...any) *Error {
	return &Error{Type: ValidationError, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Quoted lists the values a ValidationError says an argument may take:
// "a", "b", "c".
func Quoted[T ~string](values []T) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(string(v))
	}
	return strings.Join(q, ", ")
}

// Conflict returns a ConflictError, naming the field when there is one.
func Conflict(field, format string, args ...any) *Error {
	return &Error{Type: ConflictError, Field: field, Message: fmt.Sprintf(format, args...)}
}

// AsError returns the business error in err's chain, or nil when err is
// internal.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// SoleOwnerError refuses to erase a person who is the only active owner
// of companies: a ConflictError (Unwrap) that names them, so that a page
// can say so in its own words.
type SoleOwnerError struct {
	Slugs []string // the companies', sorted
	Err   *Error
}

func (e *SoleOwnerError) Error() string { return e.Err.Error() }
func (e *SoleOwnerError) Unwrap() error { return e.Err }

// TypeOf returns the error type that err maps to: its own for a business
// error, GenericError for anything else.
func TypeOf(err error) ErrorType {
	if e := AsError(err); e != nil {
		return e.Type
	}
	return GenericError
}
