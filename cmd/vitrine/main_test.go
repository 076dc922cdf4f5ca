package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/internal/dbtest"
)

var ctx = context.Background()

// runCLI runs the command line in process and returns what it printed.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(ctx, args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// must runs a command that must succeed.
func must(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("vitrine %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out
}

// mustJSON runs a --json command and decodes its one object.
func mustJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out := must(t, append(args, "--json")...)
	var v map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&v); err != nil || dec.More() {
		t.Fatalf("vitrine %s --json printed %q", strings.Join(args, " "), out)
	}
	return v
}

// fails runs a command that must fail with a message containing want.
func fails(t *testing.T, want string, args ...string) {
	t.Helper()
	out, errs, code := runCLI(t, args...)
	if code == 0 || !strings.Contains(errs, want) || out != "" {
		t.Errorf("vitrine %s: exit %d, stdout %q, stderr %q; want failure mentioning %q", strings.Join(args, " "), code, out, errs, want)
	}
}

func TestOperatorCommands(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) { operatorCommands(t, "--db="+url) })
}

func operatorCommands(t *testing.T, d string) {
	must(t, "migrate", d)
	u := mustJSON(t, "user", "create", d, "--email", "Ana@Acme.example", "--name", "Ana Souza")
	if id, _ := u["id"].(string); len(id) != 36 || u["email"] != "Ana@Acme.example" || u["name"] != "Ana Souza" {
		t.Fatalf("user create: %v", u)
	}
	mustJSON(t, "user", "create", d, "--email", "bia@acme.example", "--name", "Bia")
	fails(t, `A user with email "ana@acme.example" already exists`, "user", "create", d, "--email", "ana@acme.example", "--name", "Ana")
	fails(t, "email is not a valid email address", "user", "create", d, "--email", "not-an-email", "--name", "X")
	fails(t, "name must not be empty", "user", "create", d, "--email", "x@acme.example", "--name", " ")
	fails(t, "missing flags: --email=STRING", "user", "create", d, "--name", "X")

	tn := mustJSON(t, "tenant", "create", d, "--name", "Acme Comércio", "--owner", "ana@acme.example")
	if tn["slug"] != "acme-comercio" || len(tn["id"].(string)) != 36 {
		t.Fatalf("tenant create: %v", tn)
	}
	// The derived slug gets a random suffix when taken (a count would tell
	// how many such companies exist); a chosen one is a conflict.
	again := mustJSON(t, "tenant", "create", d, "--name", "Acme Comércio", "--owner", "ana@acme.example")
	if !regexp.MustCompile(`^acme-comercio-[a-z0-9]{6}$`).MatchString(again["slug"].(string)) {
		t.Errorf("second tenant slug: %v", again["slug"])
	}
	fails(t, `A company with slug "acme-comercio" already exists`, "tenant", "create", d, "--name", "X", "--slug", "acme-comercio", "--owner", "ana@acme.example")
	fails(t, `no user has the email "nobody@acme.example"`, "tenant", "create", d, "--name", "X", "--owner", "nobody@acme.example")
	fails(t, "slug must be 1 to 63 lowercase letters", "tenant", "create", d, "--name", "X", "--slug", "Bad Slug", "--owner", "ana@acme.example")

	m := mustJSON(t, "member", "add", d, "--tenant", "acme-comercio", "--email", "bia@acme.example", "--role", "viewer", "--status", "inactive")
	if m["status"] != "inactive" || m["role"] != "viewer" || m["tenant_id"] != tn["id"] || m["user_id"] == u["id"] || len(m["id"].(string)) != 36 {
		t.Fatalf("member add: %v", m)
	}
	fails(t, "This user is already a member", "member", "add", d, "--tenant", tn["id"].(string), "--email", "bia@acme.example", "--role", "admin")
	fails(t, `no role "boss" in acme-comercio; its roles: owner, admin, member, viewer`, "member", "add", d, "--tenant", "acme-comercio", "--email", "ana@acme.example", "--role", "boss")
	fails(t, `no company has the id or slug "nope"`, "member", "add", d, "--tenant", "nope", "--email", "bia@acme.example", "--role", "viewer")
	fails(t, "--status must be one of \"active\",\"inactive\"", "member", "add", d, "--tenant", "acme-comercio", "--email", "bia@acme.example", "--role", "viewer", "--status", "gone")

	tok := mustJSON(t, "token", "create", d, "--email", "ana@acme.example", "--name", "laptop", "--read-only", "--expires", "720h")
	secret, _ := tok["token"].(string)
	if !strings.HasPrefix(secret, "vtr_") || tok["read_only"] != true || tok["expires_at"] == nil || !strings.HasPrefix(secret, tok["prefix"].(string)) {
		t.Fatalf("token create: %v", tok)
	}
	text := must(t, "token", "create", d, "--email", "ana@acme.example", "--name", "ci")
	if !strings.HasPrefix(text, "vtr_") || !strings.Contains(text, "it is not shown again") {
		t.Errorf("token create prints %q", text)
	}
	fails(t, "--expires must be a positive lifetime", "token", "create", d, "--email", "ana@acme.example", "--name", "x", "--expires=-1h")
	fails(t, "--expires must be a lifetime such as 90d", "token", "create", d, "--email", "ana@acme.example", "--name", "x", "--expires", "soon")
	fails(t, "the expiry must be in the future", "token", "create", d, "--email", "ana@acme.example", "--name", "x", "--expires", "2020-01-01")
	if tok := mustJSON(t, "token", "create", d, "--email", "ana@acme.example", "--name", "90 days", "--expires", "90d"); tok["expires_at"] == nil {
		t.Errorf("90d: %v", tok)
	}
	fails(t, `no user has the email "ghost@acme.example"`, "token", "create", d, "--email", "ghost@acme.example", "--name", "x")

	// Members change and leave; the last owner stays.
	if m := mustJSON(t, "member", "update", d, "--tenant", "acme-comercio", "--email", "bia@acme.example", "--status", "active", "--role", "admin"); m["status"] != "active" || m["role"] != "admin" {
		t.Errorf("member update: %v", m)
	}
	fails(t, "always keeps at least one active owner", "member", "update", d, "--tenant", "acme-comercio", "--email", "ana@acme.example", "--role", "viewer")
	fails(t, "always keeps at least one active owner", "member", "remove", d, "--tenant", "acme-comercio", "--email", "ana@acme.example")
	fails(t, "give --role, --status or both", "member", "update", d, "--tenant", "acme-comercio", "--email", "bia@acme.example")
	if out := must(t, "member", "remove", d, "--tenant", "acme-comercio", "--email", "bia@acme.example"); !strings.Contains(out, "Removed bia@acme.example") {
		t.Errorf("member remove: %q", out)
	}
	fails(t, "Member not found", "member", "remove", d, "--tenant", "acme-comercio", "--email", "bia@acme.example")

	// Lists, as tables and as JSON Lines.
	if out := must(t, "tenant", "list", d); !strings.Contains(out, again["slug"].(string)) || !strings.HasPrefix(out, "ID") {
		t.Errorf("tenant list: %q", out)
	}
	if lines := jsonLines(t, must(t, "user", "list", d, "--json")); len(lines) != 2 || lines[0]["email"] != "Ana@Acme.example" {
		t.Errorf("user list --json: %v", lines)
	}
	tokens := jsonLines(t, must(t, "token", "list", d, "--email", "ana@acme.example", "--json"))
	if len(tokens) != 3 || tokens[2]["name"] != "laptop" || tokens[0]["token"] != nil {
		t.Errorf("token list: %v", tokens)
	}
	revoked := mustJSON(t, "token", "revoke", d, "--id", tok["id"].(string))
	if revoked["revoked_at"] == nil {
		t.Errorf("token revoke: %v", revoked)
	}
	mustJSON(t, "token", "revoke", d, "--id", tok["id"].(string)) // again: still revoked, no error
	fails(t, "Token not found", "token", "revoke", d, "--id", "01a20000-0000-7000-8000-000000000000")
	if out := must(t, "audit", "list", d, "--tenant", "acme-comercio"); !strings.HasPrefix(out, "TIME") {
		t.Errorf("audit list: %q", out)
	}
	fails(t, "--tenant", "audit", "list", d)
}

func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("not JSON Lines: %q", out)
		}
		lines = append(lines, v)
	}
	return lines
}

func TestDatabaseSelection(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	// Without --db or VITRINE_DB, the database is vitrine.db in the working folder.
	t.Setenv("VITRINE_DB", "")
	os.Unsetenv("VITRINE_DB")
	// A command that reads a database refuses one that is not there (a
	// typo would read as an empty one); migrate makes it.
	fails(t, "no database at vitrine.db; vitrine migrate creates one", "user", "create", "--email", "a@x.example", "--name", "A")
	must(t, "migrate")
	mustJSON(t, "user", "create", "--email", "a@x.example", "--name", "A")
	if _, err := os.Stat(filepath.Join(dir, "vitrine.db")); err != nil {
		t.Fatalf("default database: %v", err)
	}
	t.Setenv("VITRINE_DB", "sqlite:"+filepath.Join(dir, "env.db"))
	must(t, "migrate")
	mustJSON(t, "user", "create", "--email", "a@x.example", "--name", "A") // a new database: no conflict
	if _, err := os.Stat(filepath.Join(dir, "env.db")); err != nil {
		t.Fatalf("VITRINE_DB: %v", err)
	}
	// --db wins over VITRINE_DB.
	must(t, "migrate", "--db", filepath.Join(dir, "flag.db"))
	mustJSON(t, "user", "create", "--db", filepath.Join(dir, "flag.db"), "--email", "a@x.example", "--name", "A")
	fails(t, "folder of", "migrate", "--db", filepath.Join(dir, "missing", "x.db"))
	fails(t, "no database at vitrine.bd; vitrine migrate creates one", "tenant", "list", "--db", "vitrine.bd")
	if _, err := os.Stat(filepath.Join(dir, "vitrine.bd")); err == nil {
		t.Errorf("a typo made a database")
	}
	fails(t, "unknown database URL scheme mysql://...; use a file path or postgres://", "tenant", "list", "--db", "mysql://localhost/x")
	// The demo makes its database.
	must(t, "demo", "--db", filepath.Join(dir, "demo.db"))
}

func TestMigrateAndDemo(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) { migrateAndDemo(t, "--db="+url) })
}

// vitrine migrate says how the connections meet row-level security: as the
// owner of the tables, for a plain database owner; through the database's
// own role, for a superuser.
func TestMigrateSaysRowSecurityMode(t *testing.T) {
	owner := dbtest.PostgresOwnerURL(t)
	if out := must(t, "migrate", "--db="+owner); !strings.Contains(out, "Row-level security: connections act as vitrine_owner_") {
		t.Errorf("migrate as the owner: %q", out)
	}
	if out := must(t, "migrate", "--db="+dbtest.PostgresURL(t)); !strings.Contains(out, "bypasses row-level security, so connections switch to role vitrine_app_vitrine_test_") {
		t.Errorf("migrate as a superuser: %q", out)
	}
}

func migrateAndDemo(t *testing.T, d string) {
	if out := must(t, "migrate", d); !strings.Contains(out, "applied 00001_init.sql") {
		t.Errorf("first migrate: %q", out)
	}
	if out := must(t, "migrate", d); !strings.Contains(out, "up to date") || strings.Contains(out, "applied") {
		t.Errorf("second migrate: %q", out)
	}
	var w struct {
		Tenants []struct{ ID, Slug string }
		Users   []struct{ Email, Token, Roles string }
	}
	out := must(t, "demo", d, "--json")
	if err := json.Unmarshal([]byte(out), &w); err != nil || len(w.Tenants) != 2 || len(w.Users) != 6 {
		t.Fatalf("demo --json: %s", out)
	}
	// Again: the same world, new tokens.
	var again struct{ Users []struct{ Token string } }
	json.Unmarshal([]byte(must(t, "demo", d, "--json")), &again)
	if len(again.Users) != 6 || again.Users[0].Token == w.Users[0].Token {
		t.Errorf("second demo run: %+v", again)
	}
	text := must(t, "demo", d)
	for _, want := range []string{"Carla Mendes <carla@technova.example>: member of technova, viewer of mercado-verde", "(inactive)", `"VITRINE_TOKEN":"vtr_`, `"Authorization":"Bearer vtr_`, `"url":"http://127.0.0.1:8080/mcp"`} {
		if !strings.Contains(text, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if v := must(t, "version"); !strings.HasPrefix(v, "vitrine ") || !strings.Contains(v, "go1.") {
		t.Errorf("version: %q", v)
	}
	if _, _, code := runCLI(t, "frobnicate"); code != 2 {
		t.Errorf("unknown command exits %d", code)
	}
	if out, _, code := runCLI(t, "--help"); code != 0 || !strings.Contains(out, "token") {
		t.Errorf("--help: %d %q", code, out)
	}
}

// The stdio transport, through the real binary and the SDK's client.
func TestStdio(t *testing.T) {
	bin := binary(t)
	db := filepath.Join(t.TempDir(), "stdio.db")
	var w struct {
		Tenants []struct{ ID, Slug string }
		Users   []struct{ Email, Token string }
	}
	json.Unmarshal([]byte(must(t, "demo", "--db", db, "--json")), &w)

	cmd := exec.Command(bin, "stdio", "--db", db)
	cmd.Env = append(os.Environ(), "VITRINE_TOKEN="+w.Users[2].Token) // carla, a member
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_products", Arguments: map[string]any{"tenant_id": "tenant-sem-acesso"}})
	if err != nil || !res.IsError || res.Content[0].(*mcp.TextContent).Text != `{"error":true,"type":"Error","message":"Membership not found or inactive"}` {
		t.Fatalf("list_products on no tenant: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "carla@technova.example") {
		t.Fatalf("whoami: %v %+v", err, res)
	}

	for name, token := range map[string]string{"missing": "", "unknown": "vtr_" + strings.Repeat("a", 40)} {
		cmd := exec.Command(bin, "stdio", "--db", db)
		cmd.Env = append(os.Environ(), "VITRINE_TOKEN="+token)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if err == nil || cmd.ProcessState.ExitCode() == 0 || !strings.Contains(stderr.String(), "VITRINE_TOKEN") {
			t.Errorf("%s token: %v, stderr %q", name, err, stderr.String())
		}
	}
}

func TestProductImportExport(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		d := "--db=" + url
		must(t, "demo", d, "--json")
		dir := t.TempDir()
		csvFile := filepath.Join(dir, "in.csv")
		os.WriteFile(csvFile, []byte("sku,name,price,stock,description\n"+
			"CSV-1,Caneta Azul,2.50,100,\"Esferográfica, 1 mm\"\n"+
			"CSV-2,Caneta Vermelha,abc,10,\n"+
			"CSV-3,Lápis,1.20,,\n"), 0o644)
		out, errs, code := runCLI(t, "product", "import", d, "--tenant", "technova", csvFile)
		if code != 1 || !strings.Contains(out, "3 rows: 2 created, 0 updated, 0 unchanged, 1 failed.") || !strings.Contains(errs, `line 3 (SKU "CSV-2"): price must be`) {
			t.Fatalf("import: exit %d\n%s\n%s", code, out, errs)
		}
		// Atomic: the bad row stops everything.
		os.WriteFile(csvFile, []byte("sku,name,price\nCSV-4,Borracha,0.90\nCSV-5,Régua,-1\n"), 0o644)
		out, errs, code = runCLI(t, "product", "import", d, "--tenant", "technova", "--atomic", csvFile)
		if code != 1 || !strings.Contains(errs, "nothing was written") {
			t.Fatalf("atomic import: exit %d\n%s\n%s", code, out, errs)
		}
		fails(t, `unknown column "colour"`, "product", "import", d, "--tenant", "technova", writeFile(t, dir, "bad.csv", "sku,name,price,colour\n"))
		fails(t, `no "price" column`, "product", "import", d, "--tenant", "technova", writeFile(t, dir, "bad2.csv", "sku,name\n"))
		fails(t, "no such file", "product", "import", d, "--tenant", "technova", filepath.Join(dir, "missing.csv"))

		// Export, in both formats; the CSV imports back as an upsert.
		exported := must(t, "product", "export", d, "--tenant", "technova", "--format", "csv")
		if lines := strings.Split(strings.TrimSpace(exported), "\n"); len(lines) != 13 || !strings.HasPrefix(lines[0], "id,sku,name,") || !strings.Contains(exported, `"Esferográfica, 1 mm"`) {
			t.Fatalf("export csv:\n%s", exported)
		}
		back := writeFile(t, dir, "back.csv", exported)
		// The plain CSV gives one price and stock a product: over a product
		// of variants it is refused by line, never made a product of one.
		out, errs, code = runCLI(t, "product", "import", d, "--tenant", "technova", "--mode", "upsert", back)
		if code != 1 || !strings.Contains(out, "12 rows: ") || !strings.Contains(out, "3 failed.") ||
			!strings.Contains(errs, `line 8 (camiseta-technova-dev, SKU "CAM-DEV-AZ-P"): product "camiseta-technova-dev" has 8 variants; this row gives one price and stock`) {
			t.Errorf("re-import: exit %d\n%s\n%s", code, out, errs)
		}
		jsonl := filepath.Join(dir, "out.jsonl")
		must(t, "product", "export", d, "--tenant", "mercado-verde", "--format", "jsonl", "-o", jsonl)
		data, _ := os.ReadFile(jsonl)
		if lines := jsonLines(t, string(data)); len(lines) != 7 || lines[0]["price"] == nil {
			t.Fatalf("export jsonl: %s", data)
		}
		// JSON Lines import into another company, as a chosen member, once
		// its owner defined the attributes the demo's groceries hold.
		for _, a := range [][]string{{"organico", "boolean"}, {"origem", "text"}, {"conservacao", "enum", "--values", "Ambiente,Refrigerado"}} {
			must(t, append([]string{"attribute", "save", a[0], d, "--tenant", "technova", "--type"}, a[1:]...)...)
		}
		if out := must(t, "product", "import", d, "--tenant", "technova", "--as", "carla@technova.example", jsonl); !strings.Contains(out, "7 rows: 7 created") {
			t.Errorf("jsonl import: %s", out)
		}
		fails(t, "You do not have permission", "product", "import", d, "--tenant", "technova", "--as", "diego@technova.example", jsonl)
		// Its own export upserted over it changes nothing: not a version,
		// not a time.
		if out := must(t, "product", "import", d, "--tenant", "mercado-verde", "--mode", "upsert", jsonl); !strings.Contains(out, "7 rows: 0 created, 0 updated, 7 unchanged, 0 failed.") {
			t.Errorf("jsonl re-import: %s", out)
		}
		again := filepath.Join(dir, "again.jsonl")
		must(t, "product", "export", d, "--tenant", "mercado-verde", "--format", "jsonl", "-o", again)
		if data2, _ := os.ReadFile(again); string(data2) != string(data) {
			t.Errorf("an upsert of its own export changed the catalog:\n%s\n%s", data, data2)
		}
	})
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
