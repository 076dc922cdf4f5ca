package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
)

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// binary builds vitrine-bench and, beside it, the vitrine it measures by
// default, as make build leaves them in bin/; it returns vitrine-bench.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "vitrine-bench-bin-"); binErr != nil {
			return
		}
		for _, pkg := range []string{".", "../vitrine"} {
			if out, err := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), pkg).CombinedOutput(); err != nil {
				binErr = fmt.Errorf("build %s: %v\n%s", pkg, err, out)
				return
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "vitrine-bench")
}

// vitrine-bench runs every scenario against real processes, on each
// database, and reports each with its ceiling and the targets. Tiny sizes
// and durations: this checks that the benchmark works, not how fast.
func TestBenchRuns(t *testing.T) {
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			out, profiles := filepath.Join(t.TempDir(), "report.md"), t.TempDir()
			args := []string{"--sizes", "300", "--duration", "200ms", "--concurrency", "2", "--out", out, "--profile", profiles}
			if db == "postgres" {
				dbtest.PostgresURL(t) // skips, or fails in CI, without a server
				args = append(args, "--postgres", dbtest.PostgresAdminURL())
			}
			cmd := exec.Command(binary(t), args...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdout, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			report, err := os.ReadFile(out)
			if err != nil || string(report) != string(stdout) {
				t.Fatalf("--out holds %q (%v), not the report printed", report, err)
			}
			text := string(report)
			for _, want := range []string{"| noop (protocol ceiling) |", "| noop, in sessions (session ceiling) |", "| get_product |", "| get_product (storage ceiling) |",
				"| list_products page 1 |", "| search, rare word |", "| search, word in 10% |", "| create_product |",
				"| import_products (1000 rows) |", "| import_products (storage ceiling: batched insert) |",
				"| get_product (durable audit) |", "| list_products page 1 (bare go-sdk page ceiling) |", "vitrine stdio, exec to initialize answered",
				"get_product ≥", "import_products rows/s ≥", "peak RSS ≤ 150 MiB", "start to ready ≤ 300 ms"} {
				if !strings.Contains(text, want) {
					t.Errorf("no %q in the report:\n%s", want, text)
				}
			}
			// | scenario | calls/s | rows/s | p50 | p99 | errors | vs its ceiling | server CPU a call |
			for _, line := range strings.Split(text, "\n") {
				f := strings.Split(line, "|")
				if len(f) != 10 || strings.TrimSpace(f[1]) == "scenario" || strings.HasPrefix(f[1], " -") {
					continue
				}
				if strings.TrimSpace(f[6]) != "0" {
					t.Errorf("calls failed: %s", line)
				}
				// Every scenario served by another process says what it
				// cost that process; the storage ceilings run in this one.
				if cpu := strings.TrimSpace(f[8]); strings.Contains(f[1], "storage ceiling") != (cpu == "") || cpu != "" && !strings.HasSuffix(cpu, " µs") {
					t.Errorf("server CPU a call %q: %s", cpu, line)
				}
			}
			files, _ := os.ReadDir(profiles)
			var names []string
			for _, f := range files {
				names = append(names, f.Name())
			}
			for _, want := range []string{"300-get_product.pprof", "300-noop--protocol-ceiling.pprof", "300-list_products-page-1--bare-go-sdk-page-ceiling.pprof"} {
				if !slices.Contains(names, want) {
					t.Errorf("no profile %s among %v", want, names)
				}
			}
		})
	}
}

// Arguments that cannot make a measurement are refused before any work.
func TestBenchRefusesBadArguments(t *testing.T) {
	for args, want := range map[string]string{
		"--sizes 10":            "--sizes: 10 is too few products",
		"--concurrency 0":       "--concurrency: 0 sessions",
		"--duration 0s":         "--duration: 0s",
		"--protocol 1999-01-01": "--protocol: \"1999-01-01\" is not a revision the go-sdk speaks",
	} {
		out, err := exec.Command(binary(t), strings.Fields(args)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("vitrine-bench %s: %v, %s", args, err, out)
		}
	}
}

// Without a vitrine binary to drive, the benchmark says where it looked
// and how to get one, before any work.
func TestBenchNeedsVitrine(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "vitrine")
	out, err := exec.Command(binary(t), "--sizes", "300", "--vitrine", missing).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--vitrine: "+missing+" is not a vitrine binary") || !strings.Contains(string(out), "make build") {
		t.Errorf("%v, %s", err, out)
	}
}

// vitrine-bench catalog measures every catalog target against real
// processes, on each database, and reports each; tiny sizes: this checks
// that the benchmark works and that no call failed, not how fast.
func TestCatalogBenchRuns(t *testing.T) {
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report.md")
			args := []string{"catalog", "--products", "300", "--import", "300", "--rss-variants", "900", "--duration", "200ms", "--concurrency", "2", "--out", out}
			if db == "postgres" {
				dbtest.PostgresURL(t) // skips, or fails in CI, without a server
				args = append(args, "--postgres", dbtest.PostgresAdminURL())
			}
			cmd := exec.Command(binary(t), args...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdout, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			report, err := os.ReadFile(out)
			if err != nil || string(report) != string(stdout) {
				t.Fatalf("--out holds %q (%v), not the report printed", report, err)
			}
			text := string(report)
			want := []string{"| get_product, 1 variant, 1 image |", "| get_product, 10 variants (Size × Color), 10 images |",
				"| list_products, plain page of 50 |", "| list_products, options Size=M + vendor, 4 facets |", "| list_products, tag, 4 facets |",
				"| --format jsonl | " + db, "| --format shopify | " + db, "| mix: get_product, faceted list_products |", "Peak RSS of the server (VmHWM)",
				"| get_product of 10 variants and 10 images ≥ 0.8 ×", "| list_products, options Size=M + vendor, 4 facets p50 ≤ 3 ×",
				"| list_products, tag, 4 facets p50 ≤ 3 ×", "| Shopify CSV import ≥ 0.5 ×", "| peak RSS of the server ≤ 200 MiB (900 variants) |",
				"when its facet index was built, before the mix", "The server's log of the build: `", `"msg":"facet index: built"`}
			if db == "postgres" {
				want = append(want, "| round trips to PostgreSQL per get_product of 10 variants and 10 images ≤ 1.1",
					"| --format jsonl | postgres (login vitrine_bench_owner_", "| --format jsonl | sqlite | 100 | 300 |",
					"| JSON Lines import on PostgreSQL (a login not a superuser) ≥ 0.5 × SQLite's variants/s (100 products, 300 variants) |")
			}
			for _, w := range want {
				if !strings.Contains(text, w) {
					t.Errorf("no %q in the report:\n%s", w, text)
				}
			}
			for _, line := range strings.Split(text, "\n") {
				f := strings.Split(line, "|")
				switch {
				case len(f) == 10 && (strings.HasPrefix(f[1], " get_product") || strings.HasPrefix(f[1], " list_products") || strings.HasPrefix(f[1], " mix")):
					// | scenario | calls/s | p50 | p99 | errors | server CPU a call | result | products matching |
					if strings.TrimSpace(f[5]) != "0" || strings.Trim(strings.TrimSpace(f[2]), "0.") == "" {
						t.Errorf("calls failed, or none was made: %s", line)
					}
					if !strings.HasSuffix(strings.TrimSpace(f[6]), " µs") {
						t.Errorf("no server CPU a call: %s", line)
					}
				case strings.HasPrefix(line, "| --format "):
					if !strings.HasSuffix(line, " 100 created, 0 failed |") {
						t.Errorf("the import failed: %s", line)
					}
				}
			}
		})
	}
}

// vitrine-bench shop --translated measures the window's search in es
// beside the default locale's, every call answered, on SQLite (PostgreSQL
// takes the same path through the window).
func TestShopBenchRunsTranslated(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.md")
	cmd := exec.Command(binary(t), "shop", "--products", "300", "--duration", "300ms", "--concurrency", "2", "--translated", "--out", out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if _, err := cmd.Output(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	report, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(report)
	for _, w := range []string{"| UCP search_catalog, same query + price filter, 10 |", "| UCP search_catalog in es (context.language), the query in Spanish + price filter, 10 |",
		"| search_catalog in a translated locale p50 ≤ 1.2× the default locale's |"} {
		if !strings.Contains(text, w) {
			t.Errorf("no %q in the report:\n%s", w, text)
		}
	}
	// | scenario | calls/s | p50 | p95 | server CPU/call | errors | answer bytes |
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Split(line, "|"); len(f) == 9 && strings.Contains(f[1], "search_catalog") && strings.TrimSpace(f[6]) != "0" {
			t.Errorf("calls failed: %s", line)
		}
	}
	if !strings.Contains(stderr.String(), "300 products translated into es and en") {
		t.Errorf("the catalog was not translated:\n%s", stderr.String())
	}
}

// With --keep, the catalog of the first run is kept and read by the next
// run given the same folder and size, which fills nothing and reports the
// first run's fill; another size is refused, naming the folder.
func TestCatalogBenchKeeps(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kept")
	run := func(products string) (report, stderr string, err error) {
		cmd := exec.Command(binary(t), "catalog", "--products", products, "--import", "0", "--rss-variants", "0", "--duration", "100ms", "--concurrency", "1", "--keep", dir)
		var e strings.Builder
		cmd.Stderr = &e
		out, err := cmd.Output()
		return string(out), e.String(), err
	}
	first, stderr, err := run("300")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "bench: filling 300 products (catalog)") || strings.Contains(first, "kept (--keep)") {
		t.Fatalf("the first run did not fill the catalog:\n%s\n%s", stderr, first)
	}
	second, stderr, err := run("300")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if strings.Contains(stderr, "bench: filling") || !strings.Contains(second, "catalog, 300 products and 900 variants in") || !strings.Contains(second, "kept (--keep), filled ") {
		t.Errorf("the second run filled again, or did not report the kept fill:\n%s\n%s", stderr, second)
	}
	if !strings.Contains(second, "| list_products, tag, 4 facets |") || strings.Contains(second, "| --format ") || strings.Contains(second, "| mix:") {
		t.Errorf("the second run did not measure the lists alone:\n%s", second)
	}
	_, stderr, err = run("400")
	if err == nil || !strings.Contains(stderr, "--keep: "+dir+" holds a catalog of 300 products on sqlite, not 400") {
		t.Errorf("another size was not refused: %v\n%s", err, stderr)
	}
}

// vitrine-bench archive exports and imports a company with real
// processes, on each database, and reports each one's peak RSS over its
// baseline; a tiny size: this checks that the benchmark works, not how
// much memory the archive takes.
func TestArchiveBenchRuns(t *testing.T) {
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			args := []string{"archive", "--products", "200"}
			if db == "postgres" {
				dbtest.PostgresURL(t) // skips, or fails in CI, without a server
				args = append(args, "--postgres", dbtest.PostgresAdminURL())
			}
			out, err := exec.Command(binary(t), args...).Output()
			if err != nil {
				t.Fatalf("%v", err)
			}
			for _, w := range []string{"## A company's archive, " + db, "| vitrine tenant export |", "| vitrine tenant import |",
				"| vitrine product export --format jsonl |", "| tenant export's peak RSS ≤ baseline + 100 MiB (200 products) |", "over | ✓ |"} {
				if !strings.Contains(string(out), w) {
					t.Errorf("no %q in the report:\n%s", w, out)
				}
			}
		})
	}
}
