package httpserver_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
)

// sessionRequest sends one request of a 2025-11-25 session and returns its
// status and the session id it hands out.
func sessionRequest(t *testing.T, url, token, method, session, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url+httpserver.MCPPath, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Mcp-Session-Id")
}

// A session its client ended with DELETE is answered 404 from then on, by
// every instance on the database, as MCP 2025-11-25 asks of a terminated
// session; a session another instance holds, and that nobody ended, is
// still served (statelessly) wherever its requests land.
func TestEndedSessionsAre404OnEveryInstance(t *testing.T) {
	defer httpserver.SetHeldCheckEvery(0)()
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		a := httptest.NewServer(serveHTTP(t, w.svc, w.server(mcpserver.Options{}), httpserver.Options{}))
		defer a.Close()
		svcB := service.New(dbtest.Open(t, url), nil)
		b := httptest.NewServer(serveHTTP(t, svcB, w.server(mcpserver.Options{}), httpserver.Options{}))
		defer b.Close()
		token := w.tokens[owner]
		const ping = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
		open := func() string {
			t.Helper()
			status, id := sessionRequest(t, a.URL, token, "POST", "", initialize)
			if status != 200 || id == "" {
				t.Fatalf("initialize: %d %q", status, id)
			}
			if status, _ := sessionRequest(t, a.URL, token, "POST", id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != 202 {
				t.Fatalf("initialized: %d", status)
			}
			return id
		}
		// Ended on the instance that holds it.
		id := open()
		for _, inst := range []string{a.URL, b.URL} {
			if status, _ := sessionRequest(t, inst, token, "POST", id, ping); status != 200 {
				t.Errorf("a live session: %d", status)
			}
		}
		if status, _ := sessionRequest(t, a.URL, token, "DELETE", id, ""); status/100 != 2 {
			t.Fatalf("DELETE: %d", status)
		}
		for name, inst := range map[string]string{"its instance": a.URL, "another": b.URL} {
			if status, _ := sessionRequest(t, inst, token, "POST", id, ping); status != 404 {
				t.Errorf("ended by DELETE on its instance, then on %s: %d, want 404", name, status)
			}
		}
		// Ended on another instance than the one that holds it.
		id = open()
		if status, _ := sessionRequest(t, b.URL, token, "DELETE", id, ""); status/100 != 2 {
			t.Fatalf("DELETE elsewhere: %d", status)
		}
		for name, inst := range map[string]string{"its instance": a.URL, "the other": b.URL} {
			if status, _ := sessionRequest(t, inst, token, "POST", id, ping); status != 404 {
				t.Errorf("ended by DELETE elsewhere, then on %s: %d, want 404", name, status)
			}
		}
	})
}
