// Package cmdline runs a program's command line on kong as Vitrine's
// programs do (cmd/vitrine, cmd/vitrine-bench): the same help, the same
// exit codes, errors printed after the program's name.
package cmdline

import (
	"fmt"
	"io"

	"github.com/alecthomas/kong"
)

// Exit carries kong's exit code (after --help, say) out of kong's Parse,
// as a panic that Run recovers.
type Exit int

// Options are the kong options Run expects: output to stdout and stderr,
// kong's exits (after --help, say) handed to Run, the usage after an error,
// compact help.
func Options(stdout, stderr io.Writer) []kong.Option {
	return []kong.Option{
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(Exit(code)) }),
		kong.UsageOnError(),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	}
}

// Run parses args with parser (made with Options) and runs the command
// they name, binding binds to its Run method, and returns the process's
// exit code: 0 on success, 1 when the command failed, 2 for a command line
// that does not parse, or kong's own. An error is printed to stderr after
// the program's name, a command's as describe words it.
func Run(parser *kong.Kong, args []string, stderr io.Writer, describe func(error) string, binds ...any) (code int) {
	defer func() {
		switch r := recover().(type) {
		case nil:
		case Exit:
			code = int(r)
		default:
			panic(r)
		}
	}()
	kctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", parser.Model.Name, err)
		return 2
	}
	if err := kctx.Run(binds...); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", parser.Model.Name, describe(err))
		return 1
	}
	return 0
}
