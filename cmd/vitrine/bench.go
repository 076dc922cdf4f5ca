package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store"
)

// BenchCmd measures the server against the two ceilings it cannot beat: a
// bare MCP server whose tool does nothing (the protocol ceiling), and the
// same SQL run directly (the storage ceiling). See docs/performance.md.
type BenchCmd struct {
	Sizes       []int         `default:"10000,1000000" help:"Catalog sizes to fill and measure, in products."`
	Concurrency int           `default:"8" help:"Concurrent MCP client sessions."`
	Duration    time.Duration `default:"5s" help:"How long each scenario runs."`
	Postgres    string        `placeholder:"URL" help:"Measure on PostgreSQL instead: the URL of a server and user that may create a database for the run (dropped after)."`
	Out         string        `placeholder:"FILE" help:"Also write the report (Markdown) to this file."`
	Only        []string      `placeholder:"TEXT,..." help:"Run only the scenarios whose name contains one of these (and their ceilings; the no-op ceiling always runs)."`
	Profile     string        `placeholder:"DIR" help:"Write a CPU profile of the server during each of its scenarios to DIR, for go tool pprof."`
	Noop        bool          `hidden:"" help:"Serve the bare no-op MCP server on --addr (used by the benchmark itself)."`
	Addr        string        `hidden:""`
}

// Run runs every scenario at every size and prints the report.
func (c *BenchCmd) Run(e *env) error {
	if c.Noop {
		return serveNoop(e.ctx, c.Addr)
	}
	for _, n := range c.Sizes {
		if n < 100 {
			return fmt.Errorf("--sizes: %d is too few products to measure; give 100 or more", n)
		}
	}
	switch {
	case len(c.Sizes) == 0:
		return errors.New("--sizes: give at least one catalog size")
	case c.Concurrency < 1:
		return fmt.Errorf("--concurrency: %d sessions; give 1 or more", c.Concurrency)
	case c.Duration <= 0:
		return fmt.Errorf("--duration: %s; give a positive time, such as 5s", c.Duration)
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	dialect := "sqlite"
	if c.Postgres != "" {
		dialect = "postgres"
	}
	r := &report{dialect: dialect, concurrency: c.Concurrency, duration: c.Duration}
	r.machine()
	noop, noopProc, err := startProcess(e.ctx, exe, "", "bench", "--noop")
	if err != nil {
		return err
	}
	defer stopProcess(noopProc)
	for _, size := range c.Sizes {
		if err := c.runSize(e, exe, noop, size, r); err != nil {
			return err
		}
	}
	text := r.markdown()
	fmt.Fprint(e.stdout, text)
	if c.Out != "" {
		return os.WriteFile(c.Out, []byte(text), 0o644)
	}
	return nil
}

func (c *BenchCmd) runSize(e *env, exe, noopURL string, size int, r *report) error {
	ctx := e.ctx
	url, drop, err := c.database(ctx)
	if err != nil {
		return err
	}
	defer drop()
	fmt.Fprintf(e.stderr, "bench: filling %d products on %s\n", size, r.dialect)
	start := time.Now()
	w, err := fill(ctx, url, size)
	if err != nil {
		return err
	}
	defer w.db.Close()
	if c.Postgres != "" {
		// What autovacuum does shortly after a bulk load: without statistics
		// the planner takes a million rows for a few.
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		_, err = conn.Exec(ctx, "ANALYZE")
		conn.Close(ctx)
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stderr, "bench: filled in %s\n", time.Since(start).Round(time.Millisecond))

	ready, err := startToReady(ctx, exe, url)
	if err != nil {
		return err
	}
	serveArgs := []string{"serve", "--ip-rate", "0", "--token-rate", "0", "--token-concurrency", "0"}
	pprofAddr := ""
	if c.Profile != "" {
		if err := os.MkdirAll(c.Profile, 0o755); err != nil {
			return err
		}
		port, err := freePort()
		if err != nil {
			return err
		}
		pprofAddr = "127.0.0.1:" + port
		serveArgs = append(serveArgs, "--pprof-addr", pprofAddr)
	}
	serverURL, proc, err := startProcess(ctx, exe, url, serveArgs...)
	if err != nil {
		return err
	}
	stop := func() { stopProcess(proc) }
	defer stop()
	s := &sizeResult{size: size, ready: ready}
	r.sizes = append(r.sizes, s)

	sessions := func(base, token string) ([]*mcp.ClientSession, error) {
		out := make([]*mcp.ClientSession, c.Concurrency)
		for i := range out {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer(token)}, MaxRetries: -1}, nil)
			if err != nil {
				return nil, err
			}
			out[i] = cs
		}
		return out, nil
	}
	vit, err := sessions(serverURL, w.token)
	if err != nil {
		return err
	}
	nop, err := sessions(noopURL, "noop")
	if err != nil {
		return err
	}
	defer func() {
		for _, cs := range append(vit, nop...) {
			cs.Close()
		}
	}()
	call := func(cs *mcp.ClientSession, tool string, args map[string]any) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return err
		}
		if res.IsError {
			return errors.New(res.Content[0].(*mcp.TextContent).Text)
		}
		return nil
	}
	selected := func(name string) bool {
		return len(c.Only) == 0 || slices.ContainsFunc(c.Only, func(o string) bool { return strings.Contains(name, o) }) ||
			strings.HasPrefix(name, "noop")
	}
	run := func(name string, op func(worker int, rng *rand.Rand) error) *measure {
		if !selected(name) {
			return &measure{}
		}
		fmt.Fprintf(e.stderr, "bench: %s\n", name)
		var saved chan error
		if pprofAddr != "" && !strings.Contains(name, "ceiling") {
			saved = make(chan error, 1)
			file := filepath.Join(c.Profile, fmt.Sprintf("%d-%s.pprof", size, slug(name)))
			go func() { saved <- saveProfile(ctx, pprofAddr, c.Duration, file) }()
		}
		m := measureFor(c.Concurrency, c.Duration, op)
		if saved != nil {
			if err := <-saved; err != nil {
				fmt.Fprintf(e.stderr, "bench: profile of %s: %v\n", name, err)
			}
		}
		s.add(name, m)
		return m
	}
	big := w.tenants[0]
	run("noop (protocol ceiling)", func(i int, _ *rand.Rand) error { return call(nop[i], "noop", nil) })
	run("get_product", func(i int, rng *rand.Rand) error {
		return call(vit[i], "get_product", map[string]any{"tenant_id": big, "id": w.sample[rng.IntN(len(w.sample))]})
	})
	run("get_product (storage ceiling)", func(_ int, rng *rand.Rand) error {
		_, err := w.db.ProductByID(ctx, big, w.sample[rng.IntN(len(w.sample))])
		return err
	})
	first := map[string]any{"tenant_id": big, "limit": 50}
	run("list_products page 1", func(i int, _ *rand.Rand) error { return call(vit[i], "list_products", first) })
	run("list_products page 1 (storage ceiling)", func(int, *rand.Rand) error {
		_, err := w.db.ListProducts(ctx, big, vitrine.ProductFilter{Sort: vitrine.SortName, Limit: 51})
		return err
	})
	if size >= 1000*50 && selected("list_products page 1000") {
		cursor, key, err := deepCursor(ctx, vit[0], w, big, 1000)
		if err != nil {
			return err
		}
		deep := map[string]any{"tenant_id": big, "limit": 50, "cursor": cursor}
		run("list_products page 1000", func(i int, _ *rand.Rand) error { return call(vit[i], "list_products", deep) })
		run("list_products page 1000 (storage ceiling)", func(int, *rand.Rand) error {
			_, err := w.db.ListProducts(ctx, big, vitrine.ProductFilter{Sort: vitrine.SortName, Limit: 51, After: key})
			return err
		})
	}
	for _, q := range []struct{ name, word string }{{"search, rare word", rareWord}, {"search, word in 10%", commonWord}} {
		args := map[string]any{"tenant_id": big, "query": q.word, "limit": 50}
		run(q.name, func(i int, _ *rand.Rand) error { return call(vit[i], "list_products", args) })
		run(q.name+" (storage ceiling)", func(int, *rand.Rand) error {
			_, err := w.db.ListProducts(ctx, big, vitrine.ProductFilter{Words: []string{q.word}, SKU: q.word, Sort: vitrine.SortRelevance, Limit: 51})
			return err
		})
	}
	var seq atomic.Int64
	run("create_product", func(i int, _ *rand.Rand) error {
		n := seq.Add(1)
		return call(vit[i], "create_product", map[string]any{"tenant_id": big, "sku": fmt.Sprintf("NEW-%d", n), "name": "Novo produto " + strconv.FormatInt(n, 10), "price": "10.00", "stock": 1})
	})
	run("create_product (storage ceiling)", func(_ int, _ *rand.Rand) error {
		n := seq.Add(1)
		_, err := w.db.CreateProduct(ctx, benchProduct(big, w.author, fmt.Sprintf("NEW-%d", n), int(n)), nil)
		return err
	})
	rows := func() []map[string]any {
		n := seq.Add(1000)
		out := make([]map[string]any, 1000)
		for i := range out {
			out[i] = map[string]any{"sku": fmt.Sprintf("IMP-%d", n+int64(i)), "name": "Importado " + strconv.FormatInt(n+int64(i), 10), "price": "5.00", "stock": 2}
		}
		return out
	}
	imp := run("import_products (1000 rows)", func(i int, _ *rand.Rand) error {
		return call(vit[i], "import_products", map[string]any{"tenant_id": big, "products": rows()})
	})
	imp.rows = 1000
	ceil := run("import_products (storage ceiling: batched insert)", func(_ int, _ *rand.Rand) error {
		n := seq.Add(1000)
		writes := make([]vitrine.ProductWrite, 1000)
		for i := range writes {
			writes[i].Create = benchProduct(big, w.author, fmt.Sprintf("IMP-%d", n+int64(i)), int(n)+i)
		}
		_, err := w.db.WriteProducts(ctx, big, writes, false, nil)
		return err
	})
	ceil.rows = 1000
	s.rss = peakRSS(proc.Process.Pid)
	return nil
}

// saveProfile writes the server's CPU profile over the next d to file.
func saveProfile(ctx context.Context, addr string, d time.Duration, file string) error {
	secs := max(1, int(d.Round(time.Second)/time.Second))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, secs), nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("profiler answered %s", res.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// slug turns a scenario's name into a file name.
func slug(name string) string {
	return strings.Trim(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '-'
	}, strings.ToLower(name)), "-")
}

// database returns a new, empty database for a run, and how to drop it.
func (c *BenchCmd) database(ctx context.Context) (string, func(), error) {
	if c.Postgres == "" {
		dir, err := os.MkdirTemp("", "vitrine-bench-")
		if err != nil {
			return "", nil, err
		}
		return filepath.Join(dir, "bench.db"), func() { os.RemoveAll(dir) }, nil
	}
	conn, err := pgx.Connect(ctx, c.Postgres)
	if err != nil {
		return "", nil, err
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("vitrine_bench_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, err
	}
	u, _ := urlWithDB(c.Postgres, name)
	return u, func() {
		conn, err := pgx.Connect(context.Background(), c.Postgres)
		if err == nil {
			conn.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)")
			// The role a superuser's connections switched to in it.
			conn.Exec(context.Background(), "DROP ROLE IF EXISTS "+store.AppRoleName(name))
			conn.Close(context.Background())
		}
	}, nil
}

func urlWithDB(u, name string) (string, error) {
	i := strings.LastIndex(u, "/")
	q := ""
	if j := strings.Index(u, "?"); j > i {
		q = u[j:]
	}
	return u[:i+1] + name + q, nil
}

// startProcess runs `vitrine ARGS... --addr 127.0.0.1:PORT` and returns its
// base URL once it answers.
func startProcess(ctx context.Context, exe, db string, args ...string) (string, *exec.Cmd, error) {
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	args = append(args, "--addr", "127.0.0.1:"+port)
	if db != "" {
		args = append(args, "--db", db)
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	base := "http://127.0.0.1:" + port
	deadline := time.Now().Add(60 * time.Second)
	for {
		if res, err := http.Get(base + "/healthz"); err == nil {
			res.Body.Close()
			return base, cmd, nil
		}
		if time.Now().After(deadline) {
			stopProcess(cmd)
			return "", nil, fmt.Errorf("%v did not start", args)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func stopProcess(cmd *exec.Cmd) {
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
}

// startToReady times a second server from its start to its first 200 at
// /readyz, on the filled database.
func startToReady(ctx context.Context, exe, db string) (time.Duration, error) {
	port, err := freePort()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, exe, "serve", "--db", db, "--addr", "127.0.0.1:"+port, "--metrics-addr", "127.0.0.1:0")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	for time.Since(start) < time.Minute {
		if res, err := http.Get("http://127.0.0.1:" + port + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return time.Since(start), nil
			}
		}
		time.Sleep(time.Millisecond)
	}
	return 0, errors.New("the server never got ready")
}

func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port, nil
}

// peakRSS reads a running process's peak resident memory (VmHWM).
func peakRSS(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// measure is what one scenario did.
type measure struct {
	calls     int
	errors    int
	firstErr  error
	elapsed   time.Duration
	latencies []time.Duration
	rows      int // rows per call, for imports
}

func (m *measure) perSecond() float64 { return float64(m.calls) / m.elapsed.Seconds() }

func (m *measure) percentile(p float64) time.Duration {
	if len(m.latencies) == 0 {
		return 0
	}
	return m.latencies[min(len(m.latencies)-1, int(p*float64(len(m.latencies))))]
}

// measureFor runs op on c workers for d and gathers its latencies.
func measureFor(c int, d time.Duration, op func(worker int, rng *rand.Rand) error) *measure {
	var (
		mu  sync.Mutex
		m   measure
		wg  sync.WaitGroup
		end = time.Now().Add(d)
	)
	start := time.Now()
	for i := range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			var lat []time.Duration
			errs := 0
			var first error
			for time.Now().Before(end) {
				t := time.Now()
				if err := op(i, rng); err != nil {
					errs++
					if first == nil {
						first = err
					}
					continue
				}
				lat = append(lat, time.Since(t))
			}
			mu.Lock()
			m.latencies = append(m.latencies, lat...)
			m.errors += errs
			if m.firstErr == nil {
				m.firstErr = first
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	m.elapsed = time.Since(start)
	m.calls = len(m.latencies)
	slices.Sort(m.latencies)
	return &m
}

// bearer is an HTTP transport that sends a bearer token.
type bearer string

// benchTransport keeps a connection per session alive (the default keeps
// two per host, and would measure TCP handshakes instead of calls).
var benchTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 256
	return t
}()

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return benchTransport.RoundTrip(r)
}
