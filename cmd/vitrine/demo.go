package main

import (
	"encoding/json"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/demo"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/shopwindow"
)

// DemoCmd fills the database with demo data.
type DemoCmd struct {
	URL  string `default:"http://127.0.0.1:8080/mcp" help:"Endpoint to write into the HTTP client configurations."`
	JSON bool   `name:"json" help:"Print the demo world (companies, users, tokens, passwords) as one JSON object."`
}

// Run seeds the demo world and prints it.
func (c *DemoCmd) Run(e *env) error {
	db, svc, err := e.openOrCreate(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	w, err := demo.SeedAt(e.ctx, svc, baseURL(c.URL))
	if err != nil {
		return err
	}
	if c.JSON {
		return e.print(true, w, "")
	}
	printDemo(e, w, c.URL, "")
	return nil
}

// baseURL is the server's URL of its MCP endpoint's: where the demo's
// images are.
func baseURL(mcpURL string) string {
	u, err := neturl.Parse(mcpURL)
	if err != nil || u.Host == "" {
		return demo.DefaultBaseURL
	}
	return strings.TrimSuffix(strings.TrimSuffix(u.Scheme+"://"+u.Host+u.Path, "/"), httpserver.MCPPath)
}

// defaultDemoURL is where make demo serves, and what vitrine demo writes
// into the client configurations unless told otherwise.
const defaultDemoURL = "http://127.0.0.1:8080/mcp"

// printDemo prints each demo user's token and password, with
// ready-to-paste MCP client configurations for stdio and HTTP, and for
// Claude Desktop over HTTP, which it reaches only through the mcp-remote
// bridge (as README.md shows). With account (the page of Vitrine's own
// authorization server), the server connects clients by URL alone too:
// the configuration that needs no token, for Claude Desktop through the
// same bridge. The last line is the command that prints new tokens and
// passwords, and retires these.
func printDemo(e *env, w *demo.World, url, account string) {
	out := e.stdout
	fmt.Fprintln(out, "Vitrine demo data")
	fmt.Fprintln(out)
	for _, t := range w.Tenants {
		fmt.Fprintf(out, "  company %-30s slug %-14s id %s\n", t.Name, t.Slug, t.ID)
	}
	exe, dbPath, note := clientPaths(e.flags.DB)
	for _, u := range w.Users {
		fmt.Fprintf(out, "\n%s <%s>: %s\n", u.Name, u.Email, u.Roles)
		fmt.Fprintf(out, "  token: %s\n", u.Token)
		fmt.Fprintf(out, "  password: %s\n", u.Password)
		fmt.Fprintf(out, "  stdio: %s\n", configJSON(map[string]any{"command": exe, "args": []string{"stdio", "--db", dbPath},
			"env": map[string]string{"VITRINE_TOKEN": u.Token}}))
		fmt.Fprintf(out, "  http:  %s\n", configJSON(map[string]any{"type": "http", "url": url,
			"headers": map[string]string{"Authorization": "Bearer " + u.Token}}))
		fmt.Fprintf(out, "  http for Claude Desktop, through mcp-remote: %s\n", configJSON(map[string]any{"command": "npx",
			"args": []string{"-y", "mcp-remote", url, "--header", "Authorization:${VITRINE_AUTH}"},
			"env":  map[string]string{"VITRINE_AUTH": "Bearer " + u.Token}}))
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, `Each configuration goes under "mcpServers" (Claude Desktop, Cursor) or "servers" (VS Code) in your client's MCP settings.`)
	fmt.Fprintln(out, `Claude Desktop reaches an HTTP server only through the mcp-remote bridge: give it the "http for Claude Desktop" line (it needs Node.js for npx).`)
	if account != "" {
		fmt.Fprintf(out, "\nConnect any MCP client by URL alone: %s\n", url)
		fmt.Fprintln(out, "It opens a browser where you sign in with an email and password above, and approve.")
		fmt.Fprintf(out, "Claude Desktop by URL alone, through mcp-remote: %s\n", configJSON(map[string]any{"command": "npx",
			"args": []string{"-y", "mcp-remote", url}}))
		fmt.Fprintln(out, "Hosted connectors (claude.ai, ChatGPT) reach a server from the internet: they need a public https URL "+
			"(--public-url https://…, behind a TLS proxy), not this machine's address.")
		fmt.Fprintf(out, "Your connected apps and tokens: %s\n", account)
	}
	if note != "" {
		fmt.Fprintln(out, note)
	}
	fmt.Fprintf(out, "The tokens and passwords are shown once; for new ones (these then stop working), run: %s\n", rerunCommand(e, url))
}

// rerunCommand is the command line that runs the demo again on the same
// database, as the person can type it where they are: the binary as they
// ran it (bin/vitrine), the database and the URL when not the defaults.
func rerunCommand(e *env, url string) string {
	exe := os.Args[0]
	switch {
	case strings.Contains(exe, "go-build"):
		return "make build && bin/vitrine demo" // go run: the binary is gone when it ends
	case !strings.ContainsRune(exe, filepath.Separator):
		exe = "vitrine" // found in PATH
	case filepath.IsAbs(exe):
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, exe); err == nil && !strings.HasPrefix(rel, "..") {
				exe = rel
			}
		}
	}
	cmd := []string{shellQuote(exe), "demo"}
	if e.flags.DB != "vitrine.db" {
		cmd = append(cmd, "--db", shellQuote(e.flags.DB))
	}
	if url != defaultDemoURL {
		cmd = append(cmd, "--url", shellQuote(url))
	}
	return strings.Join(cmd, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@=,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// configJSON is one client entry named "vitrine".
func configJSON(entry map[string]any) string {
	b, _ := json.Marshal(map[string]any{"vitrine": entry})
	return string(b)
}

// clientPaths returns the absolute paths a client configuration needs.
func clientPaths(db string) (exe, dbPath, note string) {
	exe, err := os.Executable()
	if err != nil {
		exe = "vitrine"
	}
	if strings.Contains(exe, "go-build") {
		note = "This binary was built by \"go run\" in a temporary folder; build one that stays (make build) before pasting the stdio configuration."
	}
	dbPath = db
	if !strings.Contains(db, "://") {
		if abs, err := filepath.Abs(strings.TrimPrefix(db, "sqlite:")); err == nil {
			dbPath = abs
		}
	}
	return exe, dbPath, note
}

// printWindows prints the demo's open shop windows: each at the root of
// its host ({slug}.localhost, or the domain the operator named), where
// agents discover a business, and under the path; the demo's shopping
// agent's profile; and a curl line that searches a window as that agent,
// with no internet.
func printWindows(e *env, store vitrine.ShopStore, w *demo.World, base, shopDomain string) {
	u, err := neturl.Parse(base)
	if err != nil || shopDomain == "" {
		return
	}
	var open []string
	for _, t := range w.Tenants {
		if _, _, err := store.OpenShopBySlug(e.ctx, t.Slug); err == nil {
			open = append(open, t.Slug)
		}
	}
	if len(open) == 0 {
		return
	}
	out := e.stdout
	root := func(slug string) string {
		host := slug + "." + shopDomain
		if p := u.Port(); p != "" {
			host += ":" + p
		}
		return u.Scheme + "://" + host
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "Shop windows, anonymous and read-only (docs/shop.md). Agents discover a business at the root of its host:")
	for _, slug := range open {
		fmt.Fprintf(out, "  %s: %s/ (and under the path: %s/shops/%s/)\n", slug, root(slug), strings.TrimSuffix(base, "/"), slug)
	}
	fmt.Fprintf(out, "People and search engines find its pages there (a home page, a page per product, /sitemap.xml): open %s/ in a browser\n", root(open[0]))
	profile := demo.AgentProfileURL(base, shopwindow.Version)
	fmt.Fprintf(out, "The demo's shopping agent, whose UCP profile this server serves (at each release: %s): %s\n",
		strings.Join(shopwindow.Versions, ", "), profile)
	fmt.Fprintf(out, "Search %s's window as that agent (no internet needed): curl -s %s/ucp/catalog/search -H 'Content-Type: application/json' -H %s -d '{\"query\":\"camiseta\"}'\n",
		open[0], root(open[0]), shellQuote(`UCP-Agent: profile="`+profile+`"`))
}
