package mcpserver_test

import (
	"flag"
	"os"
	"testing"

	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
)

var update = flag.Bool("update", false, "rewrite the generated files (docs, snapshots) from the code")

// golden compares a generated file with the one checked in, or rewrites it
// under -update (make docs).
func golden(t *testing.T, path, generated string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(generated), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil || string(have) != generated {
		t.Errorf("%s is not what the code generates: run make docs, review the change, and commit it", path)
	}
}

func TestPermissionsDoc(t *testing.T) {
	golden(t, "../docs/permissions.md", mcpserver.PermissionsDoc(mcpserver.AllTools(service.New(nil, nil), mcpserver.Options{})))
}
