package mcpserver_test

import (
	"encoding/json"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
)

// What an agent pays, in context, before the user says a word: the bytes of
// the tools/list result, for an owner (who may call every tool), as
// vitrine serve lists it (each tool naming its toolset's icon). The default
// grant stays within 16 KiB, whatever tools exist: the test counts what is
// there. A grant of every toolset stays within 48 KiB: 40 KiB held until
// this round's toolsets (markets, translations, synonyms, the company's
// life), whose tools, named by their issues, do not fit it with the
// listing as it is (docs/decisions.md, "The context budget of every
// toolset": the options measured, the decision pending).
// go test -v -run TestToolsListBudget ./mcpserver prints the figures.
func TestToolsListBudget(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	for _, c := range []struct {
		grant string
		token string
		max   int
	}{
		{"the default grant", w.token(owner, nil), 16 << 10},
		{"every toolset", w.token(owner, []string{"all"}), 48 << 10},
	} {
		opts := mcpserver.Options{IconsURL: "https://mcp.example.com/icons/", Token: c.token}
		res, err := w.connectWith(opts, nil).ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("tools/list with %s: %d tools, %d bytes (budget %d, %d left)", c.grant, len(res.Tools), len(data), c.max, c.max-len(data))
		if len(data) > c.max {
			t.Errorf("tools/list with %s is %d bytes, over the budget of %d", c.grant, len(data), c.max)
		}
		if testing.Verbose() {
			for _, tool := range res.Tools {
				b, _ := json.Marshal(tool)
				t.Logf("  %-22s %5d", tool.Name, len(b))
			}
		}
	}
}
