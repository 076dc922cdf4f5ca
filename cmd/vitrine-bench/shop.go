package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/cmd/vitrine-bench/internal/harness"
)

// ShopCmd measures the shop window's targets against the admin tools of
// the same run: search_catalog's p50 against an admin list_products with
// the same query and filter, and UCP's get_product calls a second against
// the admin get_product's, on a catalog of --products products.
type ShopCmd struct {
	Vitrine     string        `placeholder:"PATH" help:"The vitrine binary to measure (default: the one beside this command)."`
	Products    int           `default:"10000" help:"Products (3 variants each) of the window's catalog."`
	Concurrency int           `default:"8" help:"Concurrent MCP client sessions."`
	Duration    time.Duration `default:"5s" help:"How long each scenario runs."`
	Postgres    string        `placeholder:"URL" help:"Measure on PostgreSQL instead: the URL of a server and user that may create databases for the run (dropped after)."`
	Out         string        `placeholder:"FILE" help:"Also write the report (Markdown) to this file."`
	GOGC        string        `name:"gogc" default:"400" placeholder:"PERCENT" help:"The GOGC of the server."`
	Profile     string        `placeholder:"DIR" help:"Write a CPU profile of the server during each scenario to DIR, for go tool pprof."`
	Translated  bool          `help:"Also give the company the locales pt-BR, es and en, translate every product's name and description, and measure search_catalog in es against the default locale's."`
}

// The shop's scenarios, by name.
const (
	scShopList     = "admin list_products, query + price filter, 10"
	scShopSearch   = "UCP search_catalog, same query + price filter, 10"
	scShopSearchES = "UCP search_catalog in es (context.language), the query in Spanish + price filter, 10"
	scShopGet      = "admin get_product"
	scShopUCPGet   = "UCP get_product"
	shopQuery      = "cadeira"
	shopMaxPrice   = 50000 // minor units
)

// Run fills a catalog, opens its window, and measures both sides.
func (c *ShopCmd) Run(e *env) error {
	ctx := e.ctx
	if c.Products < 100 || c.Concurrency < 1 || c.Duration <= 0 {
		return fmt.Errorf("give --products of 100 or more, --concurrency of 1 or more and a positive --duration")
	}
	server, version, err := harness.FindVitrine(ctx, c.Vitrine)
	if err != nil {
		return err
	}
	url, drop, err := harness.NewDatabase(ctx, c.Postgres)
	if err != nil {
		return err
	}
	defer drop()
	cdb, err := openCatalogDB(ctx, url)
	if err != nil {
		return err
	}
	defer cdb.Close()
	tenant, leaves, err := company(ctx, cdb, "vitrine-shop")
	if err != nil {
		return err
	}
	r := &catalogReport{dialect: "sqlite", server: version, concurrency: c.Concurrency, duration: c.Duration, gogc: c.GOGC}
	if c.Postgres != "" {
		r.dialect = "postgres"
	}
	sample, err := (&CatalogCmd{}).fill(e, cdb, r, "the window's catalog", tenant, leaves, c.Products, catalogProducts)
	if err != nil {
		return err
	}
	if err := openWindow(ctx, cdb, tenant); err != nil {
		return err
	}
	if c.Translated {
		start := time.Now()
		n, err := translateCatalog(ctx, cdb.db, tenant)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "bench: %d products translated into es and en in %s\n", n, time.Since(start).Round(time.Second))
	}
	if c.Postgres != "" {
		if err := harness.Analyze(ctx, url); err != nil {
			return err
		}
	}
	profile, stopProfile, err := serveAgentProfile()
	if err != nil {
		return err
	}
	defer stopProfile()

	args := append(slices.Clone(harness.ServeFlags), "--dev-insecure-agent-profiles")
	hs := harness.Server{}
	if c.Profile != "" {
		if err := os.MkdirAll(c.Profile, 0o755); err != nil {
			return err
		}
		if hs.PprofAddr, err = harness.FreeAddr(); err != nil {
			return err
		}
		args = append(args, "--pprof-addr", hs.PprofAddr)
	}
	base, proc, err := harness.StartProcess(ctx, server, url, "GOGC="+c.GOGC, args...)
	if err != nil {
		return err
	}
	defer harness.StopProcess(proc)
	hs.Proc = proc
	admin, err := harness.OpenSessions(ctx, base, cdb.token, "", c.Concurrency)
	if err != nil {
		return err
	}
	public := make([]*mcp.ClientSession, c.Concurrency)
	for i := range public {
		if public[i], err = mcp.NewClient(&mcp.Implementation{Name: "bench-agent", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: base + "/shops/vitrine-shop/ucp/mcp", MaxRetries: -1}, nil); err != nil {
			return err
		}
	}
	defer func() {
		for _, cs := range slices.Concat(admin, public) {
			if cs != nil {
				cs.Close()
			}
		}
	}()
	// The products read by id: active ones of the sample (get_product of
	// a draft is the window's not-found answer, which would measure less).
	var ids []string
	for _, id := range sample {
		if p, err := cdb.db.ProductByID(ctx, tenant, id); err == nil && p.Status == vitrine.ProductActive {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return fmt.Errorf("no active product in the sample")
	}
	meta := map[string]any{"ucp-agent": map[string]any{"profile": profile}}
	maxPrice := vitrine.FormatPrice(shopMaxPrice, 2)
	type scenario struct {
		name     string
		sessions []*mcp.ClientSession
		tool     string
		args     func(rng *rand.Rand) map[string]any
	}
	scenarios := []scenario{
		{scShopList, admin, "list_products", func(*rand.Rand) map[string]any {
			return map[string]any{"tenant_id": tenant, "query": shopQuery, "status": "active", "max_price": maxPrice, "limit": 10}
		}},
		{scShopSearch, public, "search_catalog", func(*rand.Rand) map[string]any {
			return map[string]any{"meta": meta, "catalog": map[string]any{"query": shopQuery,
				"filters": map[string]any{"price": map[string]any{"max": shopMaxPrice}}, "pagination": map[string]any{"limit": 10}}}
		}},
		{scShopGet, admin, "get_product", func(rng *rand.Rand) map[string]any {
			return map[string]any{"tenant_id": tenant, "id": ids[rng.IntN(len(ids))]}
		}},
		{scShopUCPGet, public, "get_product", func(rng *rand.Rand) map[string]any {
			return map[string]any{"meta": meta, "catalog": map[string]any{"id": ids[rng.IntN(len(ids))]}}
		}},
	}
	if c.Translated {
		scenarios = append(scenarios, scenario{scShopSearchES, public, "search_catalog", func(*rand.Rand) map[string]any {
			return map[string]any{"meta": meta, "catalog": map[string]any{"query": shopQueryES, "context": map[string]any{"language": "es"},
				"filters": map[string]any{"price": map[string]any{"max": shopMaxPrice}}, "pagination": map[string]any{"limit": 10}}}
		}})
	}
	measures := map[string]*harness.Measure{}
	sizes := map[string]int{}
	for _, sc := range scenarios {
		res, err := harness.CallTool(ctx, sc.sessions[0], sc.tool, sc.args(rand.New(rand.NewPCG(1, 2))))
		if err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if strings.Contains(sc.tool, "list") || strings.Contains(sc.tool, "search") {
			if strings.Contains(text, `"products":[]`) {
				return fmt.Errorf("%s found nothing: the benchmark would measure an empty page", sc.name)
			}
		}
		if sc.name == scShopSearchES && !strings.Contains(text, "Silla") {
			return fmt.Errorf("%s: no product named in Spanish in its answer: the benchmark would measure the default locale", sc.name)
		}
		sizes[sc.name] = len(text)
	}
	// The scenarios take turns, in rounds, each round in another order:
	// on a machine others share, a slow minute then weighs on all of
	// them alike, not on whichever ran in it.
	const rounds = 3
	for round := range rounds {
		for k := range scenarios {
			sc := scenarios[(k+round)%len(scenarios)]
			fmt.Fprintf(e.stderr, "bench: round %d: %s\n", round+1, sc.name)
			file := ""
			if c.Profile != "" && round == 0 {
				file = filepath.Join(c.Profile, "shop-"+harness.Slug(sc.name)+".pprof")
			}
			m, err := harness.MeasureServer(ctx, hs, file, c.Concurrency, c.Duration/rounds, func(i int, rng *rand.Rand) error {
				_, err := harness.CallTool(ctx, sc.sessions[i], sc.tool, sc.args(rng))
				return err
			})
			if err != nil {
				fmt.Fprintf(e.stderr, "bench: %s: %v\n", sc.name, err)
			}
			measures[sc.name] = merge(measures[sc.name], m)
		}
	}
	return harness.Print(e.stdout, c.Out, shopReport(r, c, measures, sizes))
}

// merge adds a round's measure to the scenario's.
func merge(into, m *harness.Measure) *harness.Measure {
	if into == nil {
		return m
	}
	into.Calls += m.Calls
	into.Errors += m.Errors
	if into.FirstErr == nil {
		into.FirstErr = m.FirstErr
	}
	into.Elapsed += m.Elapsed
	into.ServerCPU += m.ServerCPU
	into.Latencies = append(into.Latencies, m.Latencies...)
	slices.Sort(into.Latencies)
	return into
}

// openWindow opens the company's window, as update_shop would.
func openWindow(ctx context.Context, cdb *catalogDB, tenant string) error {
	s, err := cdb.db.Shop(ctx, tenant)
	if err != nil {
		return err
	}
	s.Open, s.ProductURL, s.UpdatedAt, s.UpdatedBy = true, "https://shop.example/products/{handle}", vitrine.Now(), cdb.author
	call := vitrine.Call{Actor: vitrine.ActorUser, RequestID: vitrine.NewID(), Tool: "update_shop", At: vitrine.Now(), Reason: "bench"}
	return cdb.db.SaveShop(ctx, vitrine.Change{UserID: cdb.author, Call: call, Reason: call.Reason}, s)
}

// serveAgentProfile serves a shopping agent's UCP profile on loopback,
// kept by the server for its Cache-Control's hour.
func serveAgentProfile() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		fmt.Fprint(w, `{"ucp":{"version":"2026-04-08","capabilities":{"dev.ucp.shopping.catalog.search":[{"version":"2026-04-08"}],`+
			`"dev.ucp.shopping.catalog.lookup":[{"version":"2026-04-08"}]}}}`)
	}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String() + "/agent.json", func() { srv.Close() }, nil
}

// shopReport is the run's report: each scenario, then the targets as
// ratios to the admin baselines of the same run.
func shopReport(r *catalogReport, c *ShopCmd, ms map[string]*harness.Measure, sizes map[string]int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Shop window (%s, %d products, %d sessions, %s each, GOGC %s, %s)\n\n", r.dialect, c.Products, c.Concurrency, c.Duration, c.GOGC, r.server)
	fmt.Fprintf(&b, "| scenario | calls/s | p50 | p95 | server CPU/call | errors | answer bytes |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, name := range []string{scShopList, scShopSearch, scShopSearchES, scShopGet, scShopUCPGet} {
		m := ms[name]
		if m == nil {
			continue
		}
		fmt.Fprintf(&b, "| %s | %.0f | %s | %s | %s | %d | %d |\n", name, m.PerSecond(), harness.MS(m.Percentile(.5)), harness.MS(m.Percentile(.95)),
			harness.MS(m.CPUPerCall()), m.Errors, sizes[name])
	}
	t := harness.NewTargets()
	if l, s := ms[scShopList], ms[scShopSearch]; l != nil && s != nil && l.Percentile(.5) > 0 {
		ratio := float64(s.Percentile(.5)) / float64(l.Percentile(.5))
		t.Row("search_catalog p50 ≤ 1.2× admin list_products p50", fmt.Sprintf("%.2f× (%s vs %s)", ratio, harness.MS(s.Percentile(.5)), harness.MS(l.Percentile(.5))), ratio <= 1.2)
	}
	if d, es := ms[scShopSearch], ms[scShopSearchES]; d != nil && es != nil && d.Percentile(.5) > 0 {
		ratio := float64(es.Percentile(.5)) / float64(d.Percentile(.5))
		t.Row("search_catalog in a translated locale p50 ≤ 1.2× the default locale's", fmt.Sprintf("%.2f× (%s vs %s)", ratio, harness.MS(es.Percentile(.5)), harness.MS(d.Percentile(.5))), ratio <= 1.2)
	}
	if a, u := ms[scShopGet], ms[scShopUCPGet]; a != nil && u != nil && a.PerSecond() > 0 {
		ratio := u.PerSecond() / a.PerSecond()
		t.Row("UCP get_product ≥ 0.8× admin get_product calls/s", fmt.Sprintf("%.2f× (%.0f vs %.0f/s)", ratio, u.PerSecond(), a.PerSecond()), ratio >= 0.8)
	}
	b.WriteString("\n" + t.String())
	return b.String()
}
