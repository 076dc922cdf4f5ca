package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/cmd/vitrine-bench/internal/harness"
	"github.com/vitrine/vitrine/internal/productfile"
	"github.com/vitrine/vitrine/internal/shopify"
)

// importResult is one timed `vitrine product import`.
type importResult struct {
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
var importSummary = regexp.MustCompile(`(\d+) (?:rows|products): (\d+) created, (\d+) updated, (\d+) failed\.`)

// timeImport runs `vitrine product import --format FORMAT FILE` into a
// new company of a new database, and times it from exec to exit.
func (c *CatalogCmd) timeImport(ctx context.Context, server, format, file string, products, variants int) (*importResult, error) {
	r := &importResult{format: format, products: products, variants: variants}
	if st, err := os.Stat(file); err == nil {
		r.bytes = st.Size()
	}
	url, drop, err := c.database(ctx)
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
	err = cmd.Run()
	r.elapsed = time.Since(start)
	if ps := cmd.ProcessState; ps != nil {
		r.cpu = ps.UserTime() + ps.SystemTime()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			r.maxRSS = ru.Maxrss * 1024
		}
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
	return r, nil
}
