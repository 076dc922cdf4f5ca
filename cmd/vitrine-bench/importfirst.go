package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/ncruces/go-sqlite3/driver" // to read the SQLite import's times
	"github.com/vitrine/vitrine/cmd/vitrine-bench/internal/harness"
)

// ImportCmd measures a shop's first import, the same file into a new
// company on SQLite and on PostgreSQL: its rate on each, and on each the
// rate of its last tenth against its first (an import that slows as the
// company grows reads what it wrote before).
type ImportCmd struct {
	Vitrine  string `placeholder:"PATH" help:"The vitrine binary to measure (default: the one beside this command, as make build leaves them in bin/)."`
	Products int    `default:"20000" help:"Products of the file: 3 variants (an option, Size), 3 tags and a status each, as JSON Lines."`
	Postgres string `placeholder:"URL" required:"" help:"The URL of a PostgreSQL server and user that may create logins and databases: the import runs as a login of its own that is neither superuser nor BYPASSRLS, the owner of a new database (dropped after)."`
	Analyzed bool   `help:"ANALYZE the PostgreSQL database before the import, as a restore or an operator leaves it: the planner then takes the tables for empty."`
	Out      string `placeholder:"FILE" help:"Also write the report (Markdown) to this file."`
}

// firstImport is one timed import and what it read.
type firstImport struct {
	dialect     string
	elapsed     time.Duration
	first, last float64 // variants a second of the first and the last tenth
	seqRead     map[string]int64
}

// Run writes the file, imports it on each database and prints the report.
func (c *ImportCmd) Run(e *env) error {
	if c.Products < 2000 {
		// vitrine product import writes batches of 1,000 rows, whose
		// start times tell the tenths apart.
		return fmt.Errorf("--products: %d is too few for tenths; give 2000 or more", c.Products)
	}
	server, version, err := harness.FindVitrine(e.ctx, c.Vitrine)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "vitrine-bench-import-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "products.jsonl")
	if err := writeFirstImport(file, c.Products); err != nil {
		return err
	}
	var runs []*firstImport
	for _, dialect := range []string{"sqlite", "postgres"} {
		fmt.Fprintf(e.stderr, "importing %d products into %s...\n", c.Products, dialect)
		r, err := c.run(e.ctx, server, dialect, file)
		if err != nil {
			return fmt.Errorf("%s: %w", dialect, err)
		}
		runs = append(runs, r)
	}
	return harness.Print(e.stdout, c.Out, c.markdown(version, runs))
}

// writeFirstImport writes n products as JSON Lines, each of 3 variants of
// an option (Size), 3 tags, a vendor, a type and a status.
func writeFirstImport(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	statuses := []string{"active", "draft", "archived"}
	for i := range n {
		var variants []map[string]any
		for _, size := range []string{"S", "M", "L"} {
			variants = append(variants, map[string]any{"sku": fmt.Sprintf("SKU-%06d-%s", i, size), "options": map[string]string{"Size": size},
				"price": fmt.Sprintf("%d.50", 10+i%90), "stock": i % 17})
		}
		if err := enc.Encode(map[string]any{"handle": fmt.Sprintf("prod-%06d", i), "name": fmt.Sprintf("Product %d", i),
			"vendor": fmt.Sprintf("Vendor %d", i%50), "product_type": fmt.Sprintf("Type %d", i%20),
			"tags":   []string{fmt.Sprintf("tag%d", i%7), fmt.Sprintf("tag%d", 10+i%11), fmt.Sprintf("tag%d", 30+i%13)},
			"status": statuses[i%3], "options": []map[string]any{{"name": "Size", "values": []string{"S", "M", "L"}}}, "variants": variants}); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// run imports file into a new company of a new database of the dialect.
func (c *ImportCmd) run(ctx context.Context, server, dialect, file string) (*firstImport, error) {
	url, admin, drop, err := harness.NewDatabaseOf(ctx, dialect, c.Postgres)
	if err != nil {
		return nil, err
	}
	defer drop()
	// The company is made by the binary measured, so that any build can
	// be measured (an older one refuses a schema newer than its own).
	for _, args := range [][]string{
		{"migrate"},
		{"user", "create", "--email", "owner@vitrine.example", "--name", "Owner"},
		{"tenant", "create", "--name", "First import", "--slug", firstSlug, "--owner", "owner@vitrine.example"},
	} {
		cmd := exec.CommandContext(ctx, server, append(args, "--db", url)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("vitrine %s: %v: %s", strings.Join(args, " "), err, harness.Truncate(strings.TrimSpace(string(out)), 200))
		}
	}
	if admin != "" && c.Analyzed {
		if err := harness.Analyze(ctx, admin); err != nil {
			return nil, err
		}
	}
	if admin != "" {
		if err := resetCounters(ctx, admin); err != nil {
			return nil, err
		}
	}
	r := &firstImport{dialect: dialect}
	cmd := exec.CommandContext(ctx, server, "product", "import", "--db", url, "--tenant", firstSlug, "--format", "jsonl", file)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	r.elapsed = time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, harness.Truncate(strings.TrimSpace(stderr.String()), 200))
	}
	if want := fmt.Sprintf("%d created, 0 updated, 0 unchanged, 0 failed.", c.Products); !strings.Contains(stdout.String(), want) {
		return nil, fmt.Errorf("the import said %q, want %q", harness.Truncate(stdout.String(), 200), want)
	}
	// The scans are read before the batches, whose query reads products
	// whole.
	var batches []importBatch
	if admin != "" {
		if r.seqRead, err = seqScanned(ctx, admin, loginOf(url)); err != nil {
			return nil, err
		}
		batches, err = pgBatches(ctx, admin, firstSlug)
	} else {
		batches, err = sqliteBatches(ctx, url, firstSlug)
	}
	if err != nil {
		return nil, fmt.Errorf("read the import's batches: %w", err)
	}
	r.first, r.last = tenthRates(batches, start.Add(r.elapsed), c.Products/10, 3)
	return r, nil
}

// resetCounters zeroes the server's counters of the database: the scans
// the company's making took are not the import's.
func resetCounters(ctx context.Context, admin string) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "SELECT pg_stat_reset()")
	return err
}

// firstSlug is the slug of the company the import fills.
const firstSlug = "first-import"

// importBatch is a batch of an import: when it began (its products'
// created_at) and how many products it wrote.
type importBatch struct {
	at time.Time
	n  int
}

// pgBatches reads the batches of the import into the company of that id
// or slug.
func pgBatches(ctx context.Context, admin, tenant string) ([]importBatch, error) {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT created_at, count(*) FROM products
		WHERE tenant_id = (SELECT id FROM tenants WHERE id::text = $1 OR slug = $1) GROUP BY created_at ORDER BY created_at`, tenant)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (b importBatch, err error) { return b, r.Scan(&b.at, &b.n) })
}

func sqliteBatches(ctx context.Context, path, slug string) ([]importBatch, error) {
	db, err := sql.Open("sqlite3", "file:"+strings.TrimPrefix(path, "sqlite:")+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT created_at, count(*) FROM products
		WHERE tenant_id = (SELECT id FROM tenants WHERE slug = ?) GROUP BY created_at ORDER BY created_at`, slug)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []importBatch
	for rows.Next() {
		var at string
		var b importBatch
		if err := rows.Scan(&at, &b.n); err != nil {
			return nil, err
		}
		if b.at, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// tenthRates is the rate, in variants a second, of the first and the last
// window products of an import that ended at end: the first window from
// its first batch to the batch after the window, the last from the batch
// that begins it to the end of the process.
func tenthRates(batches []importBatch, end time.Time, window, perProduct int) (first, last float64) {
	if len(batches) < 2 {
		return 0, 0 // one batch: no first and last to tell apart
	}
	done := 0
	for i, b := range batches {
		done += b.n
		if done >= window && i+1 < len(batches) {
			first = float64(done*perProduct) / batches[i+1].at.Sub(batches[0].at).Seconds()
			break
		}
	}
	left := 0
	for i := len(batches) - 1; i >= 0; i-- {
		left += batches[i].n
		if left >= window {
			last = float64(left*perProduct) / end.Sub(batches[i].at).Seconds()
			break
		}
	}
	return first, last
}

// importTables are the tables of the catalog whose sequential scans the
// report counts.
var importTables = []string{"products", "variants", "product_tags", "product_categories", "categories", "product_attributes", "product_words"}

// seqScanned returns the rows that sequential scans read of importTables,
// once the import's connections have ended (the server's counters take a
// connection's reads when it ends).
func seqScanned(ctx context.Context, admin, login string) (map[string]int64, error) {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var open int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE usename = $1`, login).Scan(&open); err != nil {
			return nil, err
		}
		if open == 0 {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%d connections of %s still open 30 s after the import", open, login)
		}
	}
	rows, err := conn.Query(ctx, `SELECT relname, seq_tup_read FROM pg_stat_user_tables WHERE relname = ANY($1)`, importTables)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for rows.Next() {
		var table string
		var n int64
		if err := rows.Scan(&table, &n); err != nil {
			return nil, err
		}
		out[table] = n
	}
	return out, rows.Err()
}

func (c *ImportCmd) markdown(version string, runs []*firstImport) string {
	var b strings.Builder
	stats := "never analyzed"
	if c.Analyzed {
		stats = "analyzed while empty"
	}
	fmt.Fprintf(&b, "## A shop's first import\n\n%s; %s; %d products of 3 variants, 3 tags and a status each (JSON Lines), "+
		"into a new company; PostgreSQL through a login that is neither superuser nor BYPASSRLS, under forced row-level security, %s.\n\n",
		version, harness.CPUName(), c.Products, stats)
	b.WriteString("| database | time | variants/s | first / last 10%, variants/s | last / first | rows read by sequential scans |\n| --- | ---: | ---: | ---: | ---: | --- |\n")
	rate := func(r *firstImport) float64 { return float64(3*c.Products) / r.elapsed.Seconds() }
	for _, r := range runs {
		read := ""
		if r.seqRead != nil {
			var parts []string
			for _, t := range importTables {
				parts = append(parts, fmt.Sprintf("%s %d", t, r.seqRead[t]))
			}
			read = strings.Join(parts, ", ")
		}
		fmt.Fprintf(&b, "| %s | %.1f s | %.0f | %.0f / %.0f | %.2f | %s |\n", r.dialect, r.elapsed.Seconds(), rate(r), r.first, r.last, r.last/r.first, read)
	}
	t := harness.NewTargets()
	sqlite, pg := runs[0], runs[1]
	ratio := rate(pg) / rate(sqlite)
	t.Row("PostgreSQL's rate ≥ 0.5 × SQLite's", fmt.Sprintf("%.2f×", ratio), ratio >= 0.5)
	for _, r := range runs {
		if r.first > 0 {
			t.Row(r.dialect+": the last 10% ≥ 0.8 × the first", fmt.Sprintf("%.2f", r.last/r.first), r.last >= 0.8*r.first)
		}
	}
	b.WriteString("\n" + t.String())
	return b.String()
}
