package main

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/vitrine/vitrine/internal/cmdline"
)

// parsed is what a command line model made of args: the stdio command's
// flags, the global ones, and what it printed.
type parsed struct {
	globals Globals
	stdio   StdioCmd
	out     string
	err     string
	code    int
}

func parseWith(t *testing.T, full bool, args ...string) (p parsed) {
	t.Helper()
	var (
		cli   CLI
		s     stdioCLI
		model any = &s
	)
	if full {
		model = &cli
	}
	var out, errs bytes.Buffer
	parser, err := newParser(model, &out, &errs)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if c, ok := recover().(cmdline.Exit); ok {
			p.code = int(c)
		}
		p.out, p.err = out.String(), errs.String()
		if full {
			p.globals, p.stdio = cli.Globals, cli.Stdio
		} else {
			p.globals, p.stdio = s.Globals, s.Stdio
		}
	}()
	if _, err := parser.Parse(args); err != nil {
		p.err += err.Error()
		p.code = -1
	}
	return p
}

// vitrine stdio is parsed with a model of that command alone (stdioCLI),
// for a faster start: it must read every flag and environment variable,
// refuse every mistake and print the same help as the whole command line.
func TestStdioCommandLine(t *testing.T) {
	t.Setenv("VITRINE_CALL_TIMEOUT", "7s")
	for _, args := range [][]string{
		{"stdio"},
		{"stdio", "--help"},
		{"stdio", "--db", "postgres://x/y", "--toolsets", "all", "--read-only", "--confirm-destructive",
			"--audit-reads", "durable", "--audit-retention", "30d", "--audit-sink", "stderr", "--log-level", "debug", "--log-format", "json"},
		{"stdio", "--toolsets", "tenants,audit"},
		{"stdio", "--audit-reads", "sometimes"},
		{"stdio", "--no-such-flag"},
		{"stdio", "extra"},
	} {
		full, alone := parseWith(t, true, args...), parseWith(t, false, args...)
		if !reflect.DeepEqual(full, alone) {
			t.Errorf("%q: the whole command line made\n%+v\nstdio's alone made\n%+v", args, full, alone)
		}
	}
	if p := parseWith(t, false, "stdio"); p.stdio.CallTimeout.String() != "7s" || p.globals.DB != "vitrine.db" {
		t.Errorf("stdio's defaults and environment: %+v", p)
	}
}
