package catalog

import (
	"context"
	"errors"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// pipelineChunk is how many writes of an import go to PostgreSQL in one
// round trip (about 11 statements each for a product of 3 variants and 3
// tags).
const pipelineChunk = 100

// pipelined writes an import's products on PostgreSQL, a chunk of writes
// at a time: their statements recorded, then sent in one round trip
// (sqldb.Pipeliner), under one savepoint of the chunk. When a write fails
// (a statement's error, or an update that found its product changed), the
// chunk is rolled back to its savepoint, the write gets its error, and
// the writes before it in the chunk go again without it: each write still
// gets its own result, at the cost of one more round trip for each failed
// one. A row a savepoint, as on SQLite, would have cost a round trip for
// each statement, and past 64 subtransactions PostgreSQL's visibility
// checks read pg_subtrans; one a chunk keeps an import's batch of 1,000
// rows at 10.
type pipelined struct {
	db       *Store
	c        sqldb.Conn
	p        sqldb.Pipeliner
	ch       vitrine.Change
	writes   []vitrine.ProductWrite
	results  []error
	atomic   bool
	progress func(done int)
	failed   error // returned to roll everything back (atomic)
	reported int
}

// writeRange writes writes[from:to], each write's result in results.
func (pw *pipelined) writeRange(ctx context.Context, from, to int) error {
	for from < to {
		end := min(from+pipelineChunk, to)
		bad, err := pw.chunk(ctx, from, end)
		if bad < 0 {
			if err != nil {
				return err
			}
			from = end
			pw.report(from)
			continue
		}
		pw.results[from+bad] = err
		if pw.atomic {
			return pw.failed
		}
		// The writes before it were rolled back with the chunk.
		if err := pw.writeRange(ctx, from, from+bad); err != nil {
			return err
		}
		from += bad + 1
	}
	return nil
}

func (pw *pipelined) report(done int) {
	if pw.progress != nil && done/writeBatch > pw.reported/writeBatch {
		pw.progress(done)
		pw.reported = done
	}
}

// chunk writes writes[from:to] in one round trip. When one fails, it
// rolls the chunk back and returns that write's index in the chunk and
// its error; else -1 and nil, or -1 and the database's error (which is
// not a row's).
func (pw *pipelined) chunk(ctx context.Context, from, to int) (int, error) {
	writes := pw.writes[from:to]
	isolate := !pw.atomic
	rec := &recorder{}
	// The plans PostgreSQL keeps on this connection (of the statements
	// below, and of the foreign keys' checks they fire) go, so that the
	// chunk's are made on the tables as they are now: a plan made while a
	// table held a few rows, on statistics that say it is empty (analyzed
	// before the company's first products), reads the table whole, and was
	// kept while the import filled it: every variant, tag and category of
	// an import read the company's products whole. Planning a chunk's
	// statements again costs little beside its 100 products' writes.
	rec.Exec(ctx, `DISCARD PLANS`)
	if isolate {
		rec.Exec(ctx, `SAVEPOINT product_chunk`)
	}
	first := make([]int, len(writes)) // each write's first statement
	versions := make([]int64, len(writes))
	for k, w := range writes {
		first[k] = len(rec.stmts)
		var err error
		if w.Create != nil {
			err = insertProduct(ctx, rec, pw.ch, w.Create)
		} else {
			versions[k] = w.Update.Version
			_, err = updateProduct(ctx, rec, pw.ch, w.Update, w.Before) // its first statement, the UPDATE of the product's version
		}
		if err != nil {
			pw.restore(writes, versions)
			return -1, err
		}
	}
	affected, at, err := pw.p.Pipeline(ctx, rec.stmts)
	bad := -1
	var rowErr error
	switch {
	case err != nil && at < first[0]:
		return -1, err // the savepoint's, or a statement held before
	case err != nil:
		for bad = len(first) - 1; first[bad] > at; bad-- {
		}
		rowErr = pw.db.constraintOfWrite(err, productOf(writes[bad]))
		if vitrine.AsError(rowErr) == nil {
			return -1, err // the database failed, not the row
		}
	default:
		for k, w := range writes {
			if w.Update != nil && affected[first[k]] != 1 {
				bad, rowErr = k, changedMeanwhile(w.Update)
				break
			}
		}
	}
	if bad < 0 {
		if isolate {
			// Released with the next chunk, or the commit: the rows
			// affected are read only once the pipeline is back.
			return -1, sqldb.ExecLater(ctx, pw.c, `RELEASE SAVEPOINT product_chunk`)
		}
		return -1, nil
	}
	pw.restore(writes, versions)
	if isolate {
		if err := pw.p.RollbackTo(ctx, "product_chunk"); err != nil {
			return -1, err
		}
	}
	return bad, rowErr
}

// restore gives the updates of a chunk rolled back the version they were
// read at (updateProduct counts the one it writes).
func (pw *pipelined) restore(writes []vitrine.ProductWrite, versions []int64) {
	for k, w := range writes {
		if w.Update != nil {
			w.Update.Version = versions[k]
		}
	}
}

func productOf(w vitrine.ProductWrite) *vitrine.Product {
	if w.Create != nil {
		return w.Create
	}
	return w.Update
}

// errNotPipelined is what a read answers in a pipeline: a write whose
// statements are recorded cannot read.
var errNotPipelined = errors.New("catalog: a read in a pipelined write")

// recorder records a write's statements for a pipeline instead of running
// them; Exec answers that one row was affected (the pipeline checks what
// a write's UPDATE of its product's version affected).
type recorder struct{ stmts []sqldb.Statement }

func (r *recorder) Exec(_ context.Context, query string, args ...any) (int64, error) {
	r.stmts = append(r.stmts, sqldb.Statement{SQL: query, Args: args})
	return 1, nil
}

func (r *recorder) Query(context.Context, string, ...any) (sqldb.Rows, error) {
	return nil, errNotPipelined
}

func (r *recorder) QueryRow(context.Context, string, ...any) sqldb.Row { return errRow{} }

type errRow struct{}

func (errRow) Scan(...any) error { return errNotPipelined }
