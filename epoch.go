package vitrine

import (
	"context"
	"errors"
)

// ErrStaleAccess is what a unit of work answers, having written nothing,
// when the access epoch it was asked to check (Store.CheckingEpoch) has
// moved: the caller's access, read under the old epoch, may no longer hold.
var ErrStaleAccess = errors.New("the access epoch moved")

// EpochStore is the store as one call sees it whose caller was taken from
// the access cache, read under an access epoch not read again since
// (Store.CheckingEpoch). The call's first unit of work checks that the
// epoch is still that one, in its own round trip (on PostgreSQL, in the
// statements it sends), and answers ErrStaleAccess, writing nothing, if it
// moved; whoever made the store then authenticates the caller again and
// redoes the call. Either way the epoch is read once per call, as when it
// was read first: a revocation, a disabled user or a changed role still
// take effect at the next request.
type EpochStore interface {
	Store
	// ConfirmEpoch returns nil if the epoch is still the one given: at no
	// cost when a unit of work of this store found it so, else (the call
	// reached none) by reading it. ErrStaleAccess if it moved.
	ConfirmEpoch(ctx context.Context) error
}
