package mcpserver_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
	"github.com/vitrine/vitrine/service/catalog"
)

var (
	isolationCalls = flag.Int("isolation.calls", 1500, "tool calls the isolation property test makes on each database")
	isolationSeed  = flag.Uint64("isolation.seed", 20261130, "seed of the isolation property test's world and calls")
)

// The isolation property: in a generated world of tenants, users with
// random roles, grants, inactive memberships and read-only tokens, random
// tool calls with ids drawn from every tenant never answer data of a tenant
// where the caller has no active membership, and every error is the very
// type the rules predict.
func TestIsolationProperty(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		rng := rand.New(rand.NewPCG(*isolationSeed, 7))
		m := generate(t, url, rng)
		calls, leaks := 0, 0
		for range *isolationCalls {
			leaks += m.call(t, rng)
			calls++
		}
		t.Logf("%d calls, %d leaks, %d products deleted; outcomes %v", calls, leaks, len(m.deleted), m.outcomes)
		if leaks > 0 {
			t.Fatalf("%d responses carried another tenant's data", leaks)
		}
	})
}

type mtenant struct {
	id, prefix string
	members    map[int]*mmember // by user index
	roles      map[string]vitrine.PermissionSet
}

type mmember struct {
	role   string
	active bool
	grants vitrine.PermissionSet
}

type muser struct {
	email    string
	id       string
	readOnly bool
	cs       *mcp.ClientSession
}

type model struct {
	w        *world
	tenants  []*mtenant
	users    []*muser
	products map[string]int // id -> tenant index
	ids      []string       // every product id, of every tenant
	deleted  map[string]bool
	outcomes map[string]int
}

func generate(t *testing.T, url string, rng *rand.Rand) *model {
	w := newWorld(t, url)
	op := w.svc.Operator()
	m := &model{w: w, products: map[string]int{}, deleted: map[string]bool{}, outcomes: map[string]int{}}
	for i := range 8 {
		email := fmt.Sprintf("user%d@iso.example", i)
		u, err := op.CreateUser(ctx, email, fmt.Sprintf("User %d", i))
		if err != nil {
			t.Fatal(err)
		}
		m.users = append(m.users, &muser{email: email, id: u.ID, readOnly: rng.IntN(5) == 0})
	}
	roles := []string{"owner", "admin", "member", "viewer", "clerk"}
	for ti := range 4 {
		ownerIdx := rng.IntN(len(m.users))
		tn, err := op.CreateTenant(ctx, fmt.Sprintf("Iso %d", ti), fmt.Sprintf("iso-%d", ti), m.users[ownerIdx].email)
		if err != nil {
			t.Fatal(err)
		}
		mt := &mtenant{id: tn.ID, prefix: fmt.Sprintf("T%d-", ti), members: map[int]*mmember{ownerIdx: {role: "owner", active: true}},
			roles: map[string]vitrine.PermissionSet{}}
		for _, r := range vitrine.BuiltinRoles {
			mt.roles[r.Name] = r.Permissions
		}
		caller, _ := op.ActAs(ctx, m.users[ownerIdx].email, "isolation test")
		a, err := w.svc.Access(ctx, caller, tn.ID)
		if err != nil {
			t.Fatal(err)
		}
		clerk := randomPerms(rng)
		if _, err := w.svc.CreateRole(ctx, a, service.RoleInput{Name: "clerk", Permissions: clerk.Strings()}); err != nil {
			t.Fatal(err)
		}
		mt.roles["clerk"] = clerk
		for ui := range m.users {
			if ui == ownerIdx || rng.IntN(3) == 0 {
				continue
			}
			role := roles[1+rng.IntN(len(roles)-1)]
			status := "active"
			if rng.IntN(4) == 0 {
				status = "inactive"
			}
			if _, err := op.AddMember(ctx, tn.ID, m.users[ui].email, role, status); err != nil {
				t.Fatal(err)
			}
			mm := &mmember{role: role, active: status == "active"}
			if rng.IntN(2) == 0 {
				p := vitrine.Permissions[rng.IntN(len(vitrine.Permissions))].Name
				if _, err := w.svc.GrantPermission(ctx, a, m.users[ui].id, string(p)); err != nil {
					t.Fatal(err)
				}
				mm.grants = vitrine.NewPermissionSet(p)
			}
			mt.members[ui] = mm
		}
		for j := range 6 {
			p, err := catalog.New(w.svc).CreateProduct(ctx, a, catalog.NewProduct{SKU: fmt.Sprintf("T%d-P%d", ti, j), Name: fmt.Sprintf("Produto T%d %d", ti, j),
				Price: "1.00", Stock: 5}, "")
			if err != nil {
				t.Fatal(err)
			}
			m.products[p.ID] = ti
			m.ids = append(m.ids, p.ID)
		}
		m.tenants = append(m.tenants, mt)
	}
	for _, u := range m.users {
		_, secret, err := op.CreateToken(ctx, accounts.NewToken{Email: u.email, Name: "iso", ReadOnly: u.readOnly, Toolsets: []string{"all"}})
		if err != nil {
			t.Fatal(err)
		}
		srv := w.server(mcpserver.Options{Token: secret})
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		if u.cs, err = mcp.NewClient(&mcp.Implementation{Name: "iso", Version: "1"}, nil).Connect(ctx, ct, nil); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { u.cs.Close() })
	}
	return m
}

func randomPerms(rng *rand.Rand) vitrine.PermissionSet {
	var s vitrine.PermissionSet
	for _, p := range vitrine.Permissions {
		if rng.IntN(2) == 0 {
			s |= vitrine.NewPermissionSet(p.Name)
		}
	}
	return s | vitrine.NewPermissionSet(vitrine.TenantsRead)
}

// perms returns what user ui may do in tenant ti, and whether they reach it.
func (m *model) perms(ui, ti int) (vitrine.PermissionSet, bool) {
	if ti < 0 {
		return 0, false
	}
	mm, ok := m.tenants[ti].members[ui]
	if !ok || !mm.active {
		return 0, false
	}
	ps := m.tenants[ti].roles[mm.role] | mm.grants
	if m.users[ui].readOnly {
		ps &= vitrine.ReadPermissions
	}
	return ps, true
}

type probe struct {
	tool string
	perm vitrine.Permission
	// target is the product the call is about, if any.
	target string
	args   map[string]any
}

// call makes one random call, checks its answer against the model, and
// returns 1 if it leaked another tenant's data.
func (m *model) call(t *testing.T, rng *rand.Rand) int {
	ui := rng.IntN(len(m.users))
	u := m.users[ui]
	ti := rng.IntN(len(m.tenants) + 1) // the last: a tenant that is not
	tenantID := "01a20000-0000-7000-8000-000000000000"
	if ti == len(m.tenants) {
		ti = -1
		if rng.IntN(2) == 0 {
			tenantID = "tenant-sem-acesso"
		}
	} else {
		tenantID = m.tenants[ti].id
	}
	pid := m.ids[rng.IntN(len(m.ids))]
	probes := []probe{
		{"get_tenant", vitrine.TenantsRead, "", nil},
		{"list_products", vitrine.ProductsRead, "", map[string]any{"query": "produto", "limit": 100}},
		{"list_products", vitrine.ProductsRead, "", map[string]any{"limit": 100, "sort": "-price"}},
		{"get_product", vitrine.ProductsRead, pid, map[string]any{"id": pid}},
		{"update_product", vitrine.ProductsUpdate, pid, map[string]any{"id": pid, "stock": rng.IntN(50)}},
		{"adjust_stock", vitrine.ProductsUpdate, pid, map[string]any{"id": pid, "delta": 1, "reason": "iso"}},
		{"delete_product", vitrine.ProductsDelete, pid, map[string]any{"id": pid}},
		{"list_stock_movements", vitrine.ProductsRead, pid, map[string]any{"product_id": pid, "limit": 100}},
		{"list_stock_movements", vitrine.ProductsRead, "", map[string]any{"limit": 100}},
		{"list_members", vitrine.MembersRead, "", map[string]any{"limit": 100}},
		{"list_roles", vitrine.RolesRead, "", nil},
		{"list_audit_events", vitrine.AuditRead, "", map[string]any{"limit": 100}},
		{"whoami", "", "", nil},
		{"list_tenants", "", "", nil},
	}
	p := probes[rng.IntN(len(probes))]
	args := map[string]any{}
	for k, v := range p.args {
		args[k] = v
	}
	if p.perm != "" {
		args["tenant_id"] = tenantID
	}
	res, err := u.cs.CallTool(ctx, &mcp.CallToolParams{Name: p.tool, Arguments: args})

	// What the rules predict.
	ps, reached := m.perms(ui, ti)
	readOnlyTool := p.perm == "" || p.perm.ReadOnly()
	want := "ok"
	switch {
	case u.readOnly && !readOnlyTool:
		want = "Error" // outside the token's grant
	case p.perm == "":
	case !reached:
		want = "Error"
	case !ps.Has(p.perm):
		want = "PermissionError"
	case p.target != "" && (m.products[p.target] != ti || m.deleted[p.target]):
		want = "NotFoundError"
	}
	got, text := outcomeOf(t, res, err)
	m.outcomes[got]++
	if got != want {
		t.Errorf("%s (read-only %v) calling %s in tenant %d (%v): got %s, want %s: %s", u.email, u.readOnly, p.tool, ti, args, got, want, text)
	}
	if got == "ok" && p.tool == "delete_product" {
		m.deleted[p.target] = true
	}
	return m.leaks(t, ui, text)
}

func outcomeOf(t *testing.T, res *mcp.CallToolResult, err error) (string, string) {
	var werr *jsonrpc.Error
	if errors.As(err, &werr) && strings.HasPrefix(werr.Message, "Unknown tool: ") {
		return "unknown tool", ""
	}
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError {
		return "ok", text
	}
	var e struct{ Type string }
	json.Unmarshal([]byte(text), &e)
	return e.Type, text
}

// leaks reports whether text carries data of a tenant the user has no
// active membership in: its SKUs, its products' names, its id.
func (m *model) leaks(t *testing.T, ui int, text string) int {
	for ti, mt := range m.tenants {
		if _, reached := m.perms(ui, ti); reached || m.reachedIgnoringToken(ui, ti) {
			continue
		}
		name := "Produto " + strings.TrimSuffix(mt.prefix, "-") + " "
		if strings.Contains(text, `"`+mt.prefix+"P") || strings.Contains(text, name) || strings.Contains(text, mt.id) {
			t.Errorf("%s reached data of tenant %d: %.300s", m.users[ui].email, ti, text)
			return 1
		}
	}
	return 0
}

// reachedIgnoringToken: a read-only token narrows permissions, not reach.
func (m *model) reachedIgnoringToken(ui, ti int) bool {
	mm, ok := m.tenants[ti].members[ui]
	return ok && mm.active
}
