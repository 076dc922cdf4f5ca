// Package auditlog stores the audit events of the calls that wrote
// nothing (reads, refusals, validation failures), as --audit-reads says:
// buffered, durable or off; writes them as JSON lines to a sink beside the
// database; and prunes old events when a retention is set. A call that
// writes stores its event in the write's own transaction (store), not
// here.
package auditlog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/vitrine/vitrine"
)

// Reads says how the events of calls that wrote nothing (reads,
// refusals, validation failures) are stored. Events of calls that write
// are stored in the write's own transaction, whatever the mode.
type Reads string

const (
	// Buffered appends them in the background, at least every
	// flushInterval and at every graceful stop: a crash may lose the last
	// flush window of them. The default.
	Buffered Reads = "buffered"
	// Durable makes each call wait for its event's commit.
	Durable Reads = "durable"
	// Off records none of them.
	Off Reads = "off"
)

// ParseReads checks an --audit-reads value; "" is Buffered.
func ParseReads(s string) (Reads, error) {
	switch m := Reads(s); m {
	case "":
		return Buffered, nil
	case Buffered, Durable, Off:
		return m, nil
	}
	return "", fmt.Errorf("audit reads must be buffered, durable or off; got %q", s)
}

const (
	// flushInterval and flushEvents bound how long a buffered event waits
	// to be written: whichever comes first.
	flushInterval = 100 * time.Millisecond
	flushEvents   = 1000
	// bufferCap bounds the buffer: past it, calls wait for the writer
	// rather than their events being dropped.
	bufferCap = 10 * flushEvents
	// auditTimeout bounds one batch's write.
	auditTimeout = 10 * time.Second
)

// Options configure a log. The zero value buffers the events of reads and
// keeps every event.
type Options struct {
	// Reads says how the events of calls that write nothing are stored;
	// "" is Buffered.
	Reads Reads
	// Sink, if set, receives every audit event as one JSON line, beside
	// the database (whatever Reads says).
	Sink io.Writer
	// Retention, if positive, is how long audit events are kept: older
	// ones are removed in the background, in small batches.
	Retention time.Duration
	// Metrics, if set, receives the buffer's instruments.
	Metrics prometheus.Registerer
}

// Log stores the events of calls that wrote nothing. Durable, with group
// commit: events of concurrent calls share one transaction, and each call
// waits for its event's commit. Buffered: a call appends its event to a
// bounded buffer that a writer goroutine empties, running only while there
// are events to write. Close it at a graceful stop.
type Log struct {
	store vitrine.AuditStore
	log   *slog.Logger
	now   func() time.Time
	mode  Reads
	sink  *sink // nil without --audit-sink
	// stopRetention ends the retention's pruning, if it runs.
	stopRetention func()

	mu sync.Mutex
	// durable mode
	pending []pendingEvent
	running bool
	// buffered mode
	queue     []*vitrine.AuditEvent
	flushing  bool
	closed    bool          // after Close, events are written durably
	kick      chan struct{} // asks the writer to write now
	progress  chan struct{} // closed, and replaced, when events are written
	queued    uint64        // events ever buffered
	written   uint64        // of them, written
	waitTotal prometheus.Counter
	waits     prometheus.Counter
	failures  prometheus.Counter
}

type pendingEvent struct {
	e    *vitrine.AuditEvent
	done chan error
}

// New returns a log that stores in store, and starts the retention's
// pruning if o asks for it. A nil logger discards.
func New(store vitrine.AuditStore, log *slog.Logger, o Options) *Log {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	mode, _ := ParseReads(string(o.Reads))
	l := &Log{store: store, log: log, now: vitrine.Now, mode: mode, stopRetention: func() {},
		kick: make(chan struct{}, 1), progress: make(chan struct{}),
		waitTotal: prometheus.NewCounter(prometheus.CounterOpts{Name: "vitrine_audit_buffer_wait_seconds_total",
			Help: "Time calls spent waiting for room in the full audit buffer (the database not keeping up)."}),
		waits: prometheus.NewCounter(prometheus.CounterOpts{Name: "vitrine_audit_buffer_waits_total",
			Help: "Calls that found the audit buffer full and waited."}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{Name: "vitrine_audit_write_failures_total",
			Help: "Failed writes of buffered audit events (retried)."}),
	}
	if o.Sink != nil {
		l.sink = &sink{w: o.Sink}
	}
	if o.Metrics != nil {
		o.Metrics.MustRegister(l.waitTotal, l.waits, l.failures, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "vitrine_audit_buffered_events", Help: "Audit events buffered, not yet written.",
		}, func() float64 {
			l.mu.Lock()
			defer l.mu.Unlock()
			return float64(len(l.queue))
		}))
	}
	if o.Retention > 0 {
		l.startRetention(o.Retention)
	}
	return l
}

// save stores e as the mode says. In durable mode, and in buffered mode
// once the log is closed, it returns once e is committed; in buffered
// mode it returns once e is in the buffer.
func (l *Log) save(ctx context.Context, e *vitrine.AuditEvent) error {
	switch l.mode {
	case Off:
		return nil
	case Buffered:
		l.mu.Lock()
		closed := l.closed
		l.mu.Unlock()
		if !closed {
			return l.buffer(ctx, e)
		}
	}
	return l.commit(ctx, e)
}

func (l *Log) commit(ctx context.Context, e *vitrine.AuditEvent) error {
	p := pendingEvent{e: e, done: make(chan error, 1)}
	l.mu.Lock()
	l.pending = append(l.pending, p)
	if !l.running {
		l.running = true
		go l.commitAll()
	}
	l.mu.Unlock()
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *Log) commitAll() {
	for {
		l.mu.Lock()
		batch := l.pending
		l.pending = nil
		if len(batch) == 0 {
			l.running = false
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		events := make([]*vitrine.AuditEvent, len(batch))
		for i, p := range batch {
			events[i] = p.e
		}
		ctx, cancel := context.WithTimeout(context.Background(), auditTimeout)
		err := l.store.AppendAudit(ctx, events)
		cancel()
		if err != nil {
			l.log.Error("write audit events", "events", len(events), "err", err)
		}
		for _, p := range batch {
			p.done <- err
		}
	}
}

// buffer appends a copy of e to the buffer, waiting for room while it is
// full (or until ctx ends).
func (l *Log) buffer(ctx context.Context, e *vitrine.AuditEvent) error {
	ev := *e
	l.mu.Lock()
	if len(l.queue) >= bufferCap {
		start := time.Now()
		l.waits.Inc()
		for len(l.queue) >= bufferCap {
			progress := l.progress
			l.mu.Unlock()
			select {
			case <-progress:
			case <-ctx.Done():
				l.waitTotal.Add(time.Since(start).Seconds())
				return fmt.Errorf("audit buffer full: %w", ctx.Err())
			}
			l.mu.Lock()
		}
		l.waitTotal.Add(time.Since(start).Seconds())
	}
	l.queue = append(l.queue, &ev)
	l.queued++
	if len(l.queue) >= flushEvents {
		l.wake()
	}
	if !l.flushing {
		l.flushing = true
		go l.writeBuffered()
	}
	l.mu.Unlock()
	return nil
}

// wake asks the writer to write now. Callers hold mu.
func (l *Log) wake() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// writeBuffered writes the buffer every flushInterval, or sooner when
// woken, until it finds it empty. A failed write keeps the events, to be
// tried again: the buffer's bound makes calls wait meanwhile.
func (l *Log) writeBuffered() {
	timer := time.NewTimer(flushInterval)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
		case <-l.kick:
		}
		l.mu.Lock()
		batch := l.queue[:min(len(l.queue), flushEvents)]
		if len(batch) == 0 {
			l.flushing = false
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), auditTimeout)
		err := l.store.AppendAudit(ctx, batch)
		cancel()
		l.mu.Lock()
		more := false
		if err != nil {
			l.failures.Inc()
			l.log.Error("write buffered audit events (will retry)", "events", len(batch), "err", err)
		} else {
			l.queue = append([]*vitrine.AuditEvent(nil), l.queue[len(batch):]...)
			l.written += uint64(len(batch))
			close(l.progress)
			l.progress = make(chan struct{})
			more = len(l.queue) >= flushEvents
		}
		l.mu.Unlock()
		if more {
			l.wake()
		}
		timer.Reset(flushInterval)
	}
}

// Flush returns once every event buffered before it was called is
// written, or ctx ends.
func (l *Log) Flush(ctx context.Context) error {
	l.mu.Lock()
	target := l.queued
	for l.written < target {
		progress := l.progress
		l.wake()
		l.mu.Unlock()
		select {
		case <-progress:
		case <-ctx.Done():
			return fmt.Errorf("flush audit events: %w", ctx.Err())
		}
		l.mu.Lock()
	}
	l.mu.Unlock()
	return nil
}

// Close stops the retention, makes later events durable, then writes the
// buffered ones. Call it at every graceful stop, before closing the store.
func (l *Log) Close(ctx context.Context) error {
	l.stopRetention()
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	return l.Flush(ctx)
}

// sink writes events as JSON lines, for a SIEM, beside the database.
type sink struct {
	mu sync.Mutex
	w  io.Writer
}

// line is an event as a line of the sink.
type line struct {
	ID        string    `json:"id"`
	Time      time.Time `json:"time"`
	TenantID  string    `json:"tenant_id"`
	Actor     string    `json:"actor"`
	UserID    string    `json:"user_id"`
	TokenID   string    `json:"token_id,omitempty"`
	Tool      string    `json:"tool"`
	TargetID  string    `json:"target_id,omitempty"`
	Outcome   string    `json:"outcome"`
	RequestID string    `json:"request_id"`
}

func (k *sink) write(e *vitrine.AuditEvent) error {
	b, err := json.Marshal(line{e.ID, e.Time, e.TenantID, string(e.Actor), e.UserID, e.TokenID, e.Tool, e.TargetID, e.Outcome, e.RequestID})
	if err != nil {
		return err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	_, err = k.w.Write(append(b, '\n'))
	return err
}

// Record stores the event of a call, as the log's Reads mode says, and
// writes every event to the sink. The call must not answer before this
// returns nil. A call that wrote has its event stored already, in the
// write's own transaction, under the same id (the call's request id): the
// store ignores this second copy, so that every call has exactly one
// event, whatever it wrote.
func (l *Log) Record(ctx context.Context, e *vitrine.AuditEvent) error {
	if err := l.save(ctx, e); err != nil {
		return err
	}
	if l.sink != nil {
		if err := l.sink.write(e); err != nil {
			l.log.Error("write audit sink", "err", err)
		}
	}
	return nil
}
