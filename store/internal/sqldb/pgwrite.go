package sqldb

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// deferrer is a conn that can hold a statement whose outcome nothing waits
// for, to send it with the next one: ExecLater uses it.
type deferrer interface {
	defer_(query string, args []any)
}

// ExecLater runs a statement whose result the caller does not read (an
// INSERT of a trace, say): on PostgreSQL, in a write, it goes to the
// database with the next statement or with the COMMIT, in the same round
// trip; an error it meets fails that statement, or the commit, and so the
// whole write. Elsewhere it runs at once.
func ExecLater(ctx context.Context, c Conn, query string, args ...any) error {
	if d, ok := c.(deferrer); ok {
		d.defer_(query, args)
		return nil
	}
	_, err := c.Exec(ctx, query, args...)
	return err
}

type statement struct {
	sql  string
	args []any
	// epoch is the check this statement makes (pgEpochCheck), if it is one.
	epoch EpochCheck
}

// pgWrite is a write transaction on PostgreSQL that costs as few round
// trips as its statements allow: BEGIN and the row-level security
// settings go with its first statement, statements run with ExecLater
// with the next one, and COMMIT with what is still held. A write whose
// statements all go through ExecLater is one round trip.
type pgWrite struct {
	pool    *pgxpool.Pool
	conn    *pgxpool.Conn // from the first round trip on
	pending []statement
	used    bool // a statement was run or held
}

// discardPlansEvery is how often a write transaction first drops the plans
// its connection keeps (DISCARD PLANS, held with BEGIN: no round trip of
// its own). PostgreSQL keeps a statement's generic plan, and that of the
// check of each foreign key, for the connection's life, and makes it once,
// on the tables as they are then: made at a company's first products, on
// statistics that take the tables for empty (a database analyzed before
// them, autovacuum off or behind), a plan reads a table whole, and went on
// reading it at every write while the company grew. Made again after a
// few dozen writes, the plans are those of the tables' size by then.
const discardPlansEvery = 32

func (d *pgDB) tx(ctx context.Context, s Scope, opts pgx.TxOptions, fn func(Conn) error) (err error) {
	begin := "BEGIN"
	if opts.IsoLevel == pgx.RepeatableRead {
		begin += " ISOLATION LEVEL REPEATABLE READ"
	}
	if opts.AccessMode == pgx.ReadOnly {
		begin += " READ ONLY"
	}
	args := s.settings()
	w := &pgWrite{pool: d.pool, pending: []statement{{sql: begin}, {sql: `SELECT set_config('app.tenant_id', $1, true),
		set_config('app.user_id', $2, true), set_config('app.all_tenants', $3, true)`, args: args}}}
	if c := s.pendingCheck(); c != nil {
		w.pending = append(w.pending, statement{sql: pgEpochCheck, args: []any{c.Epoch()}, epoch: c})
	}
	if opts.AccessMode != pgx.ReadOnly && d.writes.Add(1)%discardPlansEvery == 0 {
		w.pending = append(w.pending, statement{sql: "DISCARD PLANS"})
	}
	defer func() {
		if w.conn == nil {
			return
		}
		if err != nil {
			// The transaction may be open, or aborted: either way it ends here.
			w.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
		w.conn.Release()
	}()
	if err := fn(w); err != nil {
		return err
	}
	if !w.used {
		return nil
	}
	br, err := w.send(ctx, &statement{sql: "COMMIT"})
	if err == nil {
		_, err = br.Exec()
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("postgres: commit: %w", err)
	}
	return nil
}

func (w *pgWrite) defer_(query string, args []any) {
	w.used = true
	w.pending = append(w.pending, statement{sql: query, args: args})
}

// batch starts a batch with the statements held (the transaction's
// begin, its scope, the epoch check), on the connection it acquires at
// the first, and returns them to read their results first.
func (w *pgWrite) batch(ctx context.Context) (*pgx.Batch, []statement, error) {
	w.used = true
	if w.conn == nil {
		c, err := w.pool.Acquire(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("postgres: begin: %w", err)
		}
		w.conn = c
	}
	b := &pgx.Batch{}
	for _, q := range w.pending {
		b.Queue(q.sql, q.args...)
	}
	held := w.pending
	w.pending = nil
	return b, held, nil
}

// send sends what is held, then last, in one batch, and returns the
// results with those of the held statements read.
func (w *pgWrite) send(ctx context.Context, last *statement) (pgx.BatchResults, error) {
	b, held, err := w.batch(ctx)
	if err != nil {
		return nil, err
	}
	b.Queue(last.sql, last.args...)
	br := w.conn.SendBatch(ctx, b)
	for _, q := range held {
		_, err := br.Exec()
		if q.epoch != nil {
			err = pgEpochResult(q.epoch, err)
		}
		if err != nil {
			br.Close()
			return nil, err
		}
	}
	return br, nil
}

func (w *pgWrite) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return batchExec(w.send(ctx, &statement{sql: query, args: args}))
}

func (w *pgWrite) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	return batchQuery(w.send(ctx, &statement{sql: query, args: args}))
}

func (w *pgWrite) QueryRow(ctx context.Context, query string, args ...any) Row {
	return batchQueryRow(w.send(ctx, &statement{sql: query, args: args}))
}

// Statement is one statement of a pipeline.
type Statement struct {
	SQL  string
	Args []any
}

// Pipeliner is a write's connection that runs many statements in one round
// trip (PostgreSQL's; see Pipeline).
type Pipeliner interface {
	// Pipeline runs what ExecLater holds, then stmts, in one round trip,
	// and returns the rows each of stmts affected. At the first statement
	// that fails it stops, and returns its index (-1 for one ExecLater
	// held) and its error; the statements after it did not run, and the
	// transaction is aborted, as after any failed statement, until a
	// ROLLBACK TO SAVEPOINT.
	Pipeline(ctx context.Context, stmts []Statement) (affected []int64, failed int, err error)
	// RollbackTo rolls the transaction back to the savepoint, and
	// releases it: after a failed Pipeline, the transaction is usable
	// again, with what was written before the savepoint.
	RollbackTo(ctx context.Context, savepoint string) error
}

// AsPipeliner returns c's Pipeliner, if it is one.
func AsPipeliner(c Conn) (Pipeliner, bool) {
	p, ok := c.(Pipeliner)
	return p, ok
}

func (w *pgWrite) Pipeline(ctx context.Context, stmts []Statement) (affected []int64, failed int, err error) {
	affected = make([]int64, len(stmts))
	if len(stmts) == 0 {
		return affected, 0, nil
	}
	b, held, err := w.batch(ctx)
	if err != nil {
		return affected, -1, err
	}
	for _, s := range stmts {
		b.Queue(s.SQL, s.Args...)
	}
	br := w.conn.SendBatch(ctx, b)
	defer br.Close() // after a failure, reads what the server skipped
	for _, q := range held {
		_, err := br.Exec()
		if q.epoch != nil {
			err = pgEpochResult(q.epoch, err)
		}
		if err != nil {
			return affected, -1, err
		}
	}
	for i := range stmts {
		tag, err := br.Exec()
		if err != nil {
			return affected, i, err
		}
		affected[i] = tag.RowsAffected()
	}
	return affected, 0, br.Close()
}

func (w *pgWrite) RollbackTo(ctx context.Context, savepoint string) error {
	if w.conn == nil || len(w.pending) > 0 {
		return errors.New("postgres: rollback to a savepoint before the statements held are sent")
	}
	// Without arguments, pgx sends it as a simple query, unprepared: an
	// aborted transaction refuses even a statement's preparation.
	_, err := w.conn.Exec(ctx, "ROLLBACK TO SAVEPOINT "+ident(savepoint)+"; RELEASE SAVEPOINT "+ident(savepoint))
	return err
}
