package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/vitrine/vitrine/internal/dbtest"
)

// The client configurations in README.md parse, and point at the real
// commands: their arguments are a command line vitrine accepts, their URL
// is where vitrine serve listens by default, their token goes where
// vitrine reads it.
func TestReadmeClientConfigs(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)<!-- config: ([a-z-]+) -->\n```(json|sh)\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	seen := map[string]bool{}
	for _, b := range blocks {
		name, lang, body := b[1], b[2], b[3]
		seen[name] = true
		if lang == "sh" {
			// npx @modelcontextprotocol/inspector -e VITRINE_TOKEN=... BINARY ARGS...
			fields := strings.Fields(body)
			if len(fields) < 5 || fields[1] != "@modelcontextprotocol/inspector" || !strings.HasPrefix(fields[3], "VITRINE_TOKEN=vtr_") {
				t.Errorf("%s: %q", name, body)
				continue
			}
			checkCommand(t, name, fields[4], fields[5:])
			continue
		}
		var cfg struct {
			MCPServers map[string]server `json:"mcpServers"`
			Servers    map[string]server `json:"servers"`
			Inputs     []struct{ ID string }
		}
		if err := json.Unmarshal([]byte(body), &cfg); err != nil {
			t.Errorf("%s does not parse: %v", name, err)
			continue
		}
		srv, ok := cfg.MCPServers["vitrine"]
		if !ok {
			srv, ok = cfg.Servers["vitrine"]
		}
		if !ok {
			t.Errorf("%s: no server named vitrine", name)
			continue
		}
		switch {
		case srv.URL != "":
			if srv.URL != "http://127.0.0.1:8080/mcp" || !strings.HasPrefix(srv.Headers["Authorization"], "Bearer ") {
				t.Errorf("%s: url %q, headers %v", name, srv.URL, srv.Headers)
			}
		case srv.Command == "npx" && name == "claude-desktop-url":
			// The mcp-remote bridge by URL alone: it signs in with OAuth.
			if strings.Join(srv.Args, " ") != "-y mcp-remote http://127.0.0.1:8080/mcp" || len(srv.Env) != 0 {
				t.Errorf("%s: %+v", name, srv)
			}
		case srv.Command == "npx":
			// The mcp-remote bridge: the URL and the bearer header it adds.
			if !strings.Contains(strings.Join(srv.Args, " "), "mcp-remote http://127.0.0.1:8080/mcp --header Authorization:${VITRINE_AUTH}") ||
				!strings.HasPrefix(srv.Env["VITRINE_AUTH"], "Bearer vtr_") {
				t.Errorf("%s: %+v", name, srv)
			}
		default:
			if tok := srv.Env["VITRINE_TOKEN"]; tok != "vtr_..." && tok != "${input:vitrine-token}" {
				t.Errorf("%s: token %q", name, tok)
			}
			checkCommand(t, name, srv.Command, srv.Args)
		}
	}
	for _, want := range []string{"claude-desktop-stdio", "claude-desktop-url", "claude-desktop-http", "vscode-stdio", "vscode-http", "inspector-stdio"} {
		if !seen[want] {
			t.Errorf("README.md lacks the %s configuration", want)
		}
	}
}

// vitrine demo (and serve --demo) prints, for Claude Desktop over HTTP,
// the mcp-remote configuration of the README, with each user's token: the
// plain HTTP entry is one Claude Desktop cannot use.
func TestDemoPrintsReadmeClaudeDesktopConfig(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)<!-- config: claude-desktop-http -->\n```json\n(.*?)```").FindSubmatch(readme)
	var want struct {
		MCPServers map[string]server `json:"mcpServers"`
	}
	if block == nil || json.Unmarshal(block[1], &want) != nil {
		t.Fatal("README.md lacks a claude-desktop-http configuration that parses")
	}
	text := must(t, "demo", "--db", dbtest.SQLiteURL(t))
	const label = "  http for Claude Desktop, through mcp-remote: "
	n := 0
	for _, line := range strings.Split(text, "\n") {
		entry, ok := strings.CutPrefix(line, label)
		if !ok {
			continue
		}
		n++
		var got map[string]server
		if err := json.Unmarshal([]byte(entry), &got); err != nil {
			t.Fatalf("%q does not parse: %v", entry, err)
		}
		g, w := got["vitrine"], want.MCPServers["vitrine"]
		if !strings.HasPrefix(g.Env["VITRINE_AUTH"], "Bearer vtr_") {
			t.Errorf("VITRINE_AUTH %q: want the user's token", g.Env["VITRINE_AUTH"])
		}
		g.Env, w.Env = nil, nil
		if gj, wj := fmt.Sprint(g), fmt.Sprint(w); gj != wj {
			t.Errorf("demo prints %s\nREADME gives %s", gj, wj)
		}
	}
	if n != 6 {
		t.Errorf("%d Claude Desktop configurations printed, want one per demo user:\n%s", n, text)
	}
}

type server struct {
	Type    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
}

// checkCommand proves that command is the vitrine binary and args a
// command line it accepts.
func checkCommand(t *testing.T, name, command string, args []string) {
	t.Helper()
	if filepath.Base(command) != "vitrine" {
		t.Errorf("%s: command %q is not the vitrine binary", name, command)
		return
	}
	var cli CLI
	parser, err := kong.New(&cli, limitVars(), kong.Exit(func(int) { t.Errorf("%s: %v exits", name, args) }))
	if err != nil {
		t.Fatal(err)
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		t.Errorf("%s: vitrine %v: %v", name, args, err)
	} else if kctx.Command() != "stdio" {
		t.Errorf("%s: vitrine %v runs %q, not stdio", name, args, kctx.Command())
	}
}

// vitrine serve --demo, what make demo runs, prints the URL-only
// configuration of the README for Claude Desktop, with the URL it serves.
func TestServeDemoPrintsReadmeURLConfig(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)<!-- config: claude-desktop-url -->\n```json\n(.*?)```").FindSubmatch(readme)
	var want struct {
		MCPServers map[string]server `json:"mcpServers"`
	}
	if block == nil || json.Unmarshal(block[1], &want) != nil {
		t.Fatal("README.md lacks a claude-desktop-url configuration that parses")
	}
	cmd := exec.Command(binary(t), "serve", "--demo", "--db", filepath.Join(t.TempDir(), "demo.db"), "--addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	const label = "Claude Desktop by URL alone, through mcp-remote: "
	sc := bufio.NewScanner(stdout)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		entry, ok := strings.CutPrefix(sc.Text(), label)
		if !ok {
			continue
		}
		var got map[string]server
		if err := json.Unmarshal([]byte(entry), &got); err != nil {
			t.Fatalf("%q does not parse: %v", entry, err)
		}
		g, w := got["vitrine"], want.MCPServers["vitrine"]
		url := g.Args[len(g.Args)-1]
		if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
			t.Errorf("the configuration's URL %q is not the one served", url)
		}
		w.Args = append(slices.Clone(w.Args[:len(w.Args)-1]), url)
		if gj, wj := fmt.Sprint(g), fmt.Sprint(w); gj != wj {
			t.Errorf("serve --demo prints %s\nREADME gives %s", gj, wj)
		}
		return
	}
	t.Fatalf("serve --demo printed no %q line:\n%s", label, strings.Join(lines, "\n"))
}

// README.md's layout table (under "## Layout") has a row for every Go
// package of the module, by its directory (`store/internal/sqldb/`; the
// root as `*.go` (root)), and every row it has names a directory that
// exists: a package added, moved or removed shows here until the table
// says so.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(readme), "\n## Layout\n")
	if !ok {
		t.Fatal(`README.md has no "## Layout" section`)
	}
	if i := strings.Index(layout, "\n## "); i >= 0 {
		layout = layout[:i]
	}
	rows := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)`").FindAllStringSubmatch(layout, -1) {
		path := strings.TrimSuffix(m[1], "/")
		if path == "*.go" {
			path = "."
		}
		rows[path] = true
	}
	if len(rows) == 0 {
		t.Fatal("README.md's layout section has no table of paths")
	}

	root := filepath.Join("..", "..")
	packages := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			// What the go command leaves out of ./..., and npm's folders.
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			packages[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range slices.Sorted(maps.Keys(packages)) {
		if !rows[p] {
			t.Errorf("README.md's layout table has no row for the package %s: add one under \"## Layout\",\n\t| `%s/` | what it holds |\nand its row in docs/architecture.md's tables", p, p)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(rows)) {
		if packages[p] {
			continue
		}
		if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil || !fi.IsDir() {
			t.Errorf("README.md's layout table has a row for %s, which is not a directory of the module: remove it, or name where it moved", p)
		}
	}
}
