// Package pgtrace counts the round trips a pgx pool makes to PostgreSQL,
// for the benchmark and the tests that hold the store to its count.
package pgtrace

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// Kind is what a round trip carries.
type Kind int

const (
	Query   Kind = iota // a statement outside a batch (BEGIN and COMMIT included)
	Batch               // a pipelined batch, however many statements it holds
	Prepare             // a statement's preparation on a connection
)

// RoundTrips is a pgx tracer (store.Options.Tracer) that counts what is
// sent to PostgreSQL and waits for its answer. Skip, if set, leaves out the
// round trips it says; sql is the statement's text ("" for a batch).
type RoundTrips struct {
	Skip func(ctx context.Context, kind Kind, sql string) bool
	n    atomic.Int64
}

// N is the number of round trips counted so far.
func (r *RoundTrips) N() int64 { return r.n.Load() }

func (r *RoundTrips) count(ctx context.Context, kind Kind, sql string) context.Context {
	if r.Skip == nil || !r.Skip(ctx, kind, sql) {
		r.n.Add(1)
	}
	return ctx
}

func (r *RoundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	return r.count(ctx, Query, d.SQL)
}
func (r *RoundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *RoundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return r.count(ctx, Batch, "")
}
func (r *RoundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *RoundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}
func (r *RoundTrips) TracePrepareStart(ctx context.Context, _ *pgx.Conn, d pgx.TracePrepareStartData) context.Context {
	return r.count(ctx, Prepare, d.SQL)
}
func (r *RoundTrips) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}
