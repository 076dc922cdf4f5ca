package mcpserver_test

import (
	"encoding/json"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
)

// What an agent pays, in context, before the user says a word: the bytes of
// the tools/list result, for an owner (who may call every tool). With the
// default toolsets it stays within 16 KB, and with every toolset listed
// within 28 KB, whatever tools exist: the test counts what is there.
// go test -v -run TestToolsListBudget ./mcpserver prints the figures.
func TestToolsListBudget(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	for _, c := range []struct {
		toolsets []string
		max      int
	}{
		{nil, 16 << 10},
		{[]string{"all"}, 28 << 10},
	} {
		res, err := w.connect(mcpserver.Options{Toolsets: c.toolsets}, owner, nil).ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		name := "default"
		if c.toolsets != nil {
			name = c.toolsets[0]
		}
		t.Logf("tools/list with --toolsets %s: %d tools, %d bytes (budget %d)", name, len(res.Tools), len(data), c.max)
		if len(data) > c.max {
			t.Errorf("tools/list with --toolsets %s is %d bytes, over the budget of %d", name, len(data), c.max)
		}
		if testing.Verbose() {
			for _, tool := range res.Tools {
				b, _ := json.Marshal(tool)
				t.Logf("  %-22s %5d", tool.Name, len(b))
			}
		}
	}
}
