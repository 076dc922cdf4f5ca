package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
)

// The demo, as a newcomer runs it from the repository (bin/vitrine): its
// last line is a command that works as printed, and running it retires the
// tokens the run before printed (a demo database may be served beyond this
// machine). Every demo token grants every toolset.
func TestDemoAgainRetiresItsTokens(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := os.ReadFile(binary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "vitrine"), exe, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	first := run("bin/vitrine", "demo")
	lines := strings.Split(strings.TrimSpace(first), "\n")
	last := lines[len(lines)-1]
	_, command, ok := strings.Cut(last, "run: ")
	if !ok || command != "bin/vitrine demo" {
		t.Fatalf("the demo's last line names %q:\n%s", command, last)
	}
	tokens := func() []map[string]any {
		var out []map[string]any
		dec := json.NewDecoder(strings.NewReader(run("bin/vitrine", "token", "list", "--email", "ana@technova.example", "--json")))
		for dec.More() {
			var tok map[string]any
			if err := dec.Decode(&tok); err != nil {
				t.Fatal(err)
			}
			out = append(out, tok)
		}
		return out
	}
	before := tokens()
	run(strings.Fields(command)...)
	after := tokens()
	if len(before) != 1 || len(after) != 2 {
		t.Fatalf("tokens before %v, after %v", before, after)
	}
	for _, tok := range after {
		retired := tok["id"] == before[0]["id"]
		if (tok["revoked_at"] != nil) != retired {
			t.Errorf("token %v: the first run's should be revoked, the second's not", tok)
		}
		if ts, _ := tok["toolsets"].([]any); len(ts) != len(vitrine.Toolsets) {
			t.Errorf("a demo token grants %v", tok["toolsets"])
		}
	}
	// Another database, another URL: the command says so.
	out := run("bin/vitrine", "demo", "--db", "other.db", "--url", "http://127.0.0.1:9090/mcp")
	if !strings.HasSuffix(strings.TrimSpace(out), "run: bin/vitrine demo --db other.db --url http://127.0.0.1:9090/mcp") {
		t.Errorf("with --db and --url, the last line is %q", out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
	}
}
