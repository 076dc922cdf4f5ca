package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/vitrine/vitrine/internal/dbtest"
)

// Small things an operator meets on the command line.
func TestSmallThings(t *testing.T) {
	// Log durations read as durations.
	var buf bytes.Buffer
	log, _ := LogFlags{LogFormat: "json", LogLevel: "info"}.logger(&buf)
	log.Info("shutting down", "timeout", 30*time.Second)
	if !strings.Contains(buf.String(), `"timeout":"30s"`) {
		t.Errorf("a duration logged: %s", buf.String())
	}
	// version opens no database: its help lists no --db.
	if out := must(t, "version", "--help"); strings.Contains(out, "--db") {
		t.Errorf("version --help:\n%s", out)
	}
	if out := must(t, "serve", "--help"); !strings.Contains(out, "--max-body=4194304") {
		t.Errorf("serve --help shows no default for --max-body:\n%s", out)
	}
	// audit list's --tenant and --outside are alternatives, not both required.
	if out := must(t, "audit", "list", "--help"); strings.Contains(out, "--tenant=ID|SLUG --outside") {
		t.Errorf("audit list --help:\n%s", out)
	}
	d := "--db=" + dbtest.SQLiteURL(t)
	fails(t, "give --tenant ID|SLUG, or --outside", "audit", "list", d)
	// An unknown role: the roles there are.
	must(t, "demo", d)
	fails(t, `no role "boss" in technova; its roles: owner, admin, member, viewer`, "member", "add", d, "--tenant", "technova", "--email", "marina@mercadoverde.example", "--role", "boss")
}
