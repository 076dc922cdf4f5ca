package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binary builds the vitrine binary once for the tests that run it.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "vitrine-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "vitrine")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// bearer is an HTTP transport that sends a bearer token, keeping a
// connection per session alive.
type bearer string

var bearerTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return t
}()

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return bearerTransport.RoundTrip(r)
}

// startServe runs `vitrine serve` as a process, with extra flags, and
// returns its URL.
func startServe(t *testing.T, db string, extra ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd, url, _ := startServeWatching(t, db, nil, extra...)
	return cmd, url
}

// startServeWatching is startServe that also returns a channel closed
// once a line of the server's log matches watch (never, if watch is nil).
func startServeWatching(t *testing.T, db string, watch *regexp.Regexp, extra ...string) (*exec.Cmd, string, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--log-format", "json",
		"--ip-rate", "0", "--token-rate", "0", "--token-concurrency", "0"}, extra...)...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	seen := make(chan struct{})
	go func() {
		re := regexp.MustCompile(`"url":"(http://[^"]+)/mcp"`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
			if watch != nil && watch.MatchString(sc.Text()) {
				close(seen)
				watch = nil
			}
		}
	}()
	select {
	case url := <-urls:
		return cmd, url, seen
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the server did not start")
	}
	return nil, "", nil
}

// createLoad runs clients clients of the server at url, each calling
// create_product with the arguments args(client, i) gives for its i-th
// call, until ctx ends or the server goes away; each write answered is
// told to acked, by its SKU. Wait on the group returned for the clients
// to end.
func createLoad(t *testing.T, ctx context.Context, url, token string, clients int,
	args func(client, i int) (sku string, args map[string]any), acked func(sku string)) *sync.WaitGroup {
	var wg sync.WaitGroup
	for g := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: &http.Client{Transport: bearer(token)}, MaxRetries: -1}, nil)
			if err != nil {
				t.Errorf("connect: %v", err)
				return
			}
			defer cs.Close()
			for i := 0; ctx.Err() == nil; i++ {
				sku, a := args(g, i)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_product", Arguments: a})
				if err != nil {
					return // the server is gone
				}
				if res.IsError {
					t.Errorf("%s: %s", sku, res.Content[0].(*mcp.TextContent).Text)
					return
				}
				acked(sku)
			}
		}()
	}
	return &wg
}

// A server killed (SIGKILL) in the middle of a write load loses no write
// it acknowledged, and leaves nothing half-written: every product is there
// with its audit event and its stock movement, or not at all.
func TestCrashSafety(t *testing.T) {
	db := filepath.Join(t.TempDir(), "crash.db")
	var w struct {
		Tenants []struct{ ID, Slug string }
		Users   []struct{ Email, Token string }
	}
	json.Unmarshal([]byte(must(t, "demo", "--db", db, "--json")), &w)
	tenant, token := w.Tenants[0].ID, w.Users[0].Token // ana, owner of technova
	cmd, url := startServe(t, db)

	var (
		mu    sync.Mutex
		acked []string
	)
	ctx, stopLoad := context.WithCancel(context.Background())
	killed := make(chan struct{})
	wg := createLoad(t, ctx, url, token, 6, func(g, i int) (string, map[string]any) {
		sku := fmt.Sprintf("CR-%d-%d", g, i)
		return sku, map[string]any{"tenant_id": tenant, "sku": sku, "name": "Crash " + sku, "price": "1.00", "stock": 3}
	}, func(sku string) {
		mu.Lock()
		acked = append(acked, sku)
		n := len(acked)
		mu.Unlock()
		if n == 150 {
			close(killed)
		}
	})
	select {
	case <-killed:
	case <-time.After(20 * time.Second):
		t.Fatal("the load never reached 150 writes")
	}
	cmd.Process.Signal(syscall.SIGKILL) // mid-load: other writes are in flight
	cmd.Wait()
	stopLoad()
	wg.Wait()

	// Reopen: every acknowledged write is there.
	s, err := store.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mu.Lock()
	defer mu.Unlock()
	for _, sku := range acked {
		if _, err := s.ProductBySKU(context.Background(), tenant, sku); err != nil {
			t.Errorf("acknowledged %s is lost: %v", sku, err)
		}
	}
	// Nothing half-written: each product has its audit event and its stock movement.
	f, err := vitrine.NewProductFilter(vitrine.ProductQuery{Query: "crash", Sort: vitrine.SortName})
	if err != nil {
		t.Fatal(err)
	}
	products, err := s.ListProducts(context.Background(), tenant, f.Page(10000, nil))
	if err != nil {
		t.Fatal(err)
	}
	events, _ := s.ListAudit(context.Background(), tenant, vitrine.AuditFilter{Tool: "create_product", Outcome: "ok", Limit: 10000})
	audited := map[string]bool{}
	for _, e := range events {
		audited[e.TargetID] = true
	}
	moves, _ := s.ListStockMovements(context.Background(), tenant, "", "", 10000)
	moved := map[string]bool{}
	for _, m := range moves {
		moved[m.ProductID] = true
	}
	for _, p := range products {
		if !audited[p.ID] || !moved[p.ID] {
			t.Errorf("%s is half-written: audited %v, stock moved %v", p.SKU, audited[p.ID], moved[p.ID])
		}
	}
	if len(products) < len(acked) {
		t.Errorf("%d products for %d acknowledged writes", len(products), len(acked))
	}
	t.Logf("%d writes acknowledged before the kill, %d products after it, 0 lost", len(acked), len(products))

	// The file is sound, and the server serves it again.
	out, err := exec.Command(binary(t), "migrate", "--db", db).CombinedOutput()
	if err != nil {
		t.Fatalf("reopen: %v %s", err, out)
	}
	if check := integrityCheck(t, db); check != "ok" {
		t.Errorf("integrity_check: %s", check)
	}
	cmd2, url2 := startServe(t, db)
	defer func() { cmd2.Process.Signal(syscall.SIGTERM); cmd2.Wait() }()
	res, err := http.Get(url2 + "/readyz")
	if err != nil || res.StatusCode != 200 {
		t.Errorf("after the crash, /readyz: %v %v", err, res)
	} else {
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
}

func integrityCheck(t *testing.T, db string) string {
	t.Helper()
	conn, err := sqlOpen(db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var result string
	if err := conn.QueryRow("PRAGMA integrity_check").Scan(&result); err != nil {
		t.Fatal(err)
	}
	return result
}
