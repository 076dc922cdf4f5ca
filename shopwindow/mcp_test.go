package shopwindow

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// The tool counts the profile it uses when serveMCP counted another (or
// none): whatever reads a message otherwise than serveMCP's decoding, the
// profile limited is the one the call negotiates with.
func TestToolCountsTheProfileItUses(t *testing.T) {
	s, err := New(service.New(nil, nil), Options{Limits: &Limits{ProfileRate: 0.001, ProfileBurst: 1}})
	if err != nil {
		t.Fatal(err)
	}
	profile := "https://192.0.2.1/agent.json"
	if d := s.agents.Wait(profile, time.Now()); d != 0 {
		t.Fatal("the profile's burst is not 1")
	}
	win := &Window{Tenant: &vitrine.Tenant{ID: "t1", Slug: "t"}, Shop: &vitrine.Shop{}}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_catalog","arguments":{"meta":{"ucp-agent":{"profile":"` +
		profile + `"}},"catalog":{"query":"x"}}}}`
	for _, counted := range []string{"", "https://192.0.2.1/another.json"} {
		ctx := context.WithValue(context.Background(), windowKey{}, win)
		if counted != "" {
			ctx = context.WithValue(ctx, countedProfileKey{}, counted)
		}
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/ucp/mcp", strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		rec := httptest.NewRecorder()
		s.mcp.ServeHTTP(rec, req) // past serveMCP
		if got := rec.Body.String(); !strings.Contains(got, `"code":-32000`) || !strings.Contains(got, "rate_limited") {
			t.Errorf("counted %q: %s", counted, got)
		}
	}
}
