package mcpserver_test

import (
	"encoding/json"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
)

// faultProxy stands between the server and PostgreSQL. It can cut the
// line (drop every connection and refuse new ones) or black-hole it (hold
// every byte, as a dead network does), until restored.
type faultProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cond   *sync.Cond
	down   bool
	hung   bool
	conns  []net.Conn
}

func newFaultProxy(t *testing.T, target string) *faultProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{ln: ln, target: target}
	p.cond = sync.NewCond(&p.mu)
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.cut() })
	return p
}

func (p *faultProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go func() { p.pipe(up, c); up.Close() }()
		go func() { p.pipe(c, up); c.Close() }()
	}
}

// pipe copies src to dst, holding each chunk while the line is hung.
func (p *faultProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		p.mu.Lock()
		for p.hung {
			p.cond.Wait()
		}
		p.mu.Unlock()
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *faultProxy) hang() {
	p.mu.Lock()
	p.hung = true
	p.mu.Unlock()
}

func (p *faultProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *faultProxy) restore() {
	p.mu.Lock()
	p.down, p.hung = false, false
	p.cond.Broadcast()
	p.mu.Unlock()
}

// When PostgreSQL becomes unreachable in the middle of a load, calls answer
// an internal Error within their deadline (no crash, no hang), and the
// server recovers by itself once the database is back.
func TestDatabaseOutage(t *testing.T) {
	direct := dbtest.PostgresURL(t)
	u, _ := url.Parse(direct)
	proxy := newFaultProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	w := newWorld(t, u.String())
	technova := w.tenants["technova"]
	id := w.productID("technova", "NB-DELL-5440")

	type answer struct {
		kind string // ok, error (an internal Error result), other
		took time.Duration
	}
	callOnce := func(cs *mcp.ClientSession) answer {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_product", Arguments: map[string]any{"tenant_id": technova, "id": id}})
		took := time.Since(start)
		switch {
		case err != nil:
			return answer{"protocol error: " + err.Error(), took}
		case !res.IsError:
			return answer{"ok", took}
		}
		var e struct {
			Type      string
			RequestID string `json:"request_id"`
		}
		json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &e)
		if e.Type == "Error" && (e.RequestID != "" || strings.Contains(res.Content[0].(*mcp.TextContent).Text, "Not signed in")) {
			return answer{"error", took}
		}
		return answer{"other: " + res.Content[0].(*mcp.TextContent).Text, took}
	}
	w.opts.CallTimeout = 2 * time.Second
	sessions := make([]*mcp.ClientSession, 4)
	for i := range sessions {
		sessions[i] = w.session("memory", owner)
		if a := callOnce(sessions[i]); a.kind != "ok" {
			t.Fatalf("before the outage: %s", a.kind)
		}
	}

	proxy.cut()
	var wg sync.WaitGroup
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				a := callOnce(cs)
				if a.kind != "error" || a.took > 15*time.Second {
					t.Errorf("during the outage: %s after %s", a.kind, a.took)
				}
			}
		}()
	}
	wg.Wait()
	// A resource read goes through the same pipeline: the outage is an
	// internal error, not a refusal ("Membership not found").
	if _, err := sessions[0].ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.ProductURI(technova, id)}); err == nil ||
		strings.Contains(err.Error(), "Membership not found") || !strings.Contains(err.Error(), "Internal error") {
		t.Errorf("a resource read during the outage: %v", err)
	}

	proxy.restore()
	recovery := func() time.Duration {
		start := time.Now()
		for {
			a := callOnce(sessions[0])
			if a.kind == "ok" {
				return time.Since(start)
			}
			if time.Since(start) > 30*time.Second {
				t.Fatalf("no recovery after 30 s: %s", a.kind)
			}
		}
	}
	t.Logf("cut: recovered %s after the database came back", recovery().Round(time.Millisecond))

	// A black hole: the calls end at their deadline, with an Error.
	proxy.hang()
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := callOnce(cs)
			if a.kind != "error" || a.took > 5*time.Second {
				t.Errorf("while the line is dead: %s after %s", a.kind, a.took)
			}
		}()
	}
	wg.Wait()
	proxy.restore()
	start := time.Now()
	for {
		a := callOnce(sessions[0])
		if a.kind == "ok" {
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("no recovery after 30 s: %s", a.kind)
		}
	}
	t.Logf("black hole: recovered %s after the line came back", time.Since(start).Round(time.Millisecond))
	for _, cs := range sessions {
		if a := callOnce(cs); a.kind != "ok" {
			t.Errorf("after recovery: %s", a.kind)
		}
	}
}
