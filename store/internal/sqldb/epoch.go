package sqldb

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// EpochCheck asks a unit of work to check, with its first statement, that
// the access epoch (the number the triggers of migration 00005 move on
// every change to users, tokens, tenants, memberships and roles) is still
// Epoch. On PostgreSQL the check goes in the same round trip as the
// statement. If the epoch moved, the unit answers ErrEpochMoved having
// written nothing; if not, it calls Pass, and its later statements check
// nothing more.
type EpochCheck interface {
	Epoch() int64
	Pending() bool
	Pass()
}

// ErrEpochMoved is the answer of a unit of work whose EpochCheck failed.
var ErrEpochMoved = errors.New("sqldb: the access epoch moved")

// EpochQuery reads the access epoch.
const EpochQuery = `SELECT n FROM access_epoch WHERE id = 1`

// pgEpochCheck fails, on PostgreSQL, when the epoch is not $1, with a
// division by zero that aborts the transaction it runs in: what the batch
// holds after it, a write or its COMMIT included, does not happen. Only
// the mismatching branch divides, and by a value the planner cannot fold.
const pgEpochCheck = `SELECT CASE WHEN n = $1 THEN n ELSE n / 0 END FROM access_epoch WHERE id = 1`

// pgEpochResult reads the outcome of pgEpochCheck from its statement's
// error.
func pgEpochResult(c EpochCheck, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "22012" {
		return ErrEpochMoved
	}
	if err == nil {
		c.Pass()
	}
	return err
}

// compareEpoch checks an epoch read on SQLite.
func compareEpoch(c EpochCheck, n int64) error {
	if n != c.Epoch() {
		return ErrEpochMoved
	}
	c.Pass()
	return nil
}

// pendingCheck returns the scope's check if it is still to be made.
func (s Scope) pendingCheck() EpochCheck {
	if s.Epoch != nil && s.Epoch.Pending() {
		return s.Epoch
	}
	return nil
}
