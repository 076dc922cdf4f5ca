package httpserver_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
)

// During an outage, /readyz says "not ready" and nothing of the database
// (addresses, users) to whoever reaches the port; the log has the detail.
func TestReadyzTellsNoDetails(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	outage := errors.New(`dial tcp 10.1.2.3:5432: connect: connection refused (user=vitrine_owner database=prod)`)
	srv, err := mcpserver.New(w.svc, mcpserver.Options{Logger: slog.New(slog.NewTextHandler(w.log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(serveHTTP(t, w.svc, srv, httpserver.Options{Logger: slog.New(slog.NewTextHandler(w.log, nil)),
		Ready: func(context.Context) error { return outage }}))
	defer hs.Close()
	res, err := http.Get(hs.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 503 || string(body) != "not ready\n" {
		t.Errorf("/readyz in an outage: %d %q", res.StatusCode, body)
	}
	if !strings.Contains(w.log.String(), "10.1.2.3:5432") {
		t.Errorf("the log lacks the outage's detail:\n%s", w.log.String())
	}
}

// Refused authentications are logged, without the token, and counted by
// reason.
func TestFailedAuthenticationsAreLoggedAndCounted(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	reg := prometheus.NewRegistry()
	srv, err := mcpserver.New(w.svc, mcpserver.Options{Logger: slog.New(slog.NewTextHandler(w.log, nil)), Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(serveHTTP(t, w.svc, srv, httpserver.Options{Logger: slog.New(slog.NewTextHandler(w.log, nil)), Metrics: reg}))
	defer hs.Close()
	secret := "vtr_notarealtokenbutlongenough0123456789"
	for _, token := range []string{"", secret, secret} {
		req, _ := http.NewRequest("POST", hs.URL+httpserver.MCPPath, strings.NewReader(`{}`))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 401 {
			t.Errorf("token %q: %d", token, res.StatusCode)
		}
	}
	want := `
# HELP vitrine_auth_failures_total HTTP requests refused for their token, by reason: missing_token, invalid_token, insufficient_scope.
# TYPE vitrine_auth_failures_total counter
vitrine_auth_failures_total{reason="invalid_token"} 2
vitrine_auth_failures_total{reason="missing_token"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "vitrine_auth_failures_total"); err != nil {
		t.Error(err)
	}
	log := w.log.String()
	if strings.Count(log, "authentication refused") != 3 || strings.Contains(log, secret) {
		t.Errorf("the log of refusals:\n%s", log)
	}
}
