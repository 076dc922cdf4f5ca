package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/cmd/vitrine-bench/internal/harness"
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

	IdleSessions int `name:"idle-sessions" default:"0" placeholder:"N" help:"Before measuring, open N idle sessions of 2025-11-25 (initialized, then quiet) on vitrine serve and on the protocol ceiling alike; vitrine serve then runs with --sessions-per-user 0, since they are one user's."`

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
	case c.IdleSessions < 0:
		return fmt.Errorf("--idle-sessions: %d; give 0 or more", c.IdleSessions)
	}
	server, version, err := harness.FindVitrine(e.ctx, c.Vitrine)
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
	r := &report{dialect: dialect, server: version, concurrency: c.Concurrency, duration: c.Duration, protocol: c.Protocol, gogc: c.GOGC, idle: c.IdleSessions}
	r.cpu = harness.CPUName()
	// The protocol ceiling runs in a process of its own, as the server under
	// test does, so that both pay for the same scheduling and loopback.
	noopArgs := []string{"noop-server"}
	if c.Profile != "" {
		if c.noopPprof, err = harness.FreeAddr(); err != nil {
			return err
		}
		noopArgs = append(noopArgs, "--pprof-addr", c.noopPprof)
	}
	noop, noopProc, err := c.start(e.ctx, self, "", noopArgs...)
	if err != nil {
		return err
	}
	defer harness.StopProcess(noopProc)
	for _, size := range c.Sizes {
		if err := c.runSize(e, server, noop, noopProc, size, r); err != nil {
			return err
		}
	}
	return harness.Print(e.stdout, c.Out, r.markdown())
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
		if err := harness.Analyze(ctx, url); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stderr, "bench: filled in %s\n", time.Since(start).Round(time.Millisecond))

	ready, err := harness.StartToReady(ctx, server, url, c.gogcEnv())
	if err != nil {
		return err
	}
	serveArgs := slices.Clone(harness.ServeFlags)
	if c.IdleSessions > 0 {
		// The idle sessions are the benchmark's one user's: past the
		// default cap, opening them would close them.
		serveArgs = append(serveArgs, "--sessions-per-user", "0")
	}
	durableArgs := append(slices.Clone(serveArgs), "--audit-reads", "durable")
	pprofAddr := ""
	if c.Profile != "" {
		if err := os.MkdirAll(c.Profile, 0o755); err != nil {
			return err
		}
		if pprofAddr, err = harness.FreeAddr(); err != nil {
			return err
		}
		serveArgs = append(serveArgs, "--pprof-addr", pprofAddr)
	}
	serverURL, proc, err := c.start(ctx, server, url, serveArgs...)
	if err != nil {
		return err
	}
	stop := func() { harness.StopProcess(proc) }
	defer stop()
	s := &sizeResult{size: size, ready: ready}
	r.sizes = append(r.sizes, s)

	sessions := func(base, token string) ([]*mcp.ClientSession, error) {
		return harness.OpenSessions(ctx, base, token, c.Protocol, c.Concurrency)
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
	if c.IdleSessions > 0 {
		fmt.Fprintf(e.stderr, "bench: opening %d idle sessions on each server\n", c.IdleSessions)
		for _, s := range []struct{ url, token string }{{serverURL, w.token}, {noopURL, "noop"}} {
			closeIdle, err := harness.OpenIdleSessions(ctx, s.url, s.token, c.IdleSessions)
			if err != nil {
				return err
			}
			defer closeIdle()
		}
	}
	call := func(cs *mcp.ClientSession, tool string, args map[string]any) error {
		_, err := harness.CallTool(ctx, cs, tool, args)
		return err
	}
	selected := func(name string) bool {
		return len(c.Only) == 0 || slices.ContainsFunc(c.Only, func(o string) bool { return strings.Contains(name, o) }) ||
			strings.HasPrefix(name, "noop")
	}
	// run measures a scenario; server is the process that answers it (nil
	// for the storage ceilings, run in this one), whose CPU time is read
	// before and after.
	run := func(name string, server *exec.Cmd, op func(worker int, rng *rand.Rand) error) *harness.Measure {
		if !selected(name) {
			return &harness.Measure{}
		}
		fmt.Fprintf(e.stderr, "bench: %s\n", name)
		answers := harness.Server{Proc: server}
		switch server {
		case proc:
			answers.PprofAddr = pprofAddr
		case noopProc:
			answers.PprofAddr = c.noopPprof
		}
		file := filepath.Join(c.Profile, fmt.Sprintf("%d-%s.pprof", size, harness.Slug(name)))
		m, err := harness.MeasureServer(ctx, answers, file, c.Concurrency, c.Duration, op)
		if err != nil {
			fmt.Fprintf(e.stderr, "bench: profile of %s: %v\n", name, err)
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
			harness.StopProcess(durProc)
			return err
		}
		run("get_product (durable audit)", durProc, func(i int, rng *rand.Rand) error {
			return call(dur[i], "get_product", map[string]any{"tenant_id": big, "id": w.sample[rng.IntN(len(w.sample))]})
		})
		for _, cs := range dur {
			cs.Close()
		}
		harness.StopProcess(durProc)
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
				harness.StopProcess(tsProc)
				return err
			}
			run("get_product (TypeScript SDK ceiling)", tsProc, func(i int, rng *rand.Rand) error {
				return call(ts[i], "get_product", map[string]any{"tenant_id": big, "id": w.sample[rng.IntN(len(w.sample))]})
			})
			for _, cs := range ts {
				cs.Close()
			}
			harness.StopProcess(tsProc)
		}
	}
	run("get_product (storage ceiling)", nil, func(_ int, rng *rand.Rand) error {
		_, err := w.db.ProductByID(ctx, big, w.sample[rng.IntN(len(w.sample))])
		return err
	})
	first := map[string]any{"tenant_id": big, "limit": 50}
	run("list_products page 1", proc, func(i int, _ *rand.Rand) error { return call(vit[i], "list_products", first) })
	run("list_products page 1 (storage ceiling)", nil, func(int, *rand.Rand) error {
		_, err := w.db.ListProducts(ctx, big, filterOf(vitrine.ProductQuery{Sort: vitrine.SortName}, 51, nil))
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
			_, err := w.db.ListProducts(ctx, big, filterOf(vitrine.ProductQuery{Sort: vitrine.SortName}, 51, key))
			return err
		})
	}
	for _, q := range []struct{ name, word string }{{"search, rare word", rareWord}, {"search, word in 10%", commonWord}} {
		args := map[string]any{"tenant_id": big, "query": q.word, "limit": 50}
		run(q.name, proc, func(i int, _ *rand.Rand) error { return call(vit[i], "list_products", args) })
		run(q.name+" (storage ceiling)", nil, func(int, *rand.Rand) error {
			_, err := w.db.ListProducts(ctx, big, filterOf(vitrine.ProductQuery{Query: vitrine.QueryText(q.word)}, 51, nil))
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
	imp.Rows = 1000
	ceil := run("import_products (storage ceiling: batched insert)", nil, func(_ int, _ *rand.Rand) error {
		n := seq.Add(1000)
		writes := make([]vitrine.ProductWrite, 1000)
		for i := range writes {
			writes[i].Create = benchProduct(big, w.author, fmt.Sprintf("IMP-%d", n+int64(i)), int(n)+i)
		}
		_, err := w.db.WriteProducts(ctx, benchChange, big, writes, false, nil)
		return err
	})
	ceil.Rows = 1000
	s.rss = harness.PeakRSS(proc.Process.Pid)
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
	return harness.StartProcess(ctx, exe, db, c.gogcEnv(), args...)
}

// gogcEnv is the environment variable that sets the run's GOGC.
func (c *BenchCmd) gogcEnv() string { return "GOGC=" + c.GOGC }

// database returns a new, empty database for a run, and how to drop it.
func (c *BenchCmd) database(ctx context.Context) (string, func(), error) {
	return harness.NewDatabase(ctx, c.Postgres)
}
