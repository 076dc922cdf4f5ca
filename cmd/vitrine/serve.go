package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"os"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/vitrine/vitrine/demo"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/store"
)

// ToolFlags narrow the tools every caller sees.
type ToolFlags struct {
	Toolsets    []string      `placeholder:"SET" help:"Serve only these toolsets: tenants, products, members, roles, audit. Default: all."`
	ReadOnly    bool          `name:"read-only" help:"Serve only the tools that change nothing."`
	Confirm     bool          `name:"confirm-destructive" help:"Ask the user to confirm each delete_product, through the client (MCP elicitation), when the client can ask."`
	CallTimeout time.Duration `default:"60s" help:"Longest time a tool call may take; past it, it answers an error and writes nothing."`
}

func (f ToolFlags) options(o mcpserver.Options) mcpserver.Options {
	o.Toolsets, o.ReadOnly, o.ConfirmDestructive, o.CallTimeout = f.Toolsets, f.ReadOnly, f.Confirm, f.CallTimeout
	return o
}

// ServeCmd serves MCP over Streamable HTTP.
type ServeCmd struct {
	Addr            string        `default:"127.0.0.1:8080" placeholder:"HOST:PORT" help:"Address to listen on."`
	PublicURL       string        `placeholder:"URL" help:"The base URL clients reach this server at (https://mcp.example.com), for the OAuth metadata; default: taken from each request."`
	Demo            bool          `help:"Fill the database with demo data first, and print each demo user's token and client configuration."`
	MetricsAddr     string        `placeholder:"HOST:PORT" help:"Serve /metrics on this address instead of the main one (keep it private)."`
	PprofAddr       string        `placeholder:"HOST:PORT" help:"Serve Go's profiler (/debug/pprof/) on this address, for diagnosis; keep it private. Off by default."`
	ShutdownTimeout time.Duration `default:"30s" help:"On SIGTERM or SIGINT, how long calls in flight may take to finish before the server stops anyway."`
	ToolFlags
	OAuthFlags `prefix:"oauth-"`
	LimitFlags
	LogFlags
}

// OAuthFlags configure resource-server mode.
type OAuthFlags struct {
	Issuer    string `placeholder:"URL" help:"Accept JWT access tokens of this OAuth authorization server too (with --oauth-audience)."`
	Audience  string `placeholder:"AUD" help:"The audience the access tokens must be issued for."`
	JWKSURL   string `name:"jwks-url" placeholder:"URL" help:"Where the issuer's keys are; default: discovered from the issuer's metadata."`
	UserClaim string `enum:"email,sub" default:"email" help:"The claim that names the Vitrine user: email, or sub (linked with vitrine user update --subject)."`
}

func (f OAuthFlags) config() (*mcpserver.OAuth, error) {
	if f.Issuer == "" && f.Audience == "" && f.JWKSURL == "" {
		return nil, nil
	}
	if f.Issuer == "" || f.Audience == "" {
		return nil, &usageError{"OAuth needs both --oauth-issuer and --oauth-audience"}
	}
	return &mcpserver.OAuth{Issuer: f.Issuer, Audience: f.Audience, JWKSURL: f.JWKSURL, UserClaim: f.UserClaim}, nil
}

// LimitFlags are the HTTP abuse limits; 0 turns one off.
type LimitFlags struct {
	IPRate           float64       `default:"200" help:"Requests per second from one address."`
	IPBurst          int           `default:"400" help:"Requests at once from one address."`
	TokenRate        float64       `default:"50" help:"Requests per second with one token."`
	TokenBurst       int           `default:"100" help:"Requests at once with one token."`
	TokenConcurrency int           `default:"16" help:"Calls of one token in flight at once."`
	MaxBody          int64         `default:"4194304" placeholder:"BYTES" help:"Largest request body."`
	BodyTimeout      time.Duration `default:"30s" help:"Longest time a client may take to send a request body."`
	AllowedOrigins   []string      `placeholder:"ORIGIN" help:"Browser origins (https://app.example.com) allowed to call; when set, every other origin is refused. Unset: other origins are refused when the server listens beyond loopback (DNS-rebinding protection)."`
	TrustedProxies   []string      `placeholder:"CIDR" help:"Networks of your reverse proxies (10.0.0.0/8); the per-address limit counts the client they name in X-Forwarded-For. Unset: every request counts against its TCP peer."`
	SessionsPerUser  int           `default:"20" help:"Sessions one user may hold on this instance; past it, the user's least recently used idle session is closed."`
}

func (f LimitFlags) limits() (mcpserver.Limits, error) {
	l := mcpserver.Limits{IPRate: f.IPRate, IPBurst: f.IPBurst, TokenRate: f.TokenRate, TokenBurst: f.TokenBurst,
		TokenConcurrency: f.TokenConcurrency, MaxBodyBytes: f.MaxBody, BodyTimeout: f.BodyTimeout, AllowedOrigins: f.AllowedOrigins,
		SessionsPerUser: f.SessionsPerUser}
	for _, cidr := range f.TrustedProxies {
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			if a, aerr := netip.ParseAddr(cidr); aerr == nil {
				p, err = a.Prefix(a.BitLen())
			}
		}
		if err != nil {
			return l, &usageError{fmt.Sprintf("--trusted-proxies: %q is not a network (10.0.0.0/8) or an address", cidr)}
		}
		l.TrustedProxies = append(l.TrustedProxies, p.Masked())
	}
	return l, nil
}

// Run serves until interrupted.
func (c *ServeCmd) Run(e *env) error {
	tuneGC()
	log, sdkLog := c.logger(e.stderr)
	db, svc, err := e.open(log)
	if err != nil {
		return err
	}
	defer db.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), poolCollector{db})
	oauth, err := c.config()
	if err != nil {
		return err
	}
	limits, err := c.limits()
	if err != nil {
		return err
	}
	srv, err := mcpserver.New(svc, c.options(mcpserver.Options{Logger: log, SDKLogger: sdkLog, Version: Version, Metrics: reg,
		OAuth: oauth, PublicURL: c.PublicURL, Limits: limits}))
	if err != nil {
		return err
	}
	if err := srv.CheckOAuth(e.ctx); err != nil {
		return fmt.Errorf("OAuth: %w", err)
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return err
	}
	url := fmt.Sprintf("http://%s%s", ln.Addr(), mcpserver.HTTPPath)
	if c.Demo {
		w, err := demo.Seed(e.ctx, svc)
		if err != nil {
			ln.Close()
			return err
		}
		printDemo(e, w, url)
	}

	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	mux := http.NewServeMux()
	mux.Handle(mcpserver.HTTPPath, srv.HTTPHandler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		if err := db.Ready(ctx); err != nil {
			log.Warn("not ready", "err", err)
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	servers := []*http.Server{{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}}
	listeners := []net.Listener{ln}
	if c.MetricsAddr == "" {
		mux.Handle("GET /metrics", metrics)
	} else {
		mln, err := net.Listen("tcp", c.MetricsAddr)
		if err != nil {
			ln.Close()
			return err
		}
		mmux := http.NewServeMux()
		mmux.Handle("GET /metrics", metrics)
		servers = append(servers, &http.Server{Handler: mmux, ReadHeaderTimeout: 10 * time.Second})
		listeners = append(listeners, mln)
		log.Info("serving metrics", "url", fmt.Sprintf("http://%s/metrics", mln.Addr()))
	}
	if c.PprofAddr != "" {
		pln, err := net.Listen("tcp", c.PprofAddr)
		if err != nil {
			ln.Close()
			return err
		}
		pmux := http.NewServeMux()
		pmux.HandleFunc("/debug/pprof/", pprof.Index)
		pmux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		pmux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		pmux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		servers = append(servers, &http.Server{Handler: pmux, ReadHeaderTimeout: 10 * time.Second})
		listeners = append(listeners, pln)
		log.Info("serving the profiler", "url", fmt.Sprintf("http://%s/debug/pprof/", pln.Addr()))
	}
	log.Info("serving MCP over Streamable HTTP", "url", url, "db", db.Dialect())
	if rs := db.RowSecurity(); rs != "" {
		log.Info("row-level security", "mode", rs)
	}
	errc := make(chan error, len(servers))
	for i, hs := range servers {
		go func() { errc <- hs.Serve(listeners[i]) }()
	}
	select {
	case err := <-errc:
		return err
	case <-e.ctx.Done():
	}
	return shutdown(log, srv, servers, c.ShutdownTimeout)
}

// shutdown stops accepting, lets the calls in flight finish within the
// timeout, then ends the sessions still open (their idle event streams
// would hold the HTTP server forever).
func shutdown(log interface{ Info(string, ...any) }, srv *mcpserver.Server, servers []*http.Server, timeout time.Duration) error {
	log.Info("shutting down", "timeout", timeout)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan error, len(servers))
	for _, hs := range servers {
		go func() { done <- hs.Shutdown(ctx) }()
	}
	drained := srv.Shutdown(ctx)
	var err error
	for range servers {
		if e := <-done; e != nil && !errors.Is(e, http.ErrServerClosed) {
			err = e
		}
	}
	if drained != nil || err != nil {
		for _, hs := range servers {
			hs.Close()
		}
		return fmt.Errorf("calls still in flight after %s; stopped anyway", timeout)
	}
	log.Info("stopped")
	return nil
}

// poolCollector exports the database pools' figures.
type poolCollector struct{ db *store.DB }

var (
	poolConns = prometheus.NewDesc("vitrine_db_connections", "Database connections, by state: max, open, in_use, idle.", []string{"state"}, nil)
	poolWaits = prometheus.NewDesc("vitrine_db_waits_total", "Waits for a free database connection.", nil, nil)
	poolWait  = prometheus.NewDesc("vitrine_db_wait_seconds_total", "Time spent waiting for a free database connection.", nil, nil)
)

func (poolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- poolConns
	ch <- poolWaits
	ch <- poolWait
}

func (p poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := p.db.Stats()
	for state, n := range map[string]int{"max": s.MaxOpen, "open": s.Open, "in_use": s.InUse, "idle": s.Idle} {
		ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(n), state)
	}
	ch <- prometheus.MustNewConstMetric(poolWaits, prometheus.CounterValue, float64(s.WaitCount))
	ch <- prometheus.MustNewConstMetric(poolWait, prometheus.CounterValue, s.WaitDuration.Seconds())
}

// StdioCmd serves MCP over stdio for the user of VITRINE_TOKEN. The token
// is read from the environment only, never from a flag that other users of
// the machine could see in the process list.
type StdioCmd struct {
	ToolFlags
	LogFlags
}

// Run checks the token, then serves on stdin and stdout until the client
// closes them.
func (c *StdioCmd) Run(e *env) error {
	token := os.Getenv("VITRINE_TOKEN")
	// stdout carries the protocol: everything else goes to stderr.
	log, sdkLog := c.logger(e.stderr)
	if token == "" {
		return &usageError{"VITRINE_TOKEN is not set: create a token with \"vitrine token create --email E --name N\" and put it in VITRINE_TOKEN"}
	}
	db, svc, err := e.open(log)
	if err != nil {
		return err
	}
	defer db.Close()
	caller, err := svc.Authenticate(e.ctx, token)
	var ae *service.AuthError
	if errors.As(err, &ae) {
		return &usageError{"VITRINE_TOKEN was refused: " + ae.Reason}
	}
	if err != nil {
		return err
	}
	srv, err := mcpserver.New(svc, c.options(mcpserver.Options{Logger: log, SDKLogger: sdkLog, Version: Version, Token: token}))
	if err != nil {
		return err
	}
	log.Info("serving MCP over stdio", "user", caller.User.Email, "db", db.Dialect())
	err = srv.Run(e.ctx, &mcp.IOTransport{Reader: readCloser{e.stdin}, Writer: writeCloser{e.stdout}})
	if err != nil && e.ctx.Err() != nil {
		return nil // interrupted
	}
	return err
}

// readCloser and writeCloser let stdin and stdout serve as the transport
// without the transport closing the process's own files.
type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }

// tuneGC lets the heap grow to five times what is live before collecting,
// unless GOGC says otherwise. A server's live heap is small (tens of MiB)
// while each request allocates and drops much (the SDK's JSON decoding
// alone, about half a MiB): at Go's default of twice the live heap, the
// collector ran every few dozen requests and took a fifth of the CPU. A
// memory limit (GOMEMLIMIT, the container's) still makes it collect
// sooner when memory runs short.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}
