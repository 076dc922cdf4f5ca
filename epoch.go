package vitrine

import (
	"context"
	"errors"
	"sync/atomic"
)

// ErrStaleAccess is what a unit of work answers, having written nothing,
// when the access epoch it was asked to check (EpochCheck) has moved: the
// caller's access, read under the old epoch, may no longer hold.
var ErrStaleAccess = errors.New("the access epoch moved")

// EpochCheck lets a call's caller be taken from the access cache without
// reading the access epoch first. The store checks the epoch in the same
// round trip as the call's first unit of work (on PostgreSQL, in the
// statements it sends with it), and answers ErrStaleAccess, writing
// nothing, if it is not the one given; whoever made the check then authenticates
// the caller again and redoes the call. A call that reaches no unit of
// work leaves it pending, and its maker reads the epoch itself. Either way
// the epoch is read once per call, as when it was read first: a
// revocation, a disabled user or a changed role still take effect at the
// next request.
type EpochCheck struct {
	epoch  int64
	passed atomic.Bool
}

// NewEpochCheck returns a check that the access epoch is still epoch.
func NewEpochCheck(epoch int64) *EpochCheck { return &EpochCheck{epoch: epoch} }

// Epoch is the epoch the caller was read under.
func (c *EpochCheck) Epoch() int64 { return c.epoch }

// Pending reports whether the epoch is still to be checked (false for nil).
func (c *EpochCheck) Pending() bool { return c != nil && !c.passed.Load() }

// Pass records that the store found the epoch unmoved.
func (c *EpochCheck) Pass() { c.passed.Store(true) }

type epochCheckKey struct{}

// WithEpochCheck returns ctx carrying c for the store.
func WithEpochCheck(ctx context.Context, c *EpochCheck) context.Context {
	return context.WithValue(ctx, epochCheckKey{}, c)
}

// EpochCheckFrom returns the check ctx carries, or nil.
func EpochCheckFrom(ctx context.Context) *EpochCheck {
	c, _ := ctx.Value(epochCheckKey{}).(*EpochCheck)
	return c
}
