package harness

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// CPUName is the model of the machine's processor, as /proc/cpuinfo names
// it.
func CPUName() string {
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if name, ok := strings.CutPrefix(line, "model name\t: "); ok {
				return name
			}
		}
	}
	return "unknown CPU"
}

// Targets is the Markdown table of a run's targets, each met or not.
type Targets struct{ b strings.Builder }

// NewTargets starts the table under its heading.
func NewTargets() *Targets {
	t := &Targets{}
	t.b.WriteString("### Targets\n\n| target | measured | |\n| --- | --- | :-: |\n")
	return t
}

// Row adds a target, what was measured, and whether it is met.
func (t *Targets) Row(target, measured string, ok bool) {
	mark := "✗"
	if ok {
		mark = "✓"
	}
	fmt.Fprintf(&t.b, "| %s | %s | %s |\n", target, measured, mark)
}

// String is the table.
func (t *Targets) String() string { return t.b.String() }

// Print prints a report to stdout and, given a file (--out), writes it
// there too.
func Print(stdout io.Writer, file, report string) error {
	fmt.Fprint(stdout, report)
	if file != "" {
		return os.WriteFile(file, []byte(report), 0o644)
	}
	return nil
}

// MS is a duration in milliseconds, to two decimals.
func MS(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// Truncate cuts s to n bytes, marking the cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
