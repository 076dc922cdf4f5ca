package shopwindow

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite the tools' snapshots from the code (make docs)")

// A snapshot of each of the window's tools as clients see it in
// tools/list, one file a tool (testdata/toolsnaps/<tool>.json, indented),
// as mcpserver keeps the admin tools': a change to what agents read shows
// up in review as that tool's own diff. A snapshot of a tool no longer
// served fails too (make docs removes it).
func TestToolsSnapshot(t *testing.T) {
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := (&Server{}).mcpServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	const dir = "testdata/toolsnaps"
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	served := map[string]bool{}
	for _, tool := range res.Tools {
		served[tool.Name] = true
		data, err := json.MarshalIndent(tool, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, tool.Name+".json")
		if *update {
			if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if have, err := os.ReadFile(path); err != nil || string(have) != string(data)+"\n" {
			t.Errorf("%s is not what the code generates: run make docs, review the change, and commit it", path)
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if served[strings.TrimSuffix(filepath.Base(f), ".json")] {
			continue
		}
		if !*update {
			t.Errorf("%s is the snapshot of a tool the window no longer serves: run make docs, review the change, and commit it", f)
		} else if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
}
