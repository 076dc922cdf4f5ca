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
	"strings"
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
	Products    int           `default:"100000" help:"Products (3 variants each) of the catalog get_product and list_products are measured on, and of each fill: written through the store's batch API by four writers at once, in atomic batches of 2,000 products (no tool call, no audit event: faster than any import a user runs, which goes through vitrine product import)."`
	Import      int           `default:"100000" help:"Variants (3 a product) of the files imported, as Shopify CSV and as JSON Lines; 0: no import."`
	RSSVariants int           `name:"rss-variants" default:"1000000" help:"Variants (3 a product) of the catalog the server's peak RSS is read on; 0: no RSS run."`
	Concurrency int           `default:"8" help:"Concurrent MCP client sessions."`
	Duration    time.Duration `default:"5s" help:"How long each scenario runs."`
	Postgres    string        `placeholder:"URL" help:"Measure on PostgreSQL instead: the URL of a server and user that may create databases for the run (dropped after)."`
	Out         string        `placeholder:"FILE" help:"Also write the report (Markdown) to this file."`
	Profile     string        `placeholder:"DIR" help:"Write a CPU profile of the server during each scenario to DIR, for go tool pprof."`
	ImportsOnly bool          `name:"imports-only" help:"Measure the imports alone (no get_product, list_products or RSS)."`
	GOGC        string        `name:"gogc" default:"400" placeholder:"PERCENT" help:"The GOGC of the server (400 is vitrine serve's own default)."`
	Keep        string        `placeholder:"DIR" help:"Keep the catalog of --products in a database that outlives the run (a SQLite file in DIR; on PostgreSQL a database on the --postgres server, named in DIR/catalog.json), and read it, rather than fill it again, in any later run given the same DIR, database and --products: a run at 1,000,000 products then takes minutes, not the fill's hour. Its fill's figures are those recorded when it was made. The benchmark never drops it: remove DIR, and on PostgreSQL drop the database it names."`
	IndexMemory int64         `name:"facet-index-memory" placeholder:"MIB" help:"The server's --facet-index-memory (default: vitrine serve's own); a company of 1,000,000 products of 3 variants needs about 260."`
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
	case c.Import < 0 || c.Import > 0 && c.Import < 3:
		return fmt.Errorf("--import: %d variants; give 3 or more, or 0 for no import", c.Import)
	case c.RSSVariants < 0 || c.RSSVariants > 0 && c.RSSVariants < 3:
		return fmt.Errorf("--rss-variants: %d variants; give 3 or more, or 0 for no RSS run", c.RSSVariants)
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
	r := &catalogReport{dialect: "sqlite", server: version, concurrency: c.Concurrency, duration: c.Duration, gogc: c.GOGC, indexMemory: c.IndexMemory}
	if c.Postgres != "" {
		r.dialect = "postgres"
	}
	r.cpu = harness.CPUName()
	if !c.ImportsOnly {
		if err := c.reads(e, server, r); err != nil {
			return err
		}
	}
	if c.Import > 0 {
		if err := c.imports(e, server, r); err != nil {
			return err
		}
	}
	if !c.ImportsOnly && c.RSSVariants > 0 {
		if err := c.memory(e, server, r); err != nil {
			return err
		}
	}
	return harness.Print(e.stdout, c.Out, r.markdown())
}

func (c *CatalogCmd) database(ctx context.Context) (string, func(), error) {
	return harness.NewDatabase(ctx, c.Postgres)
}

// readsCatalog fills the reads' catalog: the company of --products
// products the lists read, and a company of products of 10 variants and
// of 1 read by id; with --keep, into a database kept after the run, or
// reads the one a run with the same --keep filled. It returns the
// catalog, its database's URL and the database opened, with a token of
// its user; and how to drop the database (nothing, when kept).
func (c *CatalogCmd) readsCatalog(e *env, r *catalogReport) (_ *keptCatalog, _ string, _ *catalogDB, drop func(), err error) {
	ctx := e.ctx
	var (
		kept *keptCatalog
		url  string
		name string
	)
	drop = func() {}
	if c.Keep != "" {
		if err := os.MkdirAll(c.Keep, 0o755); err != nil {
			return nil, "", nil, nil, err
		}
		if kept, err = c.readKept(r.dialect); err != nil {
			return nil, "", nil, nil, err
		}
		url, name, err = c.keptDatabase(ctx, kept)
	} else {
		url, drop, err = c.database(ctx)
	}
	if err != nil {
		return nil, "", nil, nil, err
	}
	defer func() {
		if err != nil {
			drop()
		}
	}()
	if kept != nil {
		fmt.Fprintf(e.stderr, "bench: reading the catalog kept in %s (%s)\n", c.Keep, kept.Database)
		cdb, err := reopenCatalogDB(ctx, url)
		if err != nil {
			return nil, "", nil, nil, err
		}
		for _, f := range kept.Fills {
			r.fills = append(r.fills, fillResult{what: f.What, products: f.Products, variants: f.Variants, elapsed: f.Elapsed,
				rates: fillRates{first: f.First, last: f.Last}, load: f.LoadAvg, kept: f.Filled})
		}
		return kept, url, cdb, drop, nil
	}
	cdb, err := openCatalogDB(ctx, url)
	if err != nil {
		return nil, "", nil, nil, err
	}
	cat := &keptCatalog{Dialect: r.dialect, Database: name, Products: c.Products}
	var leaves []leaf
	if cat.Catalog, leaves, err = company(ctx, cdb, "catalog"); err == nil {
		_, err = c.fill(e, cdb, r, "catalog", cat.Catalog, leaves, c.Products, catalogProducts)
	}
	// The products read by id, in a company of their own: the list's
	// catalog holds its own count.
	n := min(1000, max(100, c.Products/10))
	if err == nil {
		cat.Get, leaves, err = company(ctx, cdb, "get")
	}
	if err == nil {
		cat.Rich, err = c.fill(e, cdb, r, "10 variants, 10 images", cat.Get, leaves, n, richProduct)
	}
	if err == nil {
		cat.Single, err = c.fill(e, cdb, r, "1 variant, 1 image", cat.Get, leaves, n, singleProduct)
	}
	if err == nil && c.Postgres != "" {
		err = harness.Analyze(ctx, url)
	}
	if err == nil && c.Keep != "" {
		for _, f := range r.fills {
			cat.Fills = append(cat.Fills, keptFill{What: f.what, Products: f.products, Variants: f.variants, Elapsed: f.elapsed,
				First: f.rates.first, Last: f.rates.last, Filled: time.Now().UTC().Round(time.Second), LoadAvg: f.load, Benchmark: "vitrine-bench catalog"})
		}
		err = c.writeKept(cat)
	}
	if err != nil {
		cdb.Close()
		return nil, "", nil, nil, err
	}
	return cat, url, cdb, drop, nil
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

// indexOver is what the server logs when a company's index, built, is
// over its --facet-index-memory: the company's faceted lists are counted
// by the database.
const indexOver = "exceeds the memory of the indexes"

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
	if c.IndexMemory != 0 {
		args = append(args, "--facet-index-memory", fmt.Sprint(c.IndexMemory))
	}
	s := &served{}
	if c.Profile != "" {
		addr, err := harness.FreeAddr()
		if err != nil {
			return nil, err
		}
		s.PprofAddr = addr
		args = append(args, "--pprof-addr", s.PprofAddr)
	}
	s.log = harness.NewLogWatch(indexBuilt, indexOver, serverError)
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
	r.fills = append(r.fills, fillResult{what: what, products: count, variants: variants, elapsed: time.Since(start), rates: rates, load: harness.LoadAverage()})
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
// --products products: filled now, or, with --keep, read from the folder
// a run with the same --keep filled.
func (c *CatalogCmd) reads(e *env, server string, r *catalogReport) error {
	ctx := e.ctx
	cat, url, cdb, drop, err := c.readsCatalog(e, r)
	if err != nil {
		return err
	}
	defer drop()
	defer cdb.Close()
	big, getTenant, rich, single := cat.Catalog, cat.Get, cat.Rich, cat.Single
	r.products = c.Products
	for _, f := range r.fills {
		if f.what == "catalog" {
			r.variants = f.variants
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
	// The faceted lists are measured on the company's facet index. A
	// faceted list of no product starts its build (and is counted by the
	// database meanwhile, at little cost: at 1,000,000 products the count
	// of the lists measured takes the database longer than a call may);
	// the build is waited for, and timed. Its answer may be an error that
	// the list could not be read in time (on SQLite at 1,000,000 products,
	// its page walks the company in name order): the build goes on.
	none := map[string]any{"tenant_id": big, "limit": 1, "vendor": "no such vendor", "facets": catalogFacets}
	if _, err := harness.CallTool(ctx, s.sessions[0], "list_products", none); err != nil {
		if strings.Contains(err.Error(), "Internal error") {
			return fmt.Errorf("a faceted list of no product: %w", s.failed(err))
		}
		fmt.Fprintf(e.stderr, "bench: a faceted list of no product answered: %v\n", err)
	}
	fmt.Fprintf(e.stderr, "bench: waiting for the facet index\n")
	waited := time.Now()
	switch s.log.WaitAny(10*time.Minute, indexBuilt, indexOver) {
	case "":
		return errors.New("the server built no facet index in 10 minutes")
	case indexOver:
		// The faceted lists are measured as the database counts them.
		r.indexOver = s.log.Line(indexOver)
		fmt.Fprintf(e.stderr, "bench: the index is over the server's --facet-index-memory: the faceted lists are counted by the database\n")
	}
	r.indexWait = time.Since(waited)
	r.indexBuilt = s.log.Line(indexBuilt)
	r.matching, r.bytes = map[string]int64{}, map[string]int{}
	for _, sc := range scenarios {
		if r.bytes[sc.name], r.matching[sc.name], err = probe(ctx, s.sessions[0], sc.tool, sc.args); err != nil {
			return fmt.Errorf("%s: %w", sc.name, s.failed(err))
		}
	}
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
