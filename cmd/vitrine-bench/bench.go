package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store"
)

// BenchCmd measures the vitrine binary it is given against the two
// ceilings it cannot beat: a bare MCP server whose tool does nothing (the
// protocol ceiling), and the same SQL run directly (the storage ceiling).
type BenchCmd struct {
	Vitrine     string        `placeholder:"PATH" help:"The vitrine binary to measure (default: the one beside this command, as make build leaves them in bin/)."`
	Sizes       []int         `default:"10000,1000000" help:"Catalog sizes to fill and measure, in products."`
	Concurrency int           `default:"8" help:"Concurrent MCP client sessions."`
	Duration    time.Duration `default:"5s" help:"How long each scenario runs."`
	Postgres    string        `placeholder:"URL" help:"Measure on PostgreSQL instead: the URL of a server and user that may create a database for the run (dropped after)."`
	Out         string        `placeholder:"FILE" help:"Also write the report (Markdown) to this file."`
	Only        []string      `placeholder:"TEXT,..." help:"Run only the scenarios whose name contains one of these (and their ceilings; the no-op ceiling always runs)."`
	Profile     string        `placeholder:"DIR" help:"Write a CPU profile of the server during each of its scenarios, and of the bare go-sdk server during its ceilings, to DIR, for go tool pprof."`
	TS          string        `name:"ts" default:"cmd/vitrine-bench/ts" placeholder:"DIR" help:"The TypeScript ceiling's folder (its packages installed with npm ci), measured on SQLite; an empty value skips it."`

	Protocol string `placeholder:"VERSION" help:"The MCP revision the client sessions ask for (default: the newest the go-sdk speaks, 2026-07-28, which has no sessions); 2025-11-25, say, measures what clients of that revision get, each in a session."`
	GOGC     string `name:"gogc" default:"400" placeholder:"PERCENT" help:"The GOGC of every Go process measured, the server and its ceilings alike (400 is vitrine serve's own default)."`

	noopPprof string // the no-op server's profiler, with --profile
}

// Run runs every scenario at every size and prints the report.
func (c *BenchCmd) Run(e *env) error {
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
	server, version, err := c.server(e.ctx)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dialect := "sqlite"
	if c.Postgres != "" {
		dialect = "postgres"
	}
	if c.Protocol != "" && !slices.Contains(mcp.SupportedProtocolVersions(), c.Protocol) {
		return fmt.Errorf("--protocol: %q is not a revision the go-sdk speaks (%s)", c.Protocol, strings.Join(mcp.SupportedProtocolVersions(), ", "))
	}
	r := &report{dialect: dialect, server: version, concurrency: c.Concurrency, duration: c.Duration, protocol: c.Protocol, gogc: c.GOGC}
	r.machine()
	// The protocol ceiling runs in a process of its own, as the server under
	// test does, so that both pay for the same scheduling and loopback.
	noopArgs := []string{"noop-server"}
	if c.Profile != "" {
		port, err := freePort()
		if err != nil {
			return err
		}
		c.noopPprof = "127.0.0.1:" + port
		noopArgs = append(noopArgs, "--pprof-addr", c.noopPprof)
	}
	noop, noopProc, err := c.start(e.ctx, self, "", noopArgs...)
	if err != nil {
		return err
	}
	defer stopProcess(noopProc)
	for _, size := range c.Sizes {
		if err := c.runSize(e, server, noop, noopProc, size, r); err != nil {
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

// server finds the vitrine binary to measure, and its version line.
func (c *BenchCmd) server(ctx context.Context) (path, version string, err error) {
	return findVitrine(ctx, c.Vitrine)
}

// findVitrine finds the vitrine binary to measure (path, or else the one
// beside this command), and its version line.
func findVitrine(ctx context.Context, path string) (string, string, error) {
	if path == "" {
		self, err := os.Executable()
		if err != nil {
			return "", "", err
		}
		path = filepath.Join(filepath.Dir(self), "vitrine")
	}
	out, err := exec.CommandContext(ctx, path, "version").Output()
	version := strings.TrimSpace(string(out))
	if err == nil && !strings.HasPrefix(version, "vitrine ") {
		err = fmt.Errorf("its version reads %q", version)
	}
	if err != nil {
		return "", "", fmt.Errorf("--vitrine: %s is not a vitrine binary that runs (%v); build it with make build, or give its path", path, err)
	}
	return path, version, nil
}

func (c *BenchCmd) runSize(e *env, server, noopURL string, noopProc *exec.Cmd, size int, r *report) error {
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
		if err := analyze(ctx, url); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stderr, "bench: filled in %s\n", time.Since(start).Round(time.Millisecond))

	ready, err := startToReady(ctx, server, url, c.gogcEnv())
	if err != nil {
		return err
	}
	serveArgs := slices.Clone(serveFlags)
	durableArgs := append(slices.Clone(serveArgs), "--audit-reads", "durable")
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
	serverURL, proc, err := c.start(ctx, server, url, serveArgs...)
	if err != nil {
		return err
	}
	stop := func() { stopProcess(proc) }
	defer stop()
	s := &sizeResult{size: size, ready: ready}
	r.sizes = append(r.sizes, s)

	sessions := func(base, token string) ([]*mcp.ClientSession, error) {
		return openSessions(ctx, base, token, c.Protocol, c.Concurrency)
	}
	vit, err := sessions(serverURL, w.token)
	if err != nil {
		return err
	}
	nop, err := sessions(noopURL, "noop")
	if err != nil {
		return err
	}
	nopSessions, err := sessions(noopURL+"/sessions", "noop")
	if err != nil {
		return err
	}
	defer func() {
		for _, cs := range slices.Concat(vit, nop, nopSessions) {
			cs.Close()
		}
	}()
	call := func(cs *mcp.ClientSession, tool string, args map[string]any) error {
		_, err := callTool(ctx, cs, tool, args)
		return err
	}
	selected := func(name string) bool {
		return len(c.Only) == 0 || slices.ContainsFunc(c.Only, func(o string) bool { return strings.Contains(name, o) }) ||
			strings.HasPrefix(name, "noop")
	}
	// run measures a scenario; server is the process that answers it (nil
	// for the storage ceilings, run in this one), whose CPU time is read
	// before and after.
	run := func(name string, server *exec.Cmd, op func(worker int, rng *rand.Rand) error) *measure {
		if !selected(name) {
			return &measure{}
		}
		fmt.Fprintf(e.stderr, "bench: %s\n", name)
		var saved chan error
		addr := ""
		switch server {
		case proc:
			addr = pprofAddr
		case noopProc:
			addr = c.noopPprof
		}
		if addr != "" {
			saved = make(chan error, 1)
			file := filepath.Join(c.Profile, fmt.Sprintf("%d-%s.pprof", size, slug(name)))
			go func() { saved <- saveProfile(ctx, addr, c.Duration, file) }()
		}
		before := cpuTime(server)
		m := measureFor(c.Concurrency, c.Duration, op)
		if before >= 0 {
			m.serverCPU = cpuTime(server) - before
		}
		if saved != nil {
			if err := <-saved; err != nil {
				fmt.Fprintf(e.stderr, "bench: profile of %s: %v\n", name, err)
			}
		}
		s.add(name, m)
		return m
	}
	big := w.tenants[0]
	run("noop (protocol ceiling)", noopProc, func(i int, _ *rand.Rand) error { return call(nop[i], "noop", nil) })
	run("noop, in sessions (session ceiling)", noopProc, func(i int, _ *rand.Rand) error { return call(nopSessions[i], "noop", nil) })
	run("get_product", proc, func(i int, rng *rand.Rand) error {
		return call(vit[i], "get_product", map[string]any{"tenant_id": big, "id": w.sample[rng.IntN(len(w.sample))]})
	})
	if selected("get_product (durable audit)") {
		durURL, durProc, err := c.start(ctx, server, url, durableArgs...)
		if err != nil {
			return err
		}
		dur, err := sessions(durURL, w.token)
		if err != nil {
			stopProcess(durProc)
			return err
		}
		run("get_product (durable audit)", durProc, func(i int, rng *rand.Rand) error {
			return call(dur[i], "get_product", map[string]any{"tenant_id": big, "id": w.sample[rng.IntN(len(w.sample))]})
		})
		for _, cs := range dur {
			cs.Close()
		}
		stopProcess(durProc)
	}
	if c.Postgres == "" && c.TS != "" && selected("get_product (TypeScript SDK ceiling)") {
		tsURL, tsProc, err := tsServer(ctx, c.TS, url)
		switch {
		case errors.Is(err, errNoTS):
			fmt.Fprintf(e.stderr, "bench: skipped: %v\n", err)
		case err != nil:
			return err
		default:
			ts, err := sessions(tsURL, "none")
			if err != nil {
				stopProcess(tsProc)
				return err
			}
			run("get_product (TypeScript SDK ceiling)", tsProc, func(i int, rng *rand.Rand) error {
				return call(ts[i], "get_product", map[string]any{"tenant_id": big, "id": w.sample[rng.IntN(len(w.sample))]})
			})
			for _, cs := range ts {
				cs.Close()
			}
			stopProcess(tsProc)
		}
	}
	run("get_product (storage ceiling)", nil, func(_ int, rng *rand.Rand) error {
		_, err := w.db.ProductByID(ctx, big, w.sample[rng.IntN(len(w.sample))])
		return err
	})
	first := map[string]any{"tenant_id": big, "limit": 50}
	run("list_products page 1", proc, func(i int, _ *rand.Rand) error { return call(vit[i], "list_products", first) })
	run("list_products page 1 (storage ceiling)", nil, func(int, *rand.Rand) error {
		_, err := w.db.ListProducts(ctx, big, vitrine.ProductFilter{Sort: vitrine.SortName, Limit: 51})
		return err
	})
	if selected("list_products page 1") {
		page, err := pagePayload(ctx, vit[0], big)
		if err != nil {
			return err
		}
		if err := call(nop[0], "set_page", map[string]any{"page": page}); err != nil {
			return err
		}
		run("list_products page 1 (bare go-sdk page ceiling)", noopProc, func(i int, _ *rand.Rand) error { return call(nop[i], "page", nil) })
	}
	if size >= 1000*50 && selected("list_products page 1000") {
		cursor, key, err := deepCursor(ctx, vit[0], w, big, 1000)
		if err != nil {
			return err
		}
		deep := map[string]any{"tenant_id": big, "limit": 50, "cursor": cursor}
		run("list_products page 1000", proc, func(i int, _ *rand.Rand) error { return call(vit[i], "list_products", deep) })
		run("list_products page 1000 (storage ceiling)", nil, func(int, *rand.Rand) error {
			_, err := w.db.ListProducts(ctx, big, vitrine.ProductFilter{Sort: vitrine.SortName, Limit: 51, After: key})
			return err
		})
	}
	for _, q := range []struct{ name, word string }{{"search, rare word", rareWord}, {"search, word in 10%", commonWord}} {
		args := map[string]any{"tenant_id": big, "query": q.word, "limit": 50}
		run(q.name, proc, func(i int, _ *rand.Rand) error { return call(vit[i], "list_products", args) })
		run(q.name+" (storage ceiling)", nil, func(int, *rand.Rand) error {
			_, err := w.db.ListProducts(ctx, big, vitrine.ProductFilter{Words: []string{q.word}, SKU: q.word, Sort: vitrine.SortRelevance, Limit: 51})
			return err
		})
	}
	var seq atomic.Int64
	run("create_product", proc, func(i int, _ *rand.Rand) error {
		n := seq.Add(1)
		return call(vit[i], "create_product", map[string]any{"tenant_id": big, "sku": fmt.Sprintf("NEW-%d", n), "name": "Novo produto " + strconv.FormatInt(n, 10), "price": "10.00", "stock": 1})
	})
	run("create_product (storage ceiling)", nil, func(_ int, _ *rand.Rand) error {
		n := seq.Add(1)
		_, err := w.db.CreateProduct(ctx, benchChange, benchProduct(big, w.author, fmt.Sprintf("NEW-%d", n), int(n)), nil)
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
	imp := run("import_products (1000 rows)", proc, func(i int, _ *rand.Rand) error {
		return call(vit[i], "import_products", map[string]any{"tenant_id": big, "products": rows()})
	})
	imp.rows = 1000
	ceil := run("import_products (storage ceiling: batched insert)", nil, func(_ int, _ *rand.Rand) error {
		n := seq.Add(1000)
		writes := make([]vitrine.ProductWrite, 1000)
		for i := range writes {
			writes[i].Create = benchProduct(big, w.author, fmt.Sprintf("IMP-%d", n+int64(i)), int(n)+i)
		}
		_, err := w.db.WriteProducts(ctx, benchChange, big, writes, false, nil)
		return err
	})
	ceil.rows = 1000
	s.rss = peakRSS(proc.Process.Pid)
	if c.Postgres != "" && selected("round trips") {
		fmt.Fprintf(e.stderr, "bench: round trips\n")
		if s.getTrips, s.createTrips, err = countRoundTrips(ctx, url, w); err != nil {
			return err
		}
	}
	if selected("stdio") {
		fmt.Fprintf(e.stderr, "bench: stdio start\n")
		if s.stdio, s.stdioBare, err = stdioStartups(ctx, server, url, w.token); err != nil {
			return err
		}
	}
	return nil
}

// start starts a Go process measured (vitrine serve, a ceiling), with the
// run's GOGC.
func (c *BenchCmd) start(ctx context.Context, exe, db string, args ...string) (string, *exec.Cmd, error) {
	return startProcess(ctx, exe, db, c.gogcEnv(), args...)
}

// gogcEnv is the environment variable that sets the run's GOGC.
func (c *BenchCmd) gogcEnv() string { return "GOGC=" + c.GOGC }

// database returns a new, empty database for a run, and how to drop it.
func (c *BenchCmd) database(ctx context.Context) (string, func(), error) {
	return newDatabase(ctx, c.Postgres)
}

// newDatabase returns a new, empty database: a SQLite file in a folder of
// its own, or, given the URL of a PostgreSQL server, a database made on
// it; and how to drop it.
func newDatabase(ctx context.Context, postgres string) (string, func(), error) {
	if postgres == "" {
		dir, err := os.MkdirTemp("", "vitrine-bench-")
		if err != nil {
			return "", nil, err
		}
		return filepath.Join(dir, "bench.db"), func() { os.RemoveAll(dir) }, nil
	}
	conn, err := pgx.Connect(ctx, postgres)
	if err != nil {
		return "", nil, err
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("vitrine_bench_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, err
	}
	u, _ := urlWithDB(postgres, name)
	return u, func() {
		conn, err := pgx.Connect(context.Background(), postgres)
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

// serveFlags start vitrine serve without its rate and concurrency limits,
// which would measure the limits instead of the server.
var serveFlags = []string{"serve", "--ip-rate", "0", "--token-rate", "0", "--token-concurrency", "0"}

// analyze does what autovacuum does shortly after a bulk load: without
// statistics the planner takes a million rows for a few.
func analyze(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "ANALYZE")
	return err
}

// openSessions connects n go-sdk client sessions to the MCP endpoint of
// base, each asking for the revision protocol ("" for the newest).
func openSessions(ctx context.Context, base, token, protocol string, n int) ([]*mcp.ClientSession, error) {
	out := make([]*mcp.ClientSession, n)
	for i := range out {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer(token)}, MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: protocol})
		if err != nil {
			for _, cs := range out[:i] {
				cs.Close()
			}
			return nil, err
		}
		out[i] = cs
	}
	return out, nil
}

// callTool calls a tool; a tool's error result is an error.
func callTool(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, errors.New(res.Content[0].(*mcp.TextContent).Text)
	}
	return res, nil
}
