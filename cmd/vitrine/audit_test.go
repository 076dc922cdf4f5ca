package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
)

// Issue 45, finding 10: every write of the operator's command line is
// audited, in its company (users and tokens, which are no company's,
// outside any), the operator its actor as such, never an empty user; and
// the listings name each user by email beside the id.
func TestOperatorWritesAreAudited(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		d := "--db=" + url
		must(t, "migrate", d)
		ana := mustJSON(t, "user", "create", d, "--email", "ana@acme.example", "--name", "Ana")["id"].(string)
		bia := mustJSON(t, "user", "create", d, "--email", "bia@acme.example", "--name", "Bia")["id"].(string)
		acme := mustJSON(t, "tenant", "create", d, "--name", "Acme", "--owner", "ana@acme.example")["id"].(string)
		must(t, "tenant", "update", d, "acme", "--name", "Acme Comércio")
		must(t, "member", "add", d, "--tenant", "acme", "--email", "bia@acme.example", "--role", "viewer")
		must(t, "member", "update", d, "--tenant", "acme", "--email", "bia@acme.example", "--role", "member")
		must(t, "member", "remove", d, "--tenant", "acme", "--email", "bia@acme.example")
		must(t, "category", "add", d, "--tenant", "acme", "--name", "Shoes")
		must(t, "attribute", "save", d, "--tenant", "acme", "material", "--type", "text")
		csv := filepath.Join(t.TempDir(), "products.csv")
		if err := os.WriteFile(csv, []byte("Handle,Title,Variant Price\nsolo,Solo,1.00\nduo,Duo,2.00\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		must(t, "product", "import", d, "--tenant", "acme", csv)
		tok := mustJSON(t, "token", "create", d, "--email", "bia@acme.example", "--name", "laptop")["id"].(string)
		must(t, "token", "revoke", d, "--id", tok)
		must(t, "user", "update", d, "--email", "bia@acme.example", "--name", "Bia Lima")
		must(t, "user", "invite", d, "--email", "bia@acme.example")
		must(t, "audit", "prune", d, "--before", "2020-01-01")

		type want struct {
			user, target string
			n            int // events of the tool; 0 is 1
		}
		check := func(where string, events []map[string]any, wants map[string]want) {
			t.Helper()
			var tools []string
			for _, ev := range events {
				tool, _ := ev["tool"].(string)
				tools = append(tools, tool)
				w, ok := wants[tool]
				if !ok {
					continue
				}
				email := map[string]string{"": "", ana: "ana@acme.example", bia: "bia@acme.example"}[w.user]
				if ev["actor"] != "operator" || ev["user_id"] != w.user || ev["user_email"] != email || ev["token_id"] != "" ||
					ev["outcome"] != "ok" || (w.target != "" && ev["target_id"] != w.target) {
					t.Errorf("%s: the event of %s: %v", where, tool, ev)
				}
			}
			for tool, w := range wants {
				if n := strings.Count(strings.Join(tools, "\n")+"\n", tool+"\n"); n != max(w.n, 1) {
					t.Errorf("%s: %d events of %s, want %d (all: %v)", where, n, tool, max(w.n, 1), tools)
				}
			}
		}
		inAcme := jsonLines(t, must(t, "audit", "list", d, "--tenant", "acme", "--json"))
		check("in the company", inAcme, map[string]want{
			"vitrine tenant create":  {target: acme},
			"vitrine tenant update":  {target: acme},
			"vitrine member add":     {target: bia},
			"vitrine member update":  {target: bia},
			"vitrine member remove":  {target: bia},
			"vitrine category add":   {user: ana}, // as its first owner: her permissions applied
			"vitrine attribute save": {user: ana},
			"vitrine product import": {user: ana},
		})
		check("outside any company", jsonLines(t, must(t, "audit", "list", d, "--outside", "--json")), map[string]want{
			"vitrine user create":  {n: 2},
			"vitrine token create": {target: tok},
			"vitrine token revoke": {target: tok},
			"vitrine user update":  {target: bia},
			"vitrine user invite":  {target: bia},
			"vitrine audit prune":  {},
		})
		// --user filters by email, and the table names the user by email
		// beside the id.
		byAna := jsonLines(t, must(t, "audit", "list", d, "--tenant", "acme", "--user", "ana@acme.example", "--json"))
		var tools []string
		for _, ev := range byAna {
			tools = append(tools, ev["tool"].(string))
		}
		slices.Sort(tools)
		if !slices.Equal(tools, []string{"vitrine attribute save", "vitrine category add", "vitrine product import"}) {
			t.Errorf("audit list --user ana: %v", tools)
		}
		table := must(t, "audit", "list", d, "--tenant", "acme")
		if !strings.HasPrefix(table, "TIME") || !strings.Contains(table, "EMAIL") {
			t.Errorf("audit list's header: %q", strings.SplitN(table, "\n", 2)[0])
		}
		for _, line := range strings.Split(table, "\n") {
			if strings.Contains(line, "vitrine product import") && !(strings.Contains(line, "operator") && strings.Contains(line, ana) && strings.Contains(line, "ana@acme.example")) {
				t.Errorf("audit list's row of the import: %q", line)
			}
		}
	})
}
