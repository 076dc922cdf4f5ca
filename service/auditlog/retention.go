package auditlog

import (
	"context"
	"fmt"
	"time"

	"github.com/vitrine/vitrine"
)

// MinAge is the age under which no audit event can be removed: the
// databases refuse it, whoever asks.
const MinAge = 24 * time.Hour

var (
	// pruneEvery is how often the retention looks for old events, and
	// pruneFirst how long after start it first looks.
	pruneEvery = time.Hour
	pruneFirst = time.Minute
	// pruneBatch bounds the events one transaction removes, and prunePause
	// is the pause between two: pruning never holds the log for long.
	pruneBatch = 1000
	prunePause = 20 * time.Millisecond
)

// startRetention prunes, in the background, the audit events older than
// keep, until Close.
func (l *Log) startRetention(keep time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	l.stopRetention = func() { cancel(); <-done }
	go func() {
		defer close(done)
		wait := pruneFirst
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = pruneEvery
			n, err := l.Prune(ctx, l.now().Add(-keep))
			if err != nil && ctx.Err() == nil {
				l.log.Error("audit retention", "err", err)
			} else if n > 0 {
				l.log.Info("audit retention", "removed", n, "older_than", keep)
			}
		}
	}()
}

// Prune removes the audit events of every tenant older than before, in
// small batches, and returns how many it removed. It stops early when
// another instance prunes (PostgreSQL). before must be at least MinAge
// ago.
func (l *Log) Prune(ctx context.Context, before time.Time) (int64, error) {
	if age := l.now().Sub(before); age < MinAge {
		return 0, vitrine.Invalid("before", "events younger than %s cannot be removed; before must be at most %s",
			MinAge, l.now().Add(-MinAge).Format(time.RFC3339))
	}
	var total int64
	for {
		n, busy, err := l.store.PruneAudit(ctx, before, pruneBatch)
		total += n
		if err != nil {
			return total, err
		}
		if busy || n < int64(pruneBatch) {
			return total, nil
		}
		select {
		case <-ctx.Done():
			return total, fmt.Errorf("prune audit events: %w", ctx.Err())
		case <-time.After(prunePause):
		}
	}
}
