package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/cmd/vitrine-bench/internal/harness"
	"github.com/vitrine/vitrine/internal/productfile"
	"github.com/vitrine/vitrine/internal/shopify"
)

// importResult is one timed `vitrine product import`.
type importResult struct {
	dialect  string // sqlite or postgres
	format   string
	products int
	variants int
	bytes    int64
	elapsed  time.Duration
	cpu      time.Duration // the import process's, user and system
	maxRSS   int64
	created  int
	failed   int
	err      error // the process failed, or its summary did not read as expected
	// On PostgreSQL: the login the import connected as (not a superuser),
	// and the rate (variants a second) of the first and of the last
	// window products of the file.
	login               string
	window              int
	firstRate, lastRate float64
}

func (r *importResult) perSecond() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.variants) / r.elapsed.Seconds()
}

// importFiles writes the same generated products (3 variants each, as the
// catalog's) as a Shopify product CSV, by internal/shopify's Writer, and
// as JSON Lines, by internal/productfile's, as `vitrine product export
// --format jsonl` writes them; it returns the two files and the products
// and variants they hold.
func importFiles(dir string, variants int) (shopifyFile, jsonlFile string, products, written int, err error) {
	shopifyFile, jsonlFile = filepath.Join(dir, "products.csv"), filepath.Join(dir, "products.jsonl")
	sf, err := os.Create(shopifyFile)
	if err != nil {
		return "", "", 0, 0, err
	}
	defer sf.Close()
	jf, err := os.Create(jsonlFile)
	if err != nil {
		return "", "", 0, 0, err
	}
	defer jf.Close()
	sb := bufio.NewWriterSize(sf, 1<<20)
	leaves := syntheticLeaves()
	paths := map[string]string{}
	for _, l := range leaves {
		paths[l.ID] = l.path
	}
	sw := shopify.NewWriter(sb, nil, func(p *vitrine.Product) string { return paths[p.Categories[0].ID] })
	jw, err := productfile.NewWriter(jf, productfile.JSONLines)
	if err != nil {
		return "", "", 0, 0, err
	}
	path := func(id string) string { return paths[id] }
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; written < variants; i++ {
		p := catalogProduct(rng, "", "", "I", i, leaves)
		if err := sw.Write(p); err != nil {
			return "", "", 0, 0, err
		}
		if err := jw.Write(productfile.Of(p, path)); err != nil {
			return "", "", 0, 0, err
		}
		products++
		written += len(p.Variants)
	}
	for _, flush := range []func() error{sw.Flush, sb.Flush, jw.Flush} {
		if err := flush(); err != nil {
			return "", "", 0, 0, err
		}
	}
	return shopifyFile, jsonlFile, products, written, nil
}

// importSummary is the line `vitrine product import` ends with.
var importSummary = regexp.MustCompile(`(\d+) (?:rows?|products?): (\d+) created, (\d+) updated, (?:\d+ unchanged, )?(\d+) failed\.`)

// timeImport runs `vitrine product import --format FORMAT FILE` into a
// new company of a new database, and times it from exec to exit. On
// PostgreSQL, the import connects as the owner of the database, a login
// that is neither superuser nor BYPASSRLS, under the tables' forced
// row-level security.
func (c *CatalogCmd) timeImport(ctx context.Context, server, dialect, format, file string, products, variants int) (*importResult, error) {
	r := &importResult{dialect: dialect, format: format, products: products, variants: variants}
	if st, err := os.Stat(file); err == nil {
		r.bytes = st.Size()
	}
	url, admin, drop, err := harness.NewDatabaseOf(ctx, dialect, c.Postgres)
	if err != nil {
		return nil, err
	}
	defer drop()
	cdb, err := openCatalogDB(ctx, url)
	if err != nil {
		return nil, err
	}
	tenantID, err := cdb.company(ctx, "import-"+format)
	cdb.Close()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, server, "product", "import", "--db", url, "--tenant", tenantID, "--format", format, file)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err = cmd.Start(); err == nil {
		r.maxRSS, err = harness.WaitPeakRSS(cmd)
	}
	r.elapsed = time.Since(start)
	if ps := cmd.ProcessState; ps != nil {
		r.cpu = ps.UserTime() + ps.SystemTime()
	}
	m := importSummary.FindStringSubmatch(stdout.String())
	if m != nil {
		r.created, _ = strconv.Atoi(m[2])
		r.failed, _ = strconv.Atoi(m[4])
	}
	switch {
	case err != nil:
		r.err = fmt.Errorf("%v: %s", err, harness.Truncate(strings.TrimSpace(stderr.String()), 200))
	case m == nil:
		r.err = fmt.Errorf("no summary in its output %q", harness.Truncate(stdout.String(), 200))
	case r.created != products || r.failed != 0:
		r.err = fmt.Errorf("%d of %d products created, %d failed: %s", r.created, products, r.failed, harness.Truncate(strings.TrimSpace(stderr.String()), 200))
	}
	if admin != "" && r.err == nil {
		r.login = loginOf(url)
		r.window = min(10000, products/2)
		if r.firstRate, r.lastRate, err = importRates(ctx, admin, tenantID, start.Add(r.elapsed), r.window, variants/products); err != nil {
			r.err = fmt.Errorf("read the import's rates: %w", err)
		}
		if r.firstRate == 0 {
			r.window = 0
		}
	}
	return r, nil
}

// loginOf is the user of a PostgreSQL URL.
func loginOf(u string) string {
	p, err := neturl.Parse(u)
	if err != nil || p.User == nil {
		return ""
	}
	return p.User.Username()
}

// importRates reads the rate, in variants a second, of the first and the
// last window products of an import that ended at end, from its
// products' created_at: the time the batch of 1,000 rows that wrote each
// one began (vitrine product import's batches). The first window runs
// from the first batch to the batch after the window; the last, from the
// batch that begins it to the end of the process.
func importRates(ctx context.Context, admin, tenantID string, end time.Time, window, perProduct int) (first, last float64, err error) {
	batches, err := pgBatches(ctx, admin, tenantID)
	if err != nil {
		return 0, 0, err
	}
	first, last = tenthRates(batches, end, window, perProduct)
	return first, last, nil
}
