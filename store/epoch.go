package store

import (
	"context"
	"errors"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// epochChecked is the engine every query runs on: it hands a unit of work
// the vitrine.EpochCheck its call carries, if still pending, which the
// engine makes with the unit's first statement (on PostgreSQL, in the same
// round trip), and answers vitrine.ErrStaleAccess for a failed check.
type epochChecked struct{ sqldb.Dialect }

func (d epochChecked) Read(ctx context.Context, s sqldb.Scope, fn func(sqldb.Conn) error) error {
	return stale(d.Dialect.Read(ctx, checking(ctx, s), fn))
}

func (d epochChecked) Write(ctx context.Context, s sqldb.Scope, fn func(sqldb.Conn) error) error {
	return stale(d.Dialect.Write(ctx, checking(ctx, s), fn))
}

func checking(ctx context.Context, s sqldb.Scope) sqldb.Scope {
	if c := vitrine.EpochCheckFrom(ctx); c.Pending() {
		s.Epoch = c
	}
	return s
}

func stale(err error) error {
	if errors.Is(err, sqldb.ErrEpochMoved) {
		return vitrine.ErrStaleAccess
	}
	return err
}
