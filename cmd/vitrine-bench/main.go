// Command vitrine-bench measures a vitrine binary against the two ceilings
// it cannot beat: a bare go-sdk server whose tool does nothing (the protocol
// ceiling, served by "vitrine-bench noop-server" in a process of its own),
// and the same store calls run directly (the storage ceiling).
//
//	make build
//	bin/vitrine-bench --sizes 10000 --only get_product   # drives bin/vitrine
//
// docs/performance.md has the scenarios, the targets and the figures.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kong"
	"github.com/vitrine/vitrine/internal/cmdline"
)

// CLI is the command line: the benchmark, and the no-op server it starts.
type CLI struct {
	Run        BenchCmd      `cmd:"" default:"withargs" help:"Fill a database, serve it with vitrine, and measure each scenario beside its ceiling (the default command)."`
	Catalog    CatalogCmd    `cmd:"" help:"Measure the catalog's targets, each against a baseline of the same run: get_product of 10 variants and 10 images, filtered and faceted list_products, the Shopify CSV import, the peak RSS at a million variants."`
	Import     ImportCmd     `cmd:"" help:"Measure a shop's first import: one JSON Lines file of 3-variant products into a new company on SQLite and on PostgreSQL (as a login under forced row-level security), each one's rate and its last tenth's against its first, and on PostgreSQL the rows its sequential scans read."`
	Archive    ArchiveCmd    `cmd:"" help:"Measure a company's archive: vitrine tenant export and import of a company of 100,000 products, each one's peak RSS over a baseline of the same run (at most 100 MiB more) and its rate beside vitrine product export --format jsonl's."`
	Shop       ShopCmd       `cmd:"" help:"Measure the shop window's targets against the admin tools of the same run: search_catalog's p50 against list_products', UCP get_product's calls a second against the admin get_product's."`
	NoopServer NoopServerCmd `cmd:"" name:"noop-server" help:"Serve the protocol ceiling: a bare go-sdk MCP server with one tool that does nothing (the benchmark starts it itself)."`
	NoopStdio  NoopStdioCmd  `cmd:"" name:"noop-stdio" help:"Serve the stdio start ceiling: a bare go-sdk MCP server on standard input and output (the benchmark starts it itself)."`
}

// env is what every command runs with.
type env struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run parses args and runs the command, returning the process exit code:
// 0 on success, 1 when the command failed, 2 for a command line that does
// not parse.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var cli CLI
	parser, err := kong.New(&cli, append(cmdline.Options(stdout, stderr),
		kong.Name("vitrine-bench"),
		kong.Description("Measure a vitrine binary against the protocol and storage ceilings (see docs/performance.md)."),
	)...)
	if err != nil {
		fmt.Fprintf(stderr, "vitrine-bench: %v\n", err)
		return 1
	}
	return cmdline.Run(parser, args, stderr, error.Error, &env{ctx: ctx, stdout: stdout, stderr: stderr})
}
