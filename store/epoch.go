package store

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// CheckingEpoch returns the store for one call of a caller read under
// epoch (vitrine.EpochStore): the same database, whose first unit of work
// checks the epoch with its first statement (on PostgreSQL, in the same
// round trip).
func (db *DB) CheckingEpoch(epoch int64) vitrine.EpochStore {
	v := *db
	v.d = epochChecked{Dialect: db.d.Dialect, check: &epochCheck{epoch: epoch}}
	v.Store = db.Store.On(v.d) // the catalog's queries check it too; its facet indexes are the DB's
	return &v
}

// ConfirmEpoch returns nil when a unit of work of this store found the
// epoch unmoved; else it reads the epoch, which checks it as any unit of
// work does. The store Open returns has nothing to confirm.
func (db *DB) ConfirmEpoch(ctx context.Context) error {
	if !db.d.check.Pending() {
		return nil
	}
	_, err := db.AccessEpoch(ctx)
	return err
}

// epochCheck is what a call's store (CheckingEpoch) checks: the epoch its
// caller was read under, and whether a unit of work has found it unmoved.
// The engines make it (sqldb.EpochCheck).
type epochCheck struct {
	epoch  int64
	passed atomic.Bool
}

func (c *epochCheck) Epoch() int64 { return c.epoch }

// Pending reports whether the epoch is still to be checked (false for nil).
func (c *epochCheck) Pending() bool { return c != nil && !c.passed.Load() }

func (c *epochCheck) Pass() { c.passed.Store(true) }

// epochChecked is the engine every query runs on: it hands a unit of work
// the store's check, if still pending, which the engine makes with the
// unit's first statement, and answers vitrine.ErrStaleAccess for a failed
// check.
type epochChecked struct {
	sqldb.Dialect
	check *epochCheck
}

func (d epochChecked) Read(ctx context.Context, s sqldb.Scope, fn func(sqldb.Conn) error) error {
	return stale(d.Dialect.Read(ctx, d.checking(s), fn))
}

func (d epochChecked) Write(ctx context.Context, s sqldb.Scope, fn func(sqldb.Conn) error) error {
	return stale(d.Dialect.Write(ctx, d.checking(s), fn))
}

func (d epochChecked) Snapshot(ctx context.Context, s sqldb.Scope, fn func(sqldb.Conn) error) error {
	return stale(d.Dialect.Snapshot(ctx, d.checking(s), fn))
}

func (d epochChecked) checking(s sqldb.Scope) sqldb.Scope {
	if d.check.Pending() {
		s.Epoch = d.check
	}
	return s
}

func stale(err error) error {
	if errors.Is(err, sqldb.ErrEpochMoved) {
		return vitrine.ErrStaleAccess
	}
	return err
}
