package sqldb

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// scopeSettings sets a read's row-level security context, and makes it
// read-only, for the implicit transaction of its batch alone.
const scopeSettings = `SELECT set_config('app.tenant_id', $1, true), set_config('app.user_id', $2, true),
	set_config('app.all_tenants', $3, true), set_config('transaction_read_only', 'on', true)`

// settings are the arguments of scopeSettings.
func (s Scope) settings() []any {
	all := ""
	if s.AllTenants {
		all = "on"
	}
	return []any{s.TenantID, s.UserID, all}
}

// pgScoped runs each statement of a read as one pipelined batch: the
// settings (args, if any), the epoch check (if pending), then the
// statement, with one Sync, so that all run in one implicit transaction
// and cost one round trip.
type pgScoped struct {
	pool  *pgxpool.Pool
	args  []any
	epoch EpochCheck
}

func (c pgScoped) send(ctx context.Context, query string, args []any) (pgx.BatchResults, error) {
	b := &pgx.Batch{}
	if c.args != nil {
		b.Queue(scopeSettings, c.args...)
	}
	check := c.epoch != nil && c.epoch.Pending()
	if check {
		b.Queue(pgEpochCheck, c.epoch.Epoch())
	}
	b.Queue(query, args...)
	br := c.pool.SendBatch(ctx, b)
	var err error
	if c.args != nil {
		_, err = br.Exec()
	}
	if check && err == nil {
		_, err = br.Exec()
		err = pgEpochResult(c.epoch, err)
	}
	if err != nil {
		br.Close()
		return nil, err
	}
	return br, nil
}

func (c pgScoped) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return batchExec(c.send(ctx, query, args))
}

func (c pgScoped) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	return batchQuery(c.send(ctx, query, args))
}

func (c pgScoped) QueryRow(ctx context.Context, query string, args ...any) Row {
	return batchQueryRow(c.send(ctx, query, args))
}

// batchExec, batchQuery and batchQueryRow read the result of a batch's
// last statement, its earlier ones read by whoever sent it, and give the
// connection back when it is read.
func batchExec(br pgx.BatchResults, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag.RowsAffected(), err
}

func batchQuery(br pgx.BatchResults, err error) (Rows, error) {
	if err != nil {
		return nil, err
	}
	rs, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return &batchRows{pgRows{rs}, br}, nil
}

func batchQueryRow(br pgx.BatchResults, err error) Row {
	if err != nil {
		return errRow{err}
	}
	return batchRow{pgRow{br.QueryRow()}, br}
}

// batchRows closes its batch with its rows, giving back the connection.
type batchRows struct {
	pgRows
	br pgx.BatchResults
}

func (r *batchRows) Close() {
	r.pgRows.Close()
	r.br.Close()
}

type batchRow struct {
	pgRow
	br pgx.BatchResults
}

func (r batchRow) Scan(dest ...any) error {
	err := r.pgRow.Scan(dest...)
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	return err
}
