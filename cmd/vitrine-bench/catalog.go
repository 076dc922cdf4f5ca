package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/cmd/vitrine-bench/internal/harness"
)

// CatalogCmd measures the catalog's targets, each as a ratio against a
// baseline measured in the same run: get_product of a product of 10
// variants and 10 images against one of one variant; filtered, faceted
// list_products against a plain page; a Shopify CSV import against the
// same products in JSON Lines; and the server's peak RSS serving a
// catalog of a million variants.
type CatalogCmd struct {
	Vitrine     string        `placeholder:"PATH" help:"The vitrine binary to measure (default: the one beside this command, as make build leaves them in bin/)."`
	Products    int           `default:"100000" help:"Products (3 variants each) of the catalog get_product and list_products are measured on."`
	Import      int           `default:"100000" help:"Variants (3 a product) of the files imported, as Shopify CSV and as JSON Lines."`
	RSSVariants int           `name:"rss-variants" default:"1000000" help:"Variants (3 a product) of the catalog the server's peak RSS is read on."`
	Concurrency int           `default:"8" help:"Concurrent MCP client sessions."`
	Duration    time.Duration `default:"5s" help:"How long each scenario runs."`
	Postgres    string        `placeholder:"URL" help:"Measure on PostgreSQL instead: the URL of a server and user that may create databases for the run (dropped after)."`
	Out         string        `placeholder:"FILE" help:"Also write the report (Markdown) to this file."`
	Profile     string        `placeholder:"DIR" help:"Write a CPU profile of the server during each scenario to DIR, for go tool pprof."`
	ImportsOnly bool          `name:"imports-only" help:"Measure the imports alone (no get_product, list_products or RSS)."`
	GOGC        string        `name:"gogc" default:"400" placeholder:"PERCENT" help:"The GOGC of the server (400 is vitrine serve's own default)."`
}

// The scenarios, by name.
const (
	scGetSingle = "get_product, 1 variant, 1 image"
	scGetRich   = "get_product, 10 variants (Size × Color), 10 images"
	scPlain     = "list_products, plain page of 50"
	scOptions   = "list_products, options Size=M + vendor, 4 facets"
	scTag       = "list_products, tag, 4 facets"
	scQuery     = "list_products, query " + filterQuery + ", 4 facets"
	scQueryPage = "list_products, query " + filterQuery + ", no facets"
	scMix       = "mix: get_product, faceted list_products"
)

// catalogFacets are the facets the faceted lists ask for.
var catalogFacets = []string{vitrine.FacetVendor, vitrine.FacetTags, vitrine.FacetOptions, vitrine.FacetStatus}

// Run measures every target and prints the report.
func (c *CatalogCmd) Run(e *env) error {
	switch {
	case c.Products < 100:
		return fmt.Errorf("--products: %d is too few to measure; give 100 or more", c.Products)
	case c.Import < 3:
		return fmt.Errorf("--import: %d variants; give 3 or more", c.Import)
	case c.RSSVariants < 3:
		return fmt.Errorf("--rss-variants: %d variants; give 3 or more", c.RSSVariants)
	case c.Concurrency < 1:
		return fmt.Errorf("--concurrency: %d sessions; give 1 or more", c.Concurrency)
	case c.Duration <= 0:
		return fmt.Errorf("--duration: %s; give a positive time, such as 5s", c.Duration)
	}
	server, version, err := harness.FindVitrine(e.ctx, c.Vitrine)
	if err != nil {
		return err
	}
	if c.Profile != "" {
		if err := os.MkdirAll(c.Profile, 0o755); err != nil {
			return err
		}
	}
	r := &catalogReport{dialect: "sqlite", server: version, concurrency: c.Concurrency, duration: c.Duration, gogc: c.GOGC}
	if c.Postgres != "" {
		r.dialect = "postgres"
	}
	r.cpu = harness.CPUName()
	if !c.ImportsOnly {
		if err := c.reads(e, server, r); err != nil {
			return err
		}
	}
	if err := c.imports(e, server, r); err != nil {
		return err
	}
	if !c.ImportsOnly {
		if err := c.memory(e, server, r); err != nil {
			return err
		}
	}
	return harness.Print(e.stdout, c.Out, r.markdown())
}

func (c *CatalogCmd) database(ctx context.Context) (string, func(), error) {
	return harness.NewDatabase(ctx, c.Postgres)
}

// served is a vitrine serve on a database, with client sessions to it.
type served struct {
	harness.Server
	sessions []*mcp.ClientSession
	// log says when the server built a company's facet index.
	log *harness.LogWatch
}

// indexBuilt is what the server logs when it has built a company's facet
// index (store/internal/catalog).
const indexBuilt = "facet index: built"

// serverError is in each line the server logs at level ERROR: an
// internal error, whose cause the agent is not told.
const serverError = `"level":"ERROR"`

// failed is err, a call's, with the first error the server logged, which
// says why.
func (s *served) failed(err error) error {
	if line := s.log.Line(serverError); line != "" {
		return fmt.Errorf("%w; the server logged: %s", err, harness.Truncate(line, 2000))
	}
	return err
}

func (s *served) close() {
	for _, cs := range s.sessions {
		cs.Close()
	}
	harness.StopProcess(s.Proc)
}

func (c *CatalogCmd) serve(ctx context.Context, server, url, token string) (*served, error) {
	args := slices.Clone(harness.ServeFlags)
	s := &served{}
	if c.Profile != "" {
		addr, err := harness.FreeAddr()
		if err != nil {
			return nil, err
		}
		s.PprofAddr = addr
		args = append(args, "--pprof-addr", s.PprofAddr)
	}
	s.log = harness.NewLogWatch(indexBuilt, serverError)
	base, proc, err := harness.StartProcessLogging(ctx, server, url, "GOGC="+c.GOGC, s.log, args...)
	if err != nil {
		return nil, err
	}
	s.Proc = proc
	if s.sessions, err = harness.OpenSessions(ctx, base, token, "", c.Concurrency); err != nil {
		harness.StopProcess(proc)
		return nil, err
	}
	return s, nil
}

// measure runs a scenario on the server's sessions for the run's
// duration, reading the server's CPU time before and after (and its
// profile, with --profile).
func (c *CatalogCmd) measure(e *env, s *served, name string, op func(cs *mcp.ClientSession, rng *rand.Rand) error) *harness.Measure {
	fmt.Fprintf(e.stderr, "bench: %s\n", name)
	file := filepath.Join(c.Profile, "catalog-"+harness.Slug(name)+".pprof")
	m, err := harness.MeasureServer(e.ctx, s.Server, file, c.Concurrency, c.Duration, func(i int, rng *rand.Rand) error { return op(s.sessions[i], rng) })
	if err != nil {
		fmt.Fprintf(e.stderr, "bench: profile of %s: %v\n", name, err)
	}
	return m
}

// company makes a company with its tree of categories.
func company(ctx context.Context, cdb *catalogDB, slug string) (string, []leaf, error) {
	tenantID, err := cdb.company(ctx, slug)
	if err != nil {
		return "", nil, err
	}
	leaves, err := cdb.categories(ctx, tenantID)
	return tenantID, leaves, err
}

// fill writes count products of gen in the company, and says how long it
// took.
func (c *CatalogCmd) fill(e *env, cdb *catalogDB, r *catalogReport, what, tenantID string, leaves []leaf, count int,
	gen func(rng *rand.Rand, tenantID, author string, i int, leaves []leaf) *vitrine.Product) ([]string, error) {
	fmt.Fprintf(e.stderr, "bench: filling %d products (%s) on %s\n", count, what, r.dialect)
	start := time.Now()
	sample, variants, rates, err := cdb.fillCatalog(e.ctx, count, func(rng *rand.Rand, i int) *vitrine.Product {
		return gen(rng, tenantID, cdb.author, i, leaves)
	})
	if err != nil {
		return nil, err
	}
	r.fills = append(r.fills, fillResult{what: what, products: count, variants: variants, elapsed: time.Since(start), rates: rates})
	return sample, nil
}

// catalogProducts is catalogProduct with the prefix of the catalogs' SKUs.
func catalogProducts(rng *rand.Rand, tenantID, author string, i int, leaves []leaf) *vitrine.Product {
	return catalogProduct(rng, tenantID, author, "C", i, leaves)
}

// listArgs are the arguments of the three lists measured.
func listArgs(tenantID string) (plain, options, tag, query, queryPage map[string]any) {
	plain = map[string]any{"tenant_id": tenantID, "limit": 50}
	options = map[string]any{"tenant_id": tenantID, "limit": 50, "options": map[string]string{"Size": filterSize}, "vendor": filterVendor, "facets": catalogFacets}
	tag = map[string]any{"tenant_id": tenantID, "limit": 50, "tags": []string{filterTag}, "facets": catalogFacets}
	query = map[string]any{"tenant_id": tenantID, "limit": 50, "query": filterQuery, "facets": catalogFacets}
	queryPage = map[string]any{"tenant_id": tenantID, "limit": 50, "query": filterQuery}
	return plain, options, tag, query, queryPage
}

// probe calls a tool once, before its scenario, and returns the size of
// its result as the client receives it and, for a faceted list, how many
// products its filter matches (the status facet's counts, which every
// product has); a list must return a page, or the benchmark would measure
// an empty one.
func probe(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (size int, matching int64, err error) {
	res, err := harness.CallTool(ctx, cs, tool, args)
	if err != nil {
		return 0, 0, err
	}
	b, err := json.Marshal(res)
	if err != nil {
		return 0, 0, err
	}
	if tool != "list_products" {
		return len(b), 0, nil
	}
	out, _ := res.StructuredContent.(map[string]any)
	if ps, _ := out["products"].([]any); len(ps) == 0 {
		return 0, 0, fmt.Errorf("list_products %v returned no product: the benchmark would measure an empty list", args)
	}
	facets, _ := out["facets"].(map[string]any)
	status, _ := facets["status"].([]any)
	for _, v := range status {
		if m, ok := v.(map[string]any); ok {
			if f, ok := m["count"].(float64); ok {
				matching += int64(f)
			}
		}
	}
	if _, faceted := args["facets"]; faceted && matching == 0 {
		return 0, 0, errors.New("list_products returned no status facet")
	}
	return len(b), matching, nil
}

// reads measures get_product and list_products on a catalog of
// --products products.
func (c *CatalogCmd) reads(e *env, server string, r *catalogReport) error {
	ctx := e.ctx
	url, drop, err := c.database(ctx)
	if err != nil {
		return err
	}
	defer drop()
	cdb, err := openCatalogDB(ctx, url)
	if err != nil {
		return err
	}
	defer cdb.Close()
	big, leaves, err := company(ctx, cdb, "catalog")
	if err != nil {
		return err
	}
	if _, err := c.fill(e, cdb, r, "catalog", big, leaves, c.Products, catalogProducts); err != nil {
		return err
	}
	r.products = c.Products
	r.variants = r.fills[len(r.fills)-1].variants
	// The products read by id, in a company of their own: the list's
	// catalog holds its own count.
	n := min(1000, max(100, c.Products/10))
	getTenant, leaves, err := company(ctx, cdb, "get")
	if err != nil {
		return err
	}
	rich, err := c.fill(e, cdb, r, "10 variants, 10 images", getTenant, leaves, n, richProduct)
	if err != nil {
		return err
	}
	single, err := c.fill(e, cdb, r, "1 variant, 1 image", getTenant, leaves, n, singleProduct)
	if err != nil {
		return err
	}
	if c.Postgres != "" {
		if err := harness.Analyze(ctx, url); err != nil {
			return err
		}
	}
	s, err := c.serve(ctx, server, url, cdb.token)
	if err != nil {
		return err
	}
	defer s.close()
	get := func(ids []string) func(cs *mcp.ClientSession, rng *rand.Rand) error {
		return func(cs *mcp.ClientSession, rng *rand.Rand) error {
			_, err := harness.CallTool(ctx, cs, "get_product", map[string]any{"tenant_id": getTenant, "id": ids[rng.IntN(len(ids))]})
			return err
		}
	}
	list := func(args map[string]any) func(cs *mcp.ClientSession, rng *rand.Rand) error {
		return func(cs *mcp.ClientSession, _ *rand.Rand) error {
			_, err := harness.CallTool(ctx, cs, "list_products", args)
			return err
		}
	}
	plain, options, tag, query, queryPage := listArgs(big)
	scenarios := []struct {
		name, tool string
		args       map[string]any
		op         func(cs *mcp.ClientSession, rng *rand.Rand) error
	}{
		{scGetSingle, "get_product", map[string]any{"tenant_id": getTenant, "id": single[0]}, get(single)},
		{scGetRich, "get_product", map[string]any{"tenant_id": getTenant, "id": rich[0]}, get(rich)},
		{scPlain, "list_products", plain, list(plain)},
		{scOptions, "list_products", options, list(options)},
		{scTag, "list_products", tag, list(tag)},
		{scQuery, "list_products", query, list(query)},
		{scQueryPage, "list_products", queryPage, list(queryPage)},
	}
	r.matching, r.bytes = map[string]int64{}, map[string]int{}
	for _, sc := range scenarios {
		if r.bytes[sc.name], r.matching[sc.name], err = probe(ctx, s.sessions[0], sc.tool, sc.args); err != nil {
			return fmt.Errorf("%s: %w", sc.name, s.failed(err))
		}
	}
	// The faceted lists are measured on the company's facet index, which
	// the probe's first faceted list started to build (it answered by the
	// database meanwhile): the build is waited for, and timed.
	fmt.Fprintf(e.stderr, "bench: waiting for the facet index\n")
	waited := time.Now()
	if !s.log.Wait(indexBuilt, 5*time.Minute) {
		return errors.New("the server built no facet index in 5 minutes")
	}
	r.indexWait = time.Since(waited)
	r.indexBuilt = s.log.Line(indexBuilt)
	for _, sc := range scenarios {
		r.add(sc.name, c.measure(e, s, sc.name, sc.op))
	}
	r.readsRSS = harness.PeakRSS(s.Proc.Process.Pid)
	if c.Postgres != "" {
		fmt.Fprintf(e.stderr, "bench: round trips\n")
		for _, t := range []struct {
			ids  []string
			into *float64
		}{{rich, &r.richTrips}, {single, &r.singleTrips}} {
			w := &benchWorld{tenants: []string{getTenant}, token: cdb.token, sample: t.ids}
			if *t.into, _, err = countRoundTrips(ctx, url, w); err != nil {
				return err
			}
		}
	}
	return nil
}

// imports times the Shopify CSV and the JSON Lines imports of the same
// products, each into a new company of a new database; on PostgreSQL
// (through a login that is not a superuser), the JSON Lines import on
// SQLite too, in the same run, as the baseline of PostgreSQL's.
func (c *CatalogCmd) imports(e *env, server string, r *catalogReport) error {
	dir, err := os.MkdirTemp("", "vitrine-bench-import-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(e.stderr, "bench: writing %d variants as Shopify CSV and JSON Lines\n", c.Import)
	csvFile, jsonlFile, products, variants, err := importFiles(dir, c.Import)
	if err != nil {
		return err
	}
	type run struct{ dialect, format, file string }
	runs := []run{{r.dialect, "jsonl", jsonlFile}, {r.dialect, "shopify", csvFile}}
	if c.Postgres != "" {
		runs = append(runs, run{"sqlite", "jsonl", jsonlFile})
	}
	for _, f := range runs {
		fmt.Fprintf(e.stderr, "bench: vitrine product import --format %s (%d products, %d variants) on %s\n", f.format, products, variants, f.dialect)
		res, err := c.timeImport(e.ctx, server, f.dialect, f.format, f.file, products, variants)
		if err != nil {
			return err
		}
		r.imports = append(r.imports, res)
	}
	return nil
}

// memory fills a catalog of --rss-variants variants, serves it, runs a
// mix of reads on it and reads the server's peak RSS.
func (c *CatalogCmd) memory(e *env, server string, r *catalogReport) error {
	ctx := e.ctx
	url, drop, err := c.database(ctx)
	if err != nil {
		return err
	}
	defer drop()
	cdb, err := openCatalogDB(ctx, url)
	if err != nil {
		return err
	}
	tenantID, leaves, err := company(ctx, cdb, "memory")
	if err != nil {
		cdb.Close()
		return err
	}
	sample, err := c.fill(e, cdb, r, "memory", tenantID, leaves, (c.RSSVariants+2)/3, catalogProducts)
	cdb.Close()
	if err != nil {
		return err
	}
	r.rssVariants = r.fills[len(r.fills)-1].variants
	if c.Postgres != "" {
		if err := harness.Analyze(ctx, url); err != nil {
			return err
		}
	}
	s, err := c.serve(ctx, server, url, cdb.token)
	if err != nil {
		return err
	}
	defer s.close()
	_, options, tag, _, _ := listArgs(tenantID)
	// One faceted list starts the build of the company's index (answered
	// by the database meanwhile); the mix is measured once it is built, as
	// the reads are, and the peak RSS read through the build, then after.
	if _, _, err := probe(ctx, s.sessions[0], "list_products", options); err != nil {
		return s.failed(err)
	}
	fmt.Fprintf(e.stderr, "bench: waiting for the facet index\n")
	if !s.log.Wait(indexBuilt, 5*time.Minute) {
		return errors.New("the server built no facet index in 5 minutes")
	}
	r.rssIndexBuilt = s.log.Line(indexBuilt)
	r.rssBuild = harness.PeakRSS(s.Proc.Process.Pid)
	r.rssMix = c.measure(e, s, scMix, func(cs *mcp.ClientSession, rng *rand.Rand) error {
		var err error
		switch rng.IntN(4) {
		case 0, 1:
			_, err = harness.CallTool(ctx, cs, "get_product", map[string]any{"tenant_id": tenantID, "id": sample[rng.IntN(len(sample))]})
		case 2:
			_, err = harness.CallTool(ctx, cs, "list_products", options)
		default:
			_, err = harness.CallTool(ctx, cs, "list_products", tag)
		}
		return err
	})
	r.rss = harness.PeakRSS(s.Proc.Process.Pid)
	return nil
}
