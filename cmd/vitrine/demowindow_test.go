package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// localhostClient reaches {anything}.localhost on this machine, as curl
// and browsers do (RFC 6761).
var localhostClient = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
	DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, _ := net.SplitHostPort(addr)
		if host == "localhost" || strings.HasSuffix(host, ".localhost") {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}}

// make demo (vitrine serve --demo) prints each open window at the root of
// its host, {slug}.localhost, and under the path, the demo agent's profile
// it serves, and a curl line that searches a window as that agent: the
// line works as printed, on this machine alone. Without --demo, the same
// loopback profile is refused.
func TestServeDemoPrintsWindowsAndACurlThatWorks(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	cmd := exec.Command(binary(t), "serve", "--demo", "--db", db, "--addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	sc := bufio.NewScanner(stdout)
	var lines []string
	var curl []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if _, line, ok := strings.Cut(sc.Text(), "(no internet needed): "); ok {
			curl = regexp.MustCompile(`'[^']*'|\S+`).FindAllString(line, -1)
			break
		}
	}
	out := strings.Join(lines, "\n")
	window := regexp.MustCompile(`technova: (http://technova\.localhost:\d+)/ \(and under the path: (http://127\.0\.0\.1:\d+/shops/technova)/\)`).FindStringSubmatch(out)
	if window == nil || curl == nil {
		t.Fatalf("serve --demo printed no window at its host, or no curl line:\n%s", out)
	}
	// curl -s URL -H 'Content-Type: …' -H 'UCP-Agent: …' -d '…'
	req := struct {
		url, body string
		header    http.Header
	}{header: http.Header{}}
	for i := 1; i < len(curl); i++ {
		arg := strings.Trim(curl[i], "'")
		switch arg {
		case "-s":
		case "-H":
			i++
			k, v, _ := strings.Cut(strings.Trim(curl[i], "'"), ": ")
			req.header.Set(k, v)
		case "-d":
			i++
			req.body = strings.Trim(curl[i], "'")
		default:
			req.url = arg
		}
	}
	if !strings.HasPrefix(req.url, window[1]+"/ucp/catalog/search") || !strings.Contains(req.header.Get("UCP-Agent"), "/demo/agent/2026-08-25.json") {
		t.Fatalf("the curl line: %q", curl)
	}
	search := func(url string) (int, map[string]any) {
		r, _ := http.NewRequest("POST", url, strings.NewReader(req.body))
		r.Header = req.header.Clone()
		res, err := localhostClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		var m map[string]any
		json.Unmarshal(b, &m)
		return res.StatusCode, m
	}
	status, m := search(req.url)
	if ps, _ := m["products"].([]any); status != 200 || len(ps) == 0 || m["ucp"].(map[string]any)["version"] != "2026-08-25" {
		t.Errorf("the printed curl: %d %v", status, m)
	}
	// People open its pages at the root the demo printed: TechNova's
	// products, each card a page of the window's own.
	pages := regexp.MustCompile(`open (http://technova\.localhost:\d+/) in a browser`).FindStringSubmatch(out)
	if pages == nil {
		t.Fatalf("serve --demo printed no page to open:\n%s", out)
	}
	res, err := localhostClient.Get(pages[1])
	if err != nil {
		t.Fatal(err)
	}
	home, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(home), `href="`+pages[1]+`products/camiseta-technova-dev"`) {
		t.Errorf("the printed home page: %d %s", res.StatusCode, home)
	}
	// Under the path, the same.
	if status, m := search(window[2] + "/ucp/catalog/search"); status != 200 || len(m["products"].([]any)) == 0 {
		t.Errorf("the window under the path: %d %v", status, m)
	}
	// docs/shop.md's example of each operation, over MCP and REST, runs
	// as written (with the port served): every answer is UCP's, none an
	// error.
	t.Run("docs/shop.md's examples", func(t *testing.T) { runShopDocExamples(t, window[1]) })

	// Another server, not the demo, refuses the loopback profile.
	other, url := startServe(t, db)
	defer func() { other.Process.Kill(); other.Wait() }()
	if status, m := search(url + "/shops/technova/ucp/catalog/search"); status != 400 || m["code"] != "invalid_profile_url" {
		t.Errorf("a loopback profile without --demo: %d %v", status, m)
	}
}

// runShopDocExamples runs the block of curl lines of docs/shop.md that
// names the demo's agent, against the window at root (its port the one
// served), with the shell and curl (which resolves *.localhost itself).
func runShopDocExamples(t *testing.T, root string) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed: the examples are curl lines")
	}
	doc, err := os.ReadFile("../../docs/shop.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```sh\n(P='http://127.0.0.1:8080/demo/agent/[^`]*?)```").FindSubmatch(doc)
	if block == nil {
		t.Fatal("docs/shop.md has no block of examples that starts P='http://127.0.0.1:8080/demo/agent/…'")
	}
	port := root[strings.LastIndex(root, ":")+1:]
	script := strings.ReplaceAll(string(block[1]), ":8080", ":"+port)
	script = strings.ReplaceAll(script, "curl -s ", curl+" -s -w '\\n' ")
	out, err := exec.Command("sh", "-c", script).Output()
	if err != nil {
		t.Fatalf("the examples: %v\n%s", err, out)
	}
	var n int
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue // a REST answer ends with its own newline
		}
		var a struct {
			Error  json.RawMessage `json:"error"`
			Result *struct {
				IsError           bool `json:"isError"`
				StructuredContent struct {
					UCP struct{ Version, Status string }
				} `json:"structuredContent"`
			} `json:"result"`
			UCP struct{ Version, Status string }
		}
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("an example answered %q", line)
		}
		ucp := a.UCP
		if a.Result != nil {
			ucp = a.Result.StructuredContent.UCP
		}
		if a.Error != nil || (a.Result != nil && a.Result.IsError) || ucp.Version != "2026-08-25" || ucp.Status == "error" {
			t.Errorf("an example answered %s", line)
		}
		n++
	}
	if n != 6 {
		t.Errorf("%d examples ran; docs/shop.md has one of each of the three operations over MCP and REST", n)
	}
}
