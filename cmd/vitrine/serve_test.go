package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/ncruces/go-sqlite3/driver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// waitFor polls cond until it holds, failing after a deadline: it waits for
// something observable, never for a fixed time.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// served is `vitrine serve` running in the test's process, as the binary
// runs it (run is what main calls).
type served struct {
	url    string // the base URL, before /mcp
	stderr *testkit.SyncBuffer
	cancel context.CancelFunc
	exited chan int
}

// serveHere runs `vitrine serve --addr 127.0.0.1:0 --log-format json` with
// args, and returns once it listens; a serve that exits first fails t.
func serveHere(t *testing.T, args ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{stderr: &testkit.SyncBuffer{}, cancel: cancel, exited: make(chan int, 1)}
	go func() {
		s.exited <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-format", "json"}, args...),
			strings.NewReader(""), io.Discard, s.stderr)
	}()
	re := regexp.MustCompile(`"url":"(http://[^"]+)/mcp"`)
	waitFor(t, "the server to listen", func() bool {
		if m := re.FindStringSubmatch(s.stderr.String()); m != nil {
			s.url = m[1]
		}
		select {
		case code := <-s.exited:
			s.exited <- code
			cancel()
			t.Fatalf("serve exited with %d: %s", code, s.stderr.String())
		default:
		}
		return s.url != ""
	})
	return s
}

// signal does what SIGTERM does; stop does it and returns the exit code.
func (s *served) signal() { s.cancel() }

func (s *served) stop() int {
	s.cancel()
	return <-s.exited
}

// The server an operator runs: health, readiness, metrics, JSON logs, and a
// shutdown that lets the call in flight finish.
func TestServeOperability(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ops.db")
	var w struct {
		Tenants []struct{ ID, Slug string }
		Users   []struct{ Email, Token string }
	}
	json.Unmarshal([]byte(must(t, "demo", "--db", db, "--json")), &w)

	srv := serveHere(t, "--db", db, "--shutdown-timeout", "20s")
	defer srv.signal()
	url, stderr := srv.url, srv.stderr
	if code, body := get(t, url+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, body := get(t, url+"/readyz"); code != 200 {
		t.Errorf("/readyz: %d %q", code, body)
	}

	// Hold SQLite's write lock, so that the next write waits in flight.
	release := dbtest.LockSQLite(t, db)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: &http.Client{Transport: bearer(w.Users[0].Token)}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	result := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "create_product", Arguments: map[string]any{
			"tenant_id": w.Tenants[0].ID, "sku": "IN-FLIGHT", "name": "Finished after the signal", "price": "1.00"}})
		if err != nil {
			t.Error(err)
		}
		result <- res
	}()
	waitFor(t, "the call to be in flight", func() bool {
		_, metrics := get(t, url+"/metrics")
		return strings.Contains(metrics, "vitrine_tool_calls_in_flight 1")
	})

	srv.signal() // what SIGTERM does
	waitFor(t, "the server to stop accepting", func() bool {
		c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	release()
	res := <-result
	if res == nil || res.IsError {
		t.Fatalf("the call in flight: %+v", res)
	}
	if code := srv.stop(); code != 0 {
		t.Fatalf("serve exited %d:\n%s", code, stderr.String())
	}
	out := must(t, "product", "export", "--db", db, "--tenant", w.Tenants[0].Slug, "--format", "jsonl")
	if !strings.Contains(out, `"sku":"IN-FLIGHT"`) {
		t.Errorf("the product of the call in flight is not there")
	}

	// One JSON line per tool call, with what the operator needs, and never a token.
	logs := stderr.String()
	var call map[string]any
	sc := bufio.NewScanner(strings.NewReader(logs))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("not a JSON log line: %q", sc.Text())
		}
		if line["msg"] == "tool call" {
			call = line
		}
	}
	for _, key := range []string{"time", "level", "request_id", "tool", "tenant_id", "user_id", "duration", "outcome"} {
		if _, ok := call[key]; !ok {
			t.Errorf("the tool call's log line lacks %q: %v", key, call)
		}
	}
	for _, u := range w.Users {
		if strings.Contains(logs, u.Token) || strings.Contains(logs, u.Token[12:]) {
			t.Fatal("a token is in the log")
		}
	}
	for _, want := range []string{`"msg":"shutting down"`, `"msg":"stopped"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %s", want)
		}
	}
}

func TestMetricsOnTheirOwnAddress(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	ctx, stop := context.WithCancel(context.Background())
	stderr := &testkit.SyncBuffer{}
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--log-format", "text"},
			strings.NewReader(""), io.Discard, stderr)
	}()
	var main, metrics string
	waitFor(t, "both listeners", func() bool {
		if m := regexp.MustCompile(`url=(http://\S+)/metrics`).FindStringSubmatch(stderr.String()); m != nil {
			metrics = m[1]
		}
		if m := regexp.MustCompile(`url=(http://\S+)/mcp`).FindStringSubmatch(stderr.String()); m != nil {
			main = m[1]
		}
		return main != "" && metrics != ""
	})
	if code, body := get(t, metrics+"/metrics"); code != 200 || !strings.Contains(body, "vitrine_db_connections{state=\"max\"}") || !strings.Contains(body, "go_goroutines") {
		t.Errorf("metrics: %d %.300s", code, body)
	}
	if code, _ := get(t, main+"/metrics"); code != 404 {
		t.Errorf("the main address serves /metrics: %d", code)
	}
	stop()
	if code := <-exited; code != 0 {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
}

// Without --metrics-addr, /metrics is on the main address only when that
// is loopback and no --public-url says a proxy is in front (which would
// publish them); otherwise it is nowhere, and the server says so at start.
func TestMetricsNotPublicByDefault(t *testing.T) {
	for name, c := range map[string]struct {
		args   []string
		served bool
	}{
		"on loopback":                       {nil, true},
		"on loopback, behind a proxy":       {[]string{"--public-url", "https://mcp.example.com"}, false},
		"beyond loopback":                   {[]string{"--addr", "0.0.0.0:0", "--no-auth-server"}, false},
		"beyond loopback, with its address": {[]string{"--addr", "0.0.0.0:0", "--no-auth-server", "--metrics-addr", "127.0.0.1:0"}, false},
	} {
		srv := serveHere(t, append([]string{"--db", filepath.Join(t.TempDir(), "v.db")}, c.args...)...)
		base := strings.Replace(srv.url, "0.0.0.0", "127.0.0.1", 1)
		code, _ := get(t, base+"/metrics")
		warned := strings.Contains(srv.stderr.String(), `"level":"WARN","msg":"metrics are not served`)
		if c.served && code != 200 || !c.served && code != 404 {
			t.Errorf("%s: /metrics on the main address answers %d", name, code)
		}
		if want := !c.served && !slices.Contains(c.args, "--metrics-addr"); warned != want {
			t.Errorf("%s: warned %v at start, want %v:\n%s", name, warned, want, srv.stderr.String())
		}
		if code := srv.stop(); code != 0 {
			t.Errorf("%s: exit %d", name, code)
		}
	}
}

// Every flag has its VITRINE_* twin.
func TestEnvironmentTwins(t *testing.T) {
	t.Setenv("VITRINE_DB", filepath.Join(t.TempDir(), "env.db"))
	t.Setenv("VITRINE_JSON", "true")
	t.Setenv("VITRINE_EMAIL", "env@x.example")
	must(t, "migrate")
	out := must(t, "user", "create", "--name", "From the environment")
	if !strings.Contains(out, `"email":"env@x.example"`) {
		t.Errorf("user create from the environment: %s", out)
	}
	t.Setenv("VITRINE_LOG_LEVEL", "loud")
	_, errs, code := runCLI(t, "serve")
	if code != 2 || !strings.Contains(errs, "--log-level") {
		t.Errorf("a bad VITRINE_LOG_LEVEL: exit %d, %s", code, errs)
	}
}

func sqlOpen(path string) (*sql.DB, error) { return sql.Open("sqlite3", "file:"+path) }

// The demo's images are served by the server that runs the demo, and by
// no other: the same database served without --demo answers 404 there.
func TestDemoImagesOnlyWithDemo(t *testing.T) {
	files, err := filepath.Glob("../../demo/images/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no demo image: %v", err)
	}
	image := "/demo/images/" + filepath.Base(files[0])
	db := filepath.Join(t.TempDir(), "demo.db")
	withDemo := serveHere(t, "--db", db, "--demo")
	res, err := http.Get(withDemo.url + image)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "image/") {
		t.Errorf("serve --demo: GET %s: %d %s", image, res.StatusCode, res.Header.Get("Content-Type"))
	}
	if code := withDemo.stop(); code != 0 {
		t.Fatalf("serve --demo exited with %d: %s", code, withDemo.stderr.String())
	}
	plain := serveHere(t, "--db", db)
	defer plain.stop()
	if code, body := get(t, plain.url+image); code != 404 {
		t.Errorf("serve without --demo: GET %s: %d %.40q", image, code, body)
	}
}

// export_tenant's archive is stored in the database: an archive made
// through one `vitrine serve` downloads whole, by an HTTP GET of the url
// its answer gives, from another serving the same database, with the
// owner's token.
func TestExportDownloadFromAnotherInstance(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db string) {
		tenant, token := demoWorld(t, db)
		first, firstURL := startServe(t, db)
		defer first.Process.Kill()
		second, secondURL := startServe(t, db)
		defer second.Process.Kill()
		cs := connect(t, context.Background(), firstURL, token)
		defer cs.Close()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "export_tenant", Arguments: map[string]any{"tenant_id": tenant}})
		if err != nil || res.IsError {
			t.Fatalf("export_tenant: %v %+v", err, res)
		}
		var out struct {
			Status string `json:"status"`
			URL    string `json:"url"`
			Bytes  int64  `json:"bytes"`
		}
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil || out.Status != "done" || !strings.HasPrefix(out.URL, firstURL+"/tenants/") {
			t.Fatalf("export_tenant's answer: %+v %v", out, err)
		}
		req, _ := http.NewRequest("GET", secondURL+strings.TrimPrefix(out.URL, firstURL), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		got, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer got.Body.Close()
		body, err := io.ReadAll(got.Body)
		if err != nil || got.StatusCode != 200 || got.Header.Get("Content-Type") != "application/zip" || int64(len(body)) != out.Bytes || string(body[:2]) != "PK" {
			t.Errorf("GET from the other instance: %d %v, %d bytes of %d (%v)", got.StatusCode, got.Header, len(body), out.Bytes, err)
		}
	})
}
