package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/vitrine/vitrine/cmd/vitrine-bench/internal/harness"
)

// keptCatalog is the reads' catalog of a run with --keep, as the run that
// filled it recorded it (DIR/catalog.json): the next run with the same
// --keep, dialect and --products reads it instead of filling it again.
type keptCatalog struct {
	Dialect string `json:"dialect"`
	// Database is the SQLite file, or the PostgreSQL database's name on
	// the --postgres server.
	Database string `json:"database"`
	Products int    `json:"products"`
	// Catalog is the company the lists read; Get, the one of the
	// products read by id, Rich and Single.
	Catalog string   `json:"catalog"`
	Get     string   `json:"get"`
	Rich    []string `json:"rich"`
	Single  []string `json:"single"`
	// Fills are the fills that made it, as they were measured.
	Fills []keptFill `json:"fills"`
}

// keptFill is a fillResult as recorded.
type keptFill struct {
	What      string        `json:"what"`
	Products  int           `json:"products"`
	Variants  int           `json:"variants"`
	Elapsed   time.Duration `json:"elapsed_ns"`
	First     float64       `json:"first_tenth_products_per_s"`
	Last      float64       `json:"last_tenth_products_per_s"`
	Filled    time.Time     `json:"filled"`
	LoadAvg   string        `json:"load_average_after"`
	Benchmark string        `json:"benchmark"`
}

// keepFile is the record of the kept catalog in the folder of --keep.
func keepFile(dir string) string { return filepath.Join(dir, "catalog.json") }

// readKept reads the kept catalog of dir: nil when there is none yet,
// an error when it is not the one this run asks for.
func (c *CatalogCmd) readKept(dialect string) (*keptCatalog, error) {
	b, err := os.ReadFile(keepFile(c.Keep))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var k keptCatalog
	if err := json.Unmarshal(b, &k); err != nil {
		return nil, fmt.Errorf("--keep: %s: %w", keepFile(c.Keep), err)
	}
	if k.Dialect != dialect || k.Products != c.Products {
		return nil, fmt.Errorf("--keep: %s holds a catalog of %d products on %s, not %d on %s; give another folder, or remove it (and its database, %s)",
			c.Keep, k.Products, k.Dialect, c.Products, dialect, k.Database)
	}
	return &k, nil
}

// keptDatabase returns the URL of the kept catalog's database: a new one
// (named, on PostgreSQL, after the folder's time) when k is nil. It is
// never dropped by the benchmark.
func (c *CatalogCmd) keptDatabase(ctx context.Context, k *keptCatalog) (url, name string, err error) {
	if c.Postgres == "" {
		if k != nil {
			return k.Database, k.Database, nil
		}
		abs, err := filepath.Abs(filepath.Join(c.Keep, "catalog.db"))
		return abs, abs, err
	}
	if k != nil {
		return harness.URLWithDB(c.Postgres, k.Database), k.Database, nil
	}
	name = fmt.Sprintf("vitrine_bench_kept_%d", time.Now().Unix())
	conn, err := pgx.Connect(ctx, c.Postgres)
	if err != nil {
		return "", "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", "", err
	}
	return harness.URLWithDB(c.Postgres, name), name, nil
}

// writeKept records the catalog just filled in the folder of --keep.
func (c *CatalogCmd) writeKept(k *keptCatalog) error {
	b, err := json.MarshalIndent(k, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(keepFile(c.Keep), append(b, '\n'), 0o644)
}
