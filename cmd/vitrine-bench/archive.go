package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/cmd/vitrine-bench/internal/harness"
)

// ArchiveCmd measures a company's archive in bounded memory: `vitrine
// tenant export` and `vitrine tenant import` of a company of --products
// products (3 variants each), each a process of its own, whose peak RSS
// (VmHWM, read as it runs) is read against a baseline of the same
// run, `vitrine tenant list` on the same database (the binary with its
// database open, doing nothing else); and the export's rate beside
// `vitrine product export --format jsonl`'s of the same company.
type ArchiveCmd struct {
	Vitrine  string `placeholder:"PATH" help:"The vitrine binary to measure (default: the one beside this command, as make build leaves them in bin/)."`
	Products int    `default:"100000" help:"Products (3 variants each) of the company exported and imported."`
	Postgres string `placeholder:"URL" help:"Measure on PostgreSQL instead: the URL of a server and user that may create databases for the run (dropped after); the commands connect as logins that own their database, under forced row-level security."`
	Out      string `placeholder:"FILE" help:"Also write the report (Markdown) to this file."`
}

// archiveGrowthBound is the most a command's peak RSS may grow over the
// baseline's (the target).
const archiveGrowthBound = 100 << 20

// processRun is one timed command.
type processRun struct {
	what    string
	elapsed time.Duration
	cpu     time.Duration
	maxRSS  int64 // bytes
	bytes   int64 // of the file written or read, if any
	out     string
}

// Run fills a company, then times and measures each command.
func (c *ArchiveCmd) Run(e *env) error {
	if c.Products < 100 {
		return fmt.Errorf("--products: %d is too few to measure; give 100 or more", c.Products)
	}
	server, version, err := harness.FindVitrine(e.ctx, c.Vitrine)
	if err != nil {
		return err
	}
	dialect := "sqlite"
	if c.Postgres != "" {
		dialect = "postgres"
	}
	source, dropSource, err := c.database(e.ctx)
	if err != nil {
		return err
	}
	defer dropSource()
	target, dropTarget, err := c.database(e.ctx)
	if err != nil {
		return err
	}
	defer dropTarget()
	dir, err := os.MkdirTemp("", "vitrine-archive-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	cdb, err := openCatalogDB(e.ctx, source)
	if err != nil {
		return err
	}
	tenantID, leaves, err := company(e.ctx, cdb, "archive")
	if err != nil {
		cdb.Close()
		return err
	}
	fmt.Fprintf(e.stderr, "bench: filling %d products on %s\n", c.Products, dialect)
	start := time.Now()
	_, variants, _, err := cdb.fillCatalog(e.ctx, c.Products, func(rng *rand.Rand, i int) *vitrine.Product {
		return catalogProducts(rng, tenantID, cdb.author, i, leaves)
	})
	cdb.Close()
	if err != nil {
		return err
	}
	fill := time.Since(start)
	// The target database, migrated by a process of its own.
	if _, err := runVitrine(e.ctx, "migrate", "", server, "migrate", "--db", target); err != nil {
		return err
	}

	jsonl, archive := filepath.Join(dir, "products.jsonl"), filepath.Join(dir, "archive.zip")
	steps := []struct {
		what, file string
		args       []string
	}{
		{"baseline: vitrine tenant list", "", []string{"tenant", "list", "--db", source}},
		{"vitrine product export --format jsonl", jsonl, []string{"product", "export", "--db", source, "--tenant", tenantID, "--format", "jsonl", "-o", jsonl}},
		{"vitrine tenant export", archive, []string{"tenant", "export", "--db", source, tenantID, "-o", archive}},
		{"baseline: vitrine tenant list (import's database)", "", []string{"tenant", "list", "--db", target}},
		{"vitrine tenant import", archive, []string{"tenant", "import", "--db", target, archive}},
	}
	runs := make([]*processRun, len(steps))
	for i, s := range steps {
		fmt.Fprintf(e.stderr, "bench: %s\n", s.what)
		r, err := runVitrine(e.ctx, s.what, s.file, server, s.args...)
		if err != nil {
			return err
		}
		runs[i] = r
	}
	base, jsonlRun, exportRun, importBase, importRun := runs[0], runs[1], runs[2], runs[3], runs[4]

	var b strings.Builder
	fmt.Fprintf(&b, "## A company's archive, %s (`vitrine-bench archive`)\n\n", dialect)
	fmt.Fprintf(&b, "%s; %s; %d products, %d variants (filled in %s through the store).\n\n",
		strings.TrimSpace(version), harness.CPUName(), c.Products, variants, fill.Round(time.Second))
	b.WriteString("| command | time | products/s | file | peak RSS | over its baseline |\n| --- | --- | --- | --- | --- | --- |\n")
	for i, r := range runs {
		growth := "—"
		if i == 1 || i == 2 {
			growth = mib(r.maxRSS - base.maxRSS)
		}
		if i == 4 {
			growth = mib(r.maxRSS - importBase.maxRSS)
		}
		size := "—"
		if r.bytes > 0 {
			size = mib(r.bytes)
		}
		rate := "—" // a baseline reads no product
		if strings.HasPrefix(r.what, "vitrine") {
			rate = fmt.Sprintf("%.0f", float64(c.Products)/r.elapsed.Seconds())
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.what, r.elapsed.Round(time.Millisecond), rate, size, mib(r.maxRSS), growth)
	}
	t := harness.NewTargets()
	exportGrowth, importGrowth := exportRun.maxRSS-base.maxRSS, importRun.maxRSS-importBase.maxRSS
	t.Row(fmt.Sprintf("tenant export's peak RSS ≤ baseline + 100 MiB (%d products)", c.Products), mib(exportGrowth)+" over", exportGrowth <= archiveGrowthBound)
	t.Row(fmt.Sprintf("tenant import's peak RSS ≤ baseline + 100 MiB (%d products)", c.Products), mib(importGrowth)+" over", importGrowth <= archiveGrowthBound)
	ratio := jsonlRun.elapsed.Seconds() / exportRun.elapsed.Seconds()
	t.Row("tenant export's products/s beside product export --format jsonl's", fmt.Sprintf("%.2f×", ratio), true)
	ratio = jsonlRun.elapsed.Seconds() / importRun.elapsed.Seconds()
	t.Row("tenant import's products/s beside product export --format jsonl's", fmt.Sprintf("%.2f×", ratio), true)
	b.WriteString("\n" + t.String())
	return harness.Print(e.stdout, c.Out, b.String())
}

// database is a new database of the run's kind: on PostgreSQL, owned by a
// login of its own (not a superuser, under forced row-level security).
func (c *ArchiveCmd) database(ctx context.Context) (string, func(), error) {
	dialect := "sqlite"
	if c.Postgres != "" {
		dialect = "postgres"
	}
	url, _, drop, err := harness.NewDatabaseOf(ctx, dialect, c.Postgres)
	return url, drop, err
}

// runVitrine runs the vitrine binary with args, as a process of its own,
// and reads its time, CPU and peak RSS; file, if set, is the file whose
// size it reports. The peak RSS is harness.WaitPeakRSS's.
func runVitrine(ctx context.Context, what, file, server string, args ...string) (*processRun, error) {
	cmd := exec.CommandContext(ctx, server, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	peak, err := harness.WaitPeakRSS(cmd)
	r := &processRun{what: what, elapsed: time.Since(start), out: stdout.String(), maxRSS: peak}
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %s", what, err, harness.Truncate(strings.TrimSpace(stderr.String()), 300))
	}
	if ps := cmd.ProcessState; ps != nil {
		r.cpu = ps.UserTime() + ps.SystemTime()
	}
	if file != "" {
		if st, err := os.Stat(file); err == nil {
			r.bytes = st.Size()
		}
	}
	return r, nil
}
