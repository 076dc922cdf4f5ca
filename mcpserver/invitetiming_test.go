package mcpserver_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/demo"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
	"github.com/vitrine/vitrine/service/auditlog"
	"github.com/vitrine/vitrine/store"
)

// BenchmarkAddMemberTiming measures add_member, through the MCP server,
// for an email that has an account (a fresh user each time, never invited
// before) and one that has none, alternated in pairs (which goes first
// alternates too). It reports the median of each, their ratio, and the
// share of pairs in which the account's email took longer: about 50 when
// the time tells nothing, 100 when it tells every time.
//
//	go test ./mcpserver -run '^$' -bench AddMemberTiming -benchtime 400x
func BenchmarkAddMemberTiming(b *testing.B) {
	for _, d := range dbtest.Dialects() {
		b.Run(d.Name, func(b *testing.B) {
			w := newWorld(b, d.URL(b))
			op := w.svc.Operator()
			emails := make([]string, b.N)
			for i := range emails {
				emails[i] = fmt.Sprintf("known-%d@example.com", i)
				if _, err := op.CreateUser(ctx, emails[i], "Known"); err != nil {
					b.Fatal(err)
				}
			}
			cs := w.session("memory", owner)
			tenant := w.tenants["technova"]
			call := func(email string) time.Duration {
				start := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add_member", Arguments: map[string]any{"tenant_id": tenant, "email": email, "role": "viewer"}})
				took := time.Since(start)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
				return took
			}
			known, unknown := make([]float64, 0, b.N), make([]float64, 0, b.N)
			slower := 0
			b.ResetTimer()
			for i := range b.N {
				var k, u time.Duration
				if i%2 == 0 {
					k, u = call(emails[i]), call(fmt.Sprintf("nobody-%d@example.com", i))
				} else {
					u, k = call(fmt.Sprintf("nobody-%d@example.com", i)), call(emails[i])
				}
				known, unknown = append(known, float64(k)), append(unknown, float64(u))
				if k > u {
					slower++
				}
			}
			b.StopTimer()
			mk, mu := median(known), median(unknown)
			b.ReportMetric(mk, "ns/known")
			b.ReportMetric(mu, "ns/unknown")
			b.ReportMetric(mk/mu, "known/unknown")
			b.ReportMetric(100*float64(slower)/float64(b.N), "%known-slower")
		})
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// statements records the SQL of every statement sent to PostgreSQL, and
// of every statement of a batch.
type statements struct {
	mu  sync.Mutex
	on  bool
	sql []string
}

func (s *statements) add(q string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on {
		s.sql = append(s.sql, strings.Join(strings.Fields(q), " "))
	}
}

// record returns what fn sent.
func (s *statements) record(fn func()) []string {
	s.mu.Lock()
	s.on, s.sql = true, nil
	s.mu.Unlock()
	fn()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = false
	return s.sql
}

func (s *statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.add(d.SQL)
	return ctx
}
func (s *statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (s *statements) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}
func (s *statements) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	s.add(d.SQL)
}
func (s *statements) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// add_member does the same work whatever the email: the same statements,
// in the same order, for an email without an account, one with an
// account never invited, one already invited (with the same role and
// another), a disabled user's. (Only the rows they write differ:
// BenchmarkAddMemberTiming measures what is left.)
func TestAddMemberSameWorkWhateverTheEmail(t *testing.T) {
	rec := &statements{}
	db, err := store.Open(ctx, dbtest.PostgresURL(t), store.Options{Tracer: rec})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Reads and refusals record no event: no flush in the background.
	svc := service.NewWithOptions(db, nil, service.Options{Audit: auditlog.Options{Reads: auditlog.Off}})
	defer svc.Close(ctx)
	dw, err := demo.Seed(ctx, svc)
	if err != nil {
		t.Fatal(err)
	}
	var token, tenant string
	for _, u := range dw.Users {
		if u.Email == owner {
			token = u.Token
		}
	}
	for _, tn := range dw.Tenants {
		if tn.Slug == "technova" {
			tenant = tn.ID
		}
	}
	op := svc.Operator()
	for _, email := range []string{"fresh@example.com", "invited@example.com", "disabled@example.com"} {
		if _, err := op.CreateUser(ctx, email, "Someone"); err != nil {
			t.Fatal(err)
		}
	}
	yes := true
	if _, err := op.UpdateUser(ctx, "disabled@example.com", accounts.UserChanges{Disabled: &yes}); err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(svc, mcpserver.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	invite := func(email, role string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add_member", Arguments: map[string]any{"tenant_id": tenant, "email": email, "role": role}})
		if err != nil || res.IsError {
			t.Fatalf("add_member %s: %v %+v", email, err, res)
		}
	}
	invite("invited@example.com", "viewer")
	// The token's first use is recorded in the background; once it is,
	// the next is a minute away.
	ownerUser, err := db.UserByEmail(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		tokens, err := db.TokensOfUser(ctx, ownerUser.ID)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(tokens, func(tk *vitrine.Token) bool { return tk.LastUsedAt != nil }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the token's use was never recorded")
		}
	}
	var want []string
	for i, c := range []struct{ what, email, role string }{
		{"an email without an account", "nobody@example.com", "viewer"},
		{"an account never invited", "fresh@example.com", "viewer"},
		{"an account already invited", "invited@example.com", "viewer"},
		{"an account invited again with another role", "invited@example.com", "member"},
		{"a disabled account", "disabled@example.com", "viewer"},
		{"another email without an account", "nobody-else@example.com", "member"},
	} {
		invite(fmt.Sprintf("warm-%d@example.com", i), "viewer") // each call starts where the last left the caches
		got := rec.record(func() { invite(c.email, c.role) })
		if i == 0 {
			want = got
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: add_member sent\n  %s\nand for %s\n  %s", c.what, strings.Join(got, "\n  "), "an email without an account", strings.Join(want, "\n  "))
		}
	}
	if len(want) == 0 {
		t.Fatal("no statement recorded")
	}
}
