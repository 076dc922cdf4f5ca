package auditlog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

// gatedAudit is an audit store whose writes wait for the test's go-ahead
// when gated, and that keeps what it was given.
type gatedAudit struct {
	vitrine.AuditStore
	mu      sync.Mutex
	events  []*vitrine.AuditEvent
	gate    chan struct{} // nil: writes pass
	entered chan struct{}
	fail    error
}

func (g *gatedAudit) AppendAudit(ctx context.Context, events []*vitrine.AuditEvent) error {
	g.mu.Lock()
	gate, fail := g.gate, g.fail
	g.mu.Unlock()
	if gate != nil {
		select {
		case g.entered <- struct{}{}:
		default:
		}
		<-gate
	}
	if fail != nil {
		return fail
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.events = append(g.events, events...)
	return nil
}

func (g *gatedAudit) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.events)
}

func newGated() *gatedAudit { return &gatedAudit{entered: make(chan struct{}, 1)} }

func event(tool string) *vitrine.AuditEvent {
	return &vitrine.AuditEvent{ID: vitrine.NewID(), Time: vitrine.Now(), TenantID: vitrine.NoTenant, UserID: vitrine.NewID(), Tool: tool, Outcome: "ok"}
}

func testLog(g *gatedAudit, mode Reads) *Log {
	return New(g, discardLog, Options{Reads: mode})
}

// In durable mode a call waits for its event's commit; in buffered mode
// it does not, and a flush waits for it.
func TestAuditModes(t *testing.T) {
	g := newGated()
	g.gate = make(chan struct{})
	l := testLog(g, Durable)
	done := make(chan error, 1)
	go func() { done <- l.Record(ctx, event("get_product")) }()
	<-g.entered
	select {
	case <-done:
		t.Fatal("durable: the call answered before its event was committed")
	default:
	}
	close(g.gate)
	if err := <-done; err != nil || g.count() != 1 {
		t.Fatalf("durable: %v, %d events", err, g.count())
	}

	g = newGated()
	g.gate = make(chan struct{})
	l = testLog(g, Buffered)
	if err := l.Record(ctx, event("get_product")); err != nil {
		t.Fatal(err)
	}
	if g.count() != 0 {
		t.Fatal("buffered: written before any flush")
	}
	flushed := make(chan error, 1)
	go func() { flushed <- l.Flush(ctx) }()
	<-g.entered
	select {
	case <-flushed:
		t.Fatal("flush returned before the write")
	default:
	}
	close(g.gate)
	if err := <-flushed; err != nil || g.count() != 1 {
		t.Fatalf("buffered: flush %v, %d events", err, g.count())
	}

	g = newGated()
	l = testLog(g, Off)
	if err := l.Record(ctx, event("get_product")); err != nil || l.Flush(ctx) != nil || g.count() != 0 {
		t.Fatalf("off: %v, %d events", err, g.count())
	}
}

// The writer writes on its own, without any flush being asked for.
func TestAuditBufferWritesInTheBackground(t *testing.T) {
	g := newGated()
	l := testLog(g, Buffered)
	l.Record(ctx, event("get_product"))
	deadline := time.Now().Add(10 * time.Second) // a hang, not a measure
	for g.count() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the buffered event was never written")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A full buffer makes calls wait rather than drop their events; a failed
// write is tried again, and no event is lost to it.
func TestAuditBufferBoundAndRetry(t *testing.T) {
	g := newGated()
	g.gate = make(chan struct{})
	g.fail = errors.New("database down")
	l := testLog(g, Buffered)
	for range bufferCap {
		if err := l.Record(ctx, event("get_product")); err != nil {
			t.Fatal(err)
		}
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := l.Record(short, event("get_product")); err == nil {
		t.Fatal("a full buffer took one more event")
	}
	waiting := make(chan error, 1)
	go func() { waiting <- l.Record(ctx, event("get_product")) }()
	g.mu.Lock()
	g.fail = nil
	g.mu.Unlock()
	close(g.gate)
	if err := <-waiting; err != nil {
		t.Fatal(err)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := g.count(); n != bufferCap+1 {
		t.Fatalf("%d events written, want %d", n, bufferCap+1)
	}
	if l.waits.Desc() == nil {
		t.Fatal("no wait metric")
	}
}

// Close writes every buffered event; events recorded afterwards are
// written before their calls answer.
func TestAuditCloseFlushes(t *testing.T) {
	g := newGated()
	l := testLog(g, Buffered)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 500 {
				l.Record(ctx, event("get_product"))
			}
		}()
	}
	wg.Wait()
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := g.count(); n != 4000 {
		t.Fatalf("%d of 4000 events written at close", n)
	}
	l.Record(ctx, event("get_product"))
	if n := g.count(); n != 4001 {
		t.Fatalf("after close, an event is not written before its call answers")
	}
}

// The sink gets every event, written ones included, as JSON lines.
func TestAuditSink(t *testing.T) {
	var buf bytes.Buffer
	g := newGated()
	l := New(g, discardLog, Options{Sink: &buf})
	read, write := event("get_product"), event("create_product")
	write.TargetID = vitrine.NewID()
	l.Record(ctx, read)
	l.Record(ctx, write)
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("sink: %q", buf.String())
	}
	var got struct{ ID, Tool, TargetID string }
	if err := json.Unmarshal([]byte(lines[1]), &struct {
		ID       *string `json:"id"`
		Tool     *string `json:"tool"`
		TargetID *string `json:"target_id"`
	}{&got.ID, &got.Tool, &got.TargetID}); err != nil || got.ID != write.ID || got.Tool != "create_product" || got.TargetID != write.TargetID {
		t.Fatalf("sink line %q: %v", lines[1], err)
	}
}

// Retention removes the events older than it keeps, on both databases,
// and nothing younger than a day can be removed.
func TestAuditRetention(t *testing.T) { dbtest.Each(t, testAuditRetention) }

func testAuditRetention(t *testing.T, url string) {
	db := dbtest.Open(t, url)
	l := New(db, nil, Options{})
	now := vitrine.Now()
	var events []*vitrine.AuditEvent
	for _, age := range []time.Duration{0, 2 * time.Hour, 48 * time.Hour, 40 * 24 * time.Hour, 41 * 24 * time.Hour, 400 * 24 * time.Hour} {
		e := event("get_product")
		e.Time = vitrine.Timestamp(now.Add(-age))
		events = append(events, e)
	}
	if err := db.AppendAudit(ctx, events); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Prune(ctx, now.Add(-time.Hour)); vitrine.TypeOf(err) != vitrine.ValidationError {
		t.Fatalf("pruning the last day: %v", err)
	}
	if _, _, err := db.PruneAudit(ctx, now.Add(time.Hour), 100); err == nil {
		t.Fatal("the database let recent events be removed")
	}
	old := pruneBatch
	pruneBatch = 2 // several batches
	defer func() { pruneBatch = old }()
	n, err := l.Prune(ctx, now.Add(-30*24*time.Hour))
	if err != nil || n != 3 {
		t.Fatalf("pruned %d, %v; want 3", n, err)
	}
	left, err := db.ListAudit(ctx, vitrine.NoTenant, vitrine.AuditFilter{Limit: 100})
	if err != nil || len(left) != 3 {
		t.Fatalf("%d events left, %v; want 3", len(left), err)
	}

	// In the background, as serve runs it.
	oldFirst := pruneFirst
	pruneFirst = time.Millisecond
	defer func() { pruneFirst = oldFirst }()
	bg := New(db, nil, Options{Retention: 24 * time.Hour})
	defer bg.Close(ctx)
	deadline := time.Now().Add(10 * time.Second) // a hang, not a measure
	for {
		left, _ = db.ListAudit(ctx, vitrine.NoTenant, vitrine.AuditFilter{Limit: 100})
		if len(left) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background retention left %d events, want 2", len(left))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var (
	ctx        = context.Background()
	discardLog = slog.New(slog.DiscardHandler)
)
