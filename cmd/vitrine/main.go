// Command vitrine runs the Vitrine MCP server and the operator's commands.
//
//	vitrine serve --demo        # HTTP on 127.0.0.1:8080/mcp, with demo data
//	VITRINE_TOKEN=... vitrine stdio
//
// Run "vitrine --help" for every command and flag.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kong"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/cmdline"
)

func main() {
	tuneGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// env is what every command runs with.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	flags  *Globals
}

// run parses args and runs the command, returning the process exit code:
// 0 on success, 1 when the command failed, 2 for a command line that does
// not parse.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var (
		cli   CLI
		model any = &cli
		flags     = &cli.Globals
	)
	if len(args) > 0 && args[0] == "stdio" {
		var s stdioCLI
		model, flags = &s, &s.Globals
	}
	parser, err := newParser(model, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "vitrine: %v\n", err)
		return 1
	}
	return cmdline.Run(parser, args, stderr, message, &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, flags: flags})
}

// newParser returns the parser of the command line model (a *CLI, or a
// *stdioCLI) describes.
func newParser(model any, stdout, stderr io.Writer) (*kong.Kong, error) {
	return kong.New(model, append(cmdline.Options(stdout, stderr),
		kong.Name("vitrine"),
		kong.Description("Vitrine: a multi-tenant product catalog served to AI agents over MCP."),
		kong.Vars{"version": version()},
		limitVars(),
		kong.DefaultEnvars("VITRINE"),
		kong.Help(help),
	)...)
}

// help is kong's help, without --db for the commands that open no
// database (version).
func help(options kong.HelpOptions, ctx *kong.Context) error {
	if n := ctx.Selected(); n != nil && n.Name == "version" {
		for _, f := range ctx.Model.Flags {
			if f.Name == "db" && !f.Hidden {
				f.Hidden = true
				defer func() { f.Hidden = false }()
			}
		}
	}
	return kong.DefaultHelpPrinter(options, ctx)
}

// message words an error for the operator: a business error by its own
// message, anything else as it is.
func message(err error) string {
	if e := vitrine.AsError(err); e != nil {
		return e.Message
	}
	var ee *usageError
	if errors.As(err, &ee) {
		return ee.msg
	}
	return err.Error()
}

// usageError is a command line that parses but makes no sense.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }
