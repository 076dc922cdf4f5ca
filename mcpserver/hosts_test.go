package mcpserver_test

import (
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver/views"
)

// Hosts that show views see the MCP Apps extension declared (initialize,
// and server/discover where the transport serves it); tools/list says
// how long the caller's own client may keep it.
func TestHostsSeeTheExtensionAndTheListsTTL(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	for _, tr := range transports {
		cs := w.session(tr, owner)
		caps := cs.InitializeResult().Capabilities
		ui, ok := caps.Extensions[views.Extension].(map[string]any)
		if !ok {
			t.Errorf("%s: capabilities %+v declare no %s", tr, caps, views.Extension)
		} else if types, _ := ui["mimeTypes"].([]any); len(types) != 1 || types[0] != views.MIMEType {
			t.Errorf("%s: the extension's settings %v", tr, ui)
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.TTLMs != 3600000 || res.CacheScope != "private" {
			t.Errorf("%s: tools/list kept %d ms, %q", tr, res.TTLMs, res.CacheScope)
		}
	}
}
