package httpserver_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/ncruces/go-sqlite3/driver"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
)

func limitedServer(t *testing.T, w *world, limits httpserver.Limits, reg prometheus.Registerer) *httptest.Server {
	srv, err := mcpserver.New(w.svc, mcpserver.Options{Logger: slog.New(slog.NewTextHandler(w.log, nil)), Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(serveHTTP(t, w.svc, srv, httpserver.Options{Logger: slog.New(slog.NewTextHandler(w.log, nil)), Limits: limits, Metrics: reg}))
	t.Cleanup(hs.Close)
	return hs
}

func request(t *testing.T, url, token, body string, headers ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", url+httpserver.MCPPath, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

func tooMany(t *testing.T, res *http.Response, what string) {
	t.Helper()
	after, err := strconv.Atoi(res.Header.Get("Retry-After"))
	if res.StatusCode != http.StatusTooManyRequests || err != nil || after < 1 {
		t.Errorf("%s: %d, Retry-After %q", what, res.StatusCode, res.Header.Get("Retry-After"))
	}
}

func TestRateLimits(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	reg := prometheus.NewRegistry()
	byIP := limitedServer(t, w, httpserver.Limits{IPRate: 0.01, IPBurst: 2}, reg)
	for i := range 2 {
		if res := request(t, byIP.URL, w.tokens[owner], initialize); res.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, res.StatusCode)
		}
	}
	// Past the burst, even a request without a token is refused first.
	tooMany(t, request(t, byIP.URL, "", initialize), "third request from one address")

	byToken := limitedServer(t, w, httpserver.Limits{TokenRate: 0.01, TokenBurst: 2}, nil)
	for range 2 {
		request(t, byToken.URL, w.tokens[owner], initialize)
	}
	tooMany(t, request(t, byToken.URL, w.tokens[owner], initialize), "third request of one token")
	if res := request(t, byToken.URL, w.tokens[member], initialize); res.StatusCode != 200 {
		t.Errorf("another token is not limited: %d", res.StatusCode)
	}
	if n := testutil.ToFloat64(counter(t, reg, "vitrine_rate_limited_total", "ip")); n != 1 {
		t.Errorf("ip refusals counted: %v", n)
	}
}

// counter finds a labelled counter in a registry.
func counter(t *testing.T, reg *prometheus.Registry, name, label string) prometheus.Collector {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == label {
				c := prometheus.NewCounter(prometheus.CounterOpts{Name: "x"})
				c.Add(m.GetCounter().GetValue())
				return c
			}
		}
	}
	t.Fatalf("no %s{%s}", name, label)
	return nil
}

// One token's calls in flight are capped.
func TestConcurrencyCap(t *testing.T) {
	url := dbtest.SQLiteURL(t)
	w := newWorld(t, url)
	reg := prometheus.NewRegistry()
	hs := limitedServer(t, w, httpserver.Limits{TokenConcurrency: 1}, reg)
	// Hold SQLite's write lock: the first write waits, in flight.
	release := dbtest.LockSQLite(t, url)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: hs.URL + httpserver.MCPPath, HTTPClient: testkit.BearerClient(w.tokens[owner]), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	done := make(chan error, 1)
	call := func() {
		_, err := testkit.CallJSON[product](cs, "create_product", map[string]any{"tenant_id": w.tenants["technova"], "sku": "CAP-1", "name": "x", "price": "1"})
		done <- err
	}
	go call()
	deadline := time.Now().Add(10 * time.Second)
	for gauge(t, reg, "vitrine_tool_calls_in_flight") != 1 {
		select {
		case err := <-done:
			// The slot of the client's previous request (its initialized
			// notification) is given back just after the answer went out,
			// so the first call can still meet it: that call is refused
			// whole, and sent again.
			if err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
				t.Fatalf("the call ended (%v) before it was seen in flight", err)
			}
			go call()
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the call never got in flight")
		}
		time.Sleep(5 * time.Millisecond)
	}
	tooMany(t, request(t, hs.URL, w.tokens[owner], initialize), "a second call in flight")
	if res := request(t, hs.URL, w.tokens[member], initialize); res.StatusCode != 200 {
		t.Errorf("another token: %d", res.StatusCode)
	}
	release()
	if err := <-done; err != nil {
		t.Errorf("the first call: %v", err)
	}
}

func gauge(t *testing.T, reg *prometheus.Registry, name string) float64 {
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	return -1
}

func TestBodyLimits(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	hs := limitedServer(t, w, httpserver.Limits{MaxBodyBytes: 1000, BodyTimeout: 300 * time.Millisecond}, nil)
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`
	if res := request(t, hs.URL, w.tokens[owner], big); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body past the limit: %d", res.StatusCode)
	}
	// A client that stops sending its body is cut off.
	c, err := net.Dial("tcp", strings.TrimPrefix(hs.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n{\"jsonrpc\":", strings.TrimPrefix(hs.URL, "http://"), w.tokens[owner])
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	io.Copy(io.Discard, c) // returns when the server gives up on the body
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("a stalled body held the connection for %s", took)
	}
}

// Browsers of other origins are refused (DNS-rebinding protection).
func TestOrigins(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	hs := limitedServer(t, w, httpserver.Limits{AllowedOrigins: []string{"https://app.example.com"}}, nil)
	host := strings.TrimPrefix(hs.URL, "http://")
	for origin, want := range map[string]int{
		"https://evil.example":    http.StatusForbidden,
		"https://app.example.com": http.StatusOK,
		"http://" + host:          http.StatusForbidden, // same origin: not listed, so refused
		"":                        http.StatusOK,        // not a browser
	} {
		headers := []string{}
		if origin != "" {
			headers = []string{"Origin", origin}
		}
		if res := request(t, hs.URL, w.tokens[owner], initialize, headers...); res.StatusCode != want {
			t.Errorf("Origin %q: %d, want %d", origin, res.StatusCode, want)
		}
	}
	// On loopback without --allowed-origins, the rule is the one of
	// anywhere else: same origin, and the pages of this machine (loopback
	// origins), pass; a page of the web does not.
	local := limitedServer(t, w, httpserver.Limits{}, nil)
	localHost := strings.TrimPrefix(local.URL, "http://")
	for origin, want := range map[string]int{
		"https://evil.example":   http.StatusForbidden,
		"http://evil.example":    http.StatusForbidden,
		"null":                   http.StatusForbidden,
		"http://" + localHost:    http.StatusOK,
		"http://localhost:5173":  http.StatusOK,
		"http://127.0.0.1:3000":  http.StatusOK,
		"https://[::1]:8443":     http.StatusOK,
		"http://localhost.evil.": http.StatusForbidden,
	} {
		if res := request(t, local.URL, w.tokens[owner], initialize, "Origin", origin); res.StatusCode != want {
			t.Errorf("on loopback, Origin %q: %d, want %d", origin, res.StatusCode, want)
		}
	}
	// Listening beyond loopback, any other origin is refused by default.
	ip := nonLoopbackIP(t)
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	srv, _ := mcpserver.New(w.svc, mcpserver.Options{})
	open := &httptest.Server{Listener: ln, Config: &http.Server{Handler: serveHTTP(t, w.svc, srv, httpserver.Options{})}}
	open.Start()
	defer open.Close()
	if res := request(t, open.URL, w.tokens[owner], initialize, "Origin", "https://evil.example"); res.StatusCode != http.StatusForbidden {
		t.Errorf("beyond loopback, a foreign origin: %d", res.StatusCode)
	}
	if res := request(t, open.URL, w.tokens[owner], initialize); res.StatusCode != http.StatusOK {
		t.Errorf("beyond loopback, no origin: %d", res.StatusCode)
	}
}

func nonLoopbackIP(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skip(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	t.Skip("no address beyond loopback")
	return ""
}

// batchSession opens a session negotiated at version and returns a
// function that POSTs a JSON-RPC batch of n whoami calls in it, without an
// MCP-Protocol-Version header (which the SDK then takes as 2025-03-26,
// where batches exist), and returns the status and the answers.
func batchSession(t *testing.T, url, token, version string) func(n int) (int, []map[string]any, string) {
	t.Helper()
	post := func(session, body string) (*http.Response, []byte) {
		req, _ := http.NewRequest("POST", url+httpserver.MCPPath, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		data, _ := io.ReadAll(res.Body)
		return res, data
	}
	res, _ := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"batch","version":"1"}}}`)
	id := res.Header.Get("Mcp-Session-Id")
	if res.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize at %s: %d, session %q", version, res.StatusCode, id)
	}
	post(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	next := 0
	return func(n int) (int, []map[string]any, string) {
		calls := make([]string, n)
		for i := range calls {
			next++
			calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`, next)
		}
		res, body := post(id, "["+strings.Join(calls, ",")+"]")
		var answers []map[string]any
		for _, line := range strings.Split(string(body), "\n") {
			data := strings.TrimPrefix(line, "data: ")
			var one map[string]any
			var many []map[string]any
			switch {
			case json.Unmarshal([]byte(data), &many) == nil:
				answers = append(answers, many...)
			case json.Unmarshal([]byte(data), &one) == nil && one["id"] != nil:
				answers = append(answers, one)
			}
		}
		return res.StatusCode, answers, string(body)
	}
}

// Each call of a JSON-RPC batch counts against the token's limits, as if
// it had come alone: a batch is not a way around the burst, the rate or
// the cap on calls in flight. Clients of MCP 2025-03-26 may batch, so
// batches are served, within those limits; one larger than a token may
// ever send at once is refused whole, with the bound.
func TestBatchesCountEachCall(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	reg := prometheus.NewRegistry()

	// The probe: 150 calls in one POST, in a session negotiated
	// at 2025-06-18, under the default limits (a burst of 100, 16 calls
	// in flight).
	hs := limitedServer(t, w, httpserver.DefaultLimits, reg)
	batch := batchSession(t, hs.URL, w.tokens[owner], "2025-06-18")
	status, answers, body := batch(150)
	if status != http.StatusBadRequest || len(answers) != 0 || !strings.Contains(body, "a batch of 150 calls is more than the 16 one token may send at once") {
		t.Errorf("a batch of 150: %d, %d answers, %.300s", status, len(answers), body)
	}
	if status, answers, _ := batch(16); status != http.StatusOK || len(answers) != 16 {
		t.Errorf("a batch of 16 (the cap in flight): %d, %d answers", status, len(answers))
	}
	if n := testutil.ToFloat64(counter(t, reg, "vitrine_rate_limited_total", "batch")); n != 1 {
		t.Errorf("batch refusals counted: %v", n)
	}

	// The burst and the rate count every call of a 2025-03-26 batch.
	hs = limitedServer(t, w, httpserver.Limits{TokenRate: 0.01, TokenBurst: 10}, nil)
	batch = batchSession(t, hs.URL, w.tokens[owner], "2025-03-26") // its initialize and initialized: 2 of 10
	if status, answers, body := batch(3); status != http.StatusOK || len(answers) != 3 {
		t.Fatalf("a 2025-03-26 client's batch of 3: %d, %d answers, %.300s", status, len(answers), body)
	}
	status, answers, _ = batch(6) // 5 left
	if status != http.StatusTooManyRequests || len(answers) != 0 {
		t.Errorf("a batch of 6 with 5 calls left of the burst: %d, %d answers", status, len(answers))
	}
	if status, answers, _ := batch(5); status != http.StatusOK || len(answers) != 5 {
		t.Errorf("a batch of 5 with 5 left (the refused batch took none): %d, %d answers", status, len(answers))
	}
	tooMany(t, request(t, hs.URL, w.tokens[owner], initialize), "a request past a burst that batches spent")
	if status, _, body := batch(11); status != http.StatusBadRequest || !strings.Contains(body, "more than the 10") {
		t.Errorf("a batch past the burst: %d, %.300s", status, body)
	}
}
