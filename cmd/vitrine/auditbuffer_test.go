package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/store"
)

// demoWorld fills db with the demo data and returns the first tenant and
// its owner's token.
func demoWorld(t *testing.T, db string) (tenant, token string) {
	var w struct {
		Tenants []struct{ ID, Slug string }
		Users   []struct{ Email, Token string }
	}
	json.Unmarshal([]byte(must(t, "demo", "--db", db, "--json")), &w)
	return w.Tenants[0].ID, w.Users[0].Token // ana, owner of technova
}

func connect(t *testing.T, ctx context.Context, url, token string) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: &http.Client{Transport: bearer(token)}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cs
}

// readLoad runs clients that each read products that do not exist, by
// fresh ids (NotFoundError), in the tenant and in a tenant the user is not
// a member of (refused), until the server goes away or ctx ends; and
// between them writes (create_product) when writes is set. It returns,
// per client, the ids of the reads answered, in order, and the SKUs of
// the writes answered.
func readLoad(t *testing.T, ctx context.Context, url, token, tenant string, writes bool, answered chan<- struct{}) (reads [][]string, skus []string) {
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	reads = make([][]string, 6)
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := connect(t, ctx, url, token)
			defer cs.Close()
			for i := 0; ctx.Err() == nil; i++ {
				if writes && i%4 == 0 {
					sku := fmt.Sprintf("AB-%d-%d", g, i)
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_product", Arguments: map[string]any{
						"tenant_id": tenant, "sku": sku, "name": "Audit " + sku, "price": "1.00", "stock": 1}})
					if err != nil {
						return
					}
					if !res.IsError {
						mu.Lock()
						skus = append(skus, sku)
						mu.Unlock()
					}
					continue
				}
				id, in := vitrine.NewID(), tenant
				if i%3 == 0 {
					in = vitrine.NewID() // refused: no membership there
				}
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_product", Arguments: map[string]any{"tenant_id": in, "id": id}}); err != nil {
					return // the server is gone
				}
				mu.Lock()
				reads[g] = append(reads[g], id)
				mu.Unlock()
				select {
				case answered <- struct{}{}:
				default:
				}
			}
		}()
	}
	wg.Wait()
	return reads, skus
}

// auditedTargets returns the target ids of every stored event.
func auditedTargets(t *testing.T, db, tenant string) map[string]bool {
	s, err := store.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := map[string]bool{}
	for _, in := range []string{tenant, vitrine.NoTenant} {
		events, err := s.ListAudit(context.Background(), in, vitrine.AuditFilter{Limit: 1000000})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			got[e.TargetID] = true
		}
	}
	return got
}

// countAnswers closes enough once n answers came through answered.
func countAnswers(n int, answered <-chan struct{}) <-chan struct{} {
	enough := make(chan struct{})
	go func() {
		for range n {
			<-answered
		}
		close(enough)
	}()
	return enough
}

// Buffered read audit: a graceful stop under load writes the event of
// every read and refusal answered; the sink has them too; and
// list_audit_events shows a read at once on its instance, and on another
// instance after the flush.
func TestBufferedAuditGracefulStop(t *testing.T) { dbtest.Each(t, testBufferedAuditGracefulStop) }

func testBufferedAuditGracefulStop(t *testing.T, db string) {
	tenant, token := demoWorld(t, db)
	sink := filepath.Join(t.TempDir(), "audit.jsonl")
	cmd, url := startServe(t, db, "--audit-sink", "file:"+sink)
	other, otherURL := startServe(t, db)
	defer func() { other.Process.Signal(syscall.SIGTERM); other.Wait() }()

	// list_audit_events shows a read's event: on its instance at once,
	// on another once written (within a flush window; polled).
	bg := context.Background()
	cs, cs2 := connect(t, bg, url, token), connect(t, bg, otherURL, token)
	id := vitrine.NewID()
	cs.CallTool(bg, &mcp.CallToolParams{Name: "get_product", Arguments: map[string]any{"tenant_id": tenant, "id": id}})
	listed := func(cs *mcp.ClientSession) bool {
		res, err := cs.CallTool(bg, &mcp.CallToolParams{Name: "list_audit_events", Arguments: map[string]any{"tenant_id": tenant, "tool": "get_product", "limit": 5}})
		return err == nil && !res.IsError && strings.Contains(res.Content[0].(*mcp.TextContent).Text, id)
	}
	start := time.Now()
	waitFor(t, "the read's event on another instance", func() bool { return listed(cs2) })
	t.Logf("another instance listed the read's event after %v", time.Since(start))
	id = vitrine.NewID()
	cs.CallTool(bg, &mcp.CallToolParams{Name: "get_product", Arguments: map[string]any{"tenant_id": tenant, "id": id}})
	if !listed(cs) {
		t.Error("list_audit_events does not show the read just answered on its instance")
	}
	cs.Close()
	cs2.Close()

	ctx, stop := context.WithCancel(bg)
	answered := make(chan struct{}, 64)
	enough := countAnswers(300, answered)
	go func() {
		<-enough
		cmd.Process.Signal(syscall.SIGTERM) // mid-load
	}()
	reads, _ := readLoad(t, ctx, url, token, tenant, false, answered)
	stop()
	cmd.Wait()

	got := auditedTargets(t, db, tenant)
	f, err := os.ReadFile(sink)
	if err != nil {
		t.Fatal(err)
	}
	inSink := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(string(f)))
	for sc.Scan() {
		var e struct {
			TargetID string `json:"target_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("sink line %q: %v", sc.Text(), err)
		}
		inSink[e.TargetID] = true
	}
	total, missing, unsunk := 0, 0, 0
	for _, ids := range reads {
		for _, id := range ids {
			total++
			if !got[id] {
				missing++
			}
			if !inSink[id] {
				unsunk++
			}
		}
	}
	if missing > 0 || unsunk > 0 || total < 300 {
		t.Errorf("of %d reads and refusals answered, %d events missing after a graceful stop, %d missing in the sink", total, missing, unsunk)
	}
	t.Logf("%d reads and refusals answered, every event stored and in the sink", total)
}

// After SIGKILL, no write's event is missing, and the read events lost
// are the last ones only: each client's stored reads are a prefix of the
// reads it was answered, and what is lost is at most a flush window.
func TestBufferedAuditKill(t *testing.T) { dbtest.Each(t, testBufferedAuditKill) }

func testBufferedAuditKill(t *testing.T, db string) {
	tenant, token := demoWorld(t, db)
	cmd, url := startServe(t, db)
	ctx, stop := context.WithCancel(context.Background())
	answered := make(chan struct{}, 64)
	enough := countAnswers(300, answered)
	go func() {
		<-enough
		cmd.Process.Signal(syscall.SIGKILL)
	}()
	reads, skus := readLoad(t, ctx, url, token, tenant, true, answered)
	stop()
	cmd.Wait()

	got := auditedTargets(t, db, tenant)
	s, err := store.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, sku := range skus {
		p, err := s.ProductBySKU(context.Background(), tenant, sku)
		if err != nil || !got[p.ID] {
			t.Errorf("acknowledged write %s: %v, audited %v", sku, err, err == nil && got[p.ID])
		}
	}
	lost, total := 0, 0
	for g, ids := range reads {
		total += len(ids)
		first := len(ids)
		for i, id := range ids {
			if !got[id] {
				first = min(first, i)
				lost++
			} else if first < i {
				t.Errorf("client %d: read %d's event is stored, read %d's (answered before) is not", g, i, first)
				break
			}
		}
	}
	// A flush window holds at most flushEvents (1,000) events, and one
	// batch may be on its way to the database besides.
	if lost > 2000 {
		t.Errorf("%d read events lost of %d answered: more than a flush window", lost, total)
	}
	t.Logf("%d writes and %d reads answered before the kill; every write's event stored, %d read events lost", len(skus), total, lost)
}

// vitrine audit prune removes the events older than a date, and refuses
// to remove the last day's.
func TestAuditPrune(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db string) {
		s, err := store.Open(context.Background(), db, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var events []*vitrine.AuditEvent
		for _, days := range []int{0, 10, 100, 200} {
			events = append(events, &vitrine.AuditEvent{ID: vitrine.NewID(), Time: vitrine.Timestamp(time.Now().AddDate(0, 0, -days)),
				TenantID: vitrine.NoTenant, UserID: vitrine.NewID(), Tool: "whoami", Outcome: "ok", RequestID: "r"})
		}
		err = s.AppendAudit(context.Background(), events)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		before := time.Now().AddDate(0, 0, -50).Format(time.DateOnly)
		if out := must(t, "audit", "prune", "--db", db, "--before", before); !strings.HasPrefix(out, "removed 2 audit events before ") {
			t.Errorf("audit prune: %q", out)
		}
		fails(t, "cannot be removed", "audit", "prune", "--db", db, "--before", time.Now().Format(time.RFC3339))
		fails(t, "--before must be a date", "audit", "prune", "--db", db, "--before", "yesterday")
	})
}
