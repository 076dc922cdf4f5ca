package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/authserver"
	"github.com/vitrine/vitrine/demo"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
	"github.com/vitrine/vitrine/shopwindow"
	"github.com/vitrine/vitrine/store"
)

// ToolFlags narrow the tools every caller sees.
type ToolFlags struct {
	Toolsets    []string      `default:"all" placeholder:"SET" help:"Toolsets this deployment serves: all, or some of ${toolsets}. Within them, each client lists and calls the toolsets its token grants (${default_toolsets} unless the grant says otherwise)."`
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
	Addr             string        `default:"127.0.0.1:8080" placeholder:"HOST:PORT" help:"Address to listen on."`
	PublicURL        string        `placeholder:"URL" help:"The base URL clients reach this server at (https://mcp.example.com): the OAuth resource is this URL + /mcp. Needed with --oauth-issuer unless the server listens on loopback."`
	Demo             bool          `help:"Fill the database with demo data first, and print each demo user's token, password and client configuration."`
	MetricsAddr      string        `placeholder:"HOST:PORT" help:"Serve /metrics on this address (keep it private). Unset: on the main address only when it is loopback and no --public-url says a proxy is in front; otherwise nowhere, which the server says at start."`
	PprofAddr        string        `placeholder:"HOST:PORT" help:"Serve Go's profiler (/debug/pprof/) on this address, for diagnosis; keep it private. Off by default."`
	ShutdownTimeout  time.Duration `default:"30s" help:"On SIGTERM or SIGINT, how long calls in flight may take to finish before the server stops anyway."`
	FacetIndexMemory int64         `default:"${facet_index_memory}" placeholder:"MIB" help:"Memory, in MiB, the companies' facet indexes may hold, the least recently listed dropped first (a company of 1,000,000 variants takes about 90, one of 1,000,000 products of 3 variants about 261); 0: none, every faceted list counted by the database. Unless GOMEMLIMIT is set, the server's soft memory limit is what the indexes and their builds hold plus 64 MiB, at least 128 MiB."`
	Grace            time.Duration `default:"720h" help:"How long a company scheduled for deletion (delete_tenant) stays closed and restorable before it is purged."`
	PurgeEvery       time.Duration `default:"1m" help:"How often to look for companies whose grace is over, and purge them (one instance at a time, under a lease in the database); 0: never (vitrine tenant delete --now purges)."`
	ShopFlags
	ToolFlags
	AuditFlags
	OAuthFlags `prefix:"oauth-"`
	LoginFlags
	LimitFlags
	LogFlags
}

// ShopFlags configure the companies' shop windows (docs/shop.md).
type ShopFlags struct {
	ShopDomain               string  `name:"shop-domain" placeholder:"DOMAIN" help:"Serve each open shop window at the root of {slug}.DOMAIN too, where agents discover a business (point a wildcard DNS record and certificate at this server; localhost: {slug}.localhost, this machine's, the default of --demo); they are always at --public-url + /shops/{slug}/."`
	ShopIPRate               float64 `name:"shop-ip-rate" default:"${shop_ip_rate}" help:"Shop window requests per second from one address (0: no limit)."`
	ShopIPBurst              int     `name:"shop-ip-burst" default:"${shop_ip_burst}" help:"Shop window requests at once from one address."`
	ShopProfileRate          float64 `name:"shop-profile-rate" default:"${shop_profile_rate}" help:"Shop window requests per second naming one agent profile (0: no limit)."`
	ShopProfileBurst         int     `name:"shop-profile-burst" default:"${shop_profile_burst}" help:"Shop window requests at once naming one agent profile."`
	DevInsecureAgentProfiles bool    `name:"dev-insecure-agent-profiles" help:"For development and tests only: fetch shopping agents' UCP profiles over http and from private and loopback addresses."`
}

// shop is the shop windows' configuration.
func (f ShopFlags) shop(log *slog.Logger) (*httpserver.Shop, error) {
	d, err := vitrine.ValidateDomain("--shop-domain", f.ShopDomain)
	if strings.EqualFold(strings.TrimSuffix(f.ShopDomain, "."), "localhost") {
		// {slug}.localhost: this machine's own names (RFC 6761), which
		// browsers and curl resolve to loopback; for trying windows out.
		d, err = "localhost", nil
	}
	if err != nil {
		return nil, &usageError{message(err)}
	}
	if f.DevInsecureAgentProfiles {
		log.Warn("INSECURE: shopping agents' profiles are fetched over http and from private and loopback addresses " +
			"(--dev-insecure-agent-profiles): anyone who reaches a shop window can make this server request its inside network; never do this in production")
	}
	limits := shopwindow.DefaultLimits
	limits.AddrRate, limits.AddrBurst, limits.ProfileRate, limits.ProfileBurst = f.ShopIPRate, f.ShopIPBurst, f.ShopProfileRate, f.ShopProfileBurst
	return &httpserver.Shop{Options: shopwindow.Options{ShopDomain: d, InsecureProfiles: f.DevInsecureAgentProfiles, Limits: &limits}}, nil
}

// LoginFlags configure Vitrine's own authorization server, on when no
// --oauth-issuer is given (docs/oauth.md).
type LoginFlags struct {
	AuthServer                bool   `default:"true" negatable:"" help:"Be an OAuth authorization server for /mcp, with sign-in and consent pages, so that clients connect by URL alone (needs --public-url beyond loopback). Ignored with --oauth-issuer."`
	LoginOIDCIssuer           string `name:"login-oidc-issuer" placeholder:"URL" help:"Let people sign in with this OpenID Connect provider (their company's SSO), matched to their Vitrine user by verified email."`
	LoginOIDCClientID         string `name:"login-oidc-client-id" placeholder:"ID" help:"Vitrine's client id at the sign-in provider; its redirect URI is --public-url + /login/sso/callback."`
	LoginOIDCClientSecret     string `name:"login-oidc-client-secret" placeholder:"SECRET" help:"Vitrine's client secret at the sign-in provider (prefer VITRINE_LOGIN_OIDC_CLIENT_SECRET)."`
	DevInsecureClientMetadata bool   `name:"dev-insecure-client-metadata" help:"For development and tests only: fetch OAuth client metadata documents over http and from private and loopback addresses."`
	DevInsecurePublicURL      bool   `name:"dev-insecure-public-url" help:"For development only: serve the sign-in pages at an http:// --public-url beyond loopback (refused otherwise: passwords and cookies would travel in clear, and the cookies lose Secure and __Host-)."`
}

// OAuthFlags configure resource-server mode: an external authorization
// server issues the access tokens (docs/oauth.md).
type OAuthFlags struct {
	Issuer             string        `placeholder:"URL" help:"Accept the access tokens of this OAuth authorization server too, as its metadata names it (Auth0's end in /)."`
	Audience           string        `placeholder:"AUD" help:"The audience the access tokens must be issued for; default: the resource URL, --public-url + /mcp."`
	JWKSURL            string        `name:"jwks-url" placeholder:"URL" help:"Where the issuer's keys are; default: discovered from the issuer's metadata."`
	UserClaim          string        `enum:"email,sub" default:"email" help:"How a token names its Vitrine user: email (the user linked to its sub, else the user with its verified email) or sub (linked with vitrine user update --subject, only)."`
	MaxTokenLifetime   time.Duration `placeholder:"DURATION" help:"Refuse access tokens that live longer than this (0: any lifetime; every token must expire)."`
	ClientID           string        `name:"client-id" placeholder:"ID" help:"This server's client id at the issuer, for token introspection: opaque access tokens are then accepted too."`
	ClientSecret       string        `name:"client-secret" placeholder:"SECRET" help:"The client secret for token introspection (prefer VITRINE_OAUTH_CLIENT_SECRET to the flag)."`
	IntrospectionURL   string        `name:"introspection-url" placeholder:"URL" help:"The introspection endpoint; default: from the issuer's metadata."`
	IntrospectionCache time.Duration `default:"30s" help:"How long an introspected token is trusted before the issuer is asked again (at most 5m): a token revoked at the issuer stops working within it."`
	ProvisionDomains   []string      `name:"provision-domains" placeholder:"DOMAIN" help:"Create a Vitrine user, with no membership, for a verified email of these domains on first sign-in. Off by default."`
}

func (f OAuthFlags) config() (*httpserver.OAuth, error) {
	if f.Issuer == "" {
		if f.Audience != "" || f.JWKSURL != "" || f.ClientID != "" || f.IntrospectionURL != "" || len(f.ProvisionDomains) > 0 {
			return nil, &usageError{"the --oauth-* flags need --oauth-issuer, the authorization server's issuer URL"}
		}
		return nil, nil
	}
	if (f.ClientSecret != "" || f.IntrospectionURL != "") && f.ClientID == "" {
		return nil, &usageError{"token introspection needs --oauth-client-id"}
	}
	return &httpserver.OAuth{Issuer: f.Issuer, Audience: f.Audience, JWKSURL: f.JWKSURL, UserClaim: f.UserClaim,
		MaxTokenLifetime: f.MaxTokenLifetime, Provision: accounts.Provisioning{Domains: f.ProvisionDomains},
		Introspection: httpserver.Introspection{URL: f.IntrospectionURL, ClientID: f.ClientID, ClientSecret: f.ClientSecret,
			CacheTTL: f.IntrospectionCache}}, nil
}

// LimitFlags are the HTTP abuse limits; 0 turns one off. Their defaults
// are httpserver.DefaultLimits (limitVars).
type LimitFlags struct {
	IPRate           float64       `default:"${ip_rate}" help:"Requests per second from one address."`
	IPBurst          int           `default:"${ip_burst}" help:"Requests at once from one address."`
	TokenRate        float64       `default:"${token_rate}" help:"Requests per second with one token (each call of a JSON-RPC batch counts as one)."`
	TokenBurst       int           `default:"${token_burst}" help:"Requests at once with one token (each call of a JSON-RPC batch counts as one)."`
	TokenConcurrency int           `default:"${token_concurrency}" help:"Calls of one token in flight at once (each call of a JSON-RPC batch counts; a batch larger than this or --token-burst is refused)."`
	MaxBody          int64         `default:"${max_body}" help:"Largest request body, in bytes."`
	BodyTimeout      time.Duration `default:"${body_timeout}" help:"Longest time a client may take to send a request body."`
	AllowedOrigins   []string      `placeholder:"ORIGIN" help:"Browser origins (https://app.example.com) allowed to call; when set, every other origin is refused. Unset: other origins are refused when the server listens beyond loopback (DNS-rebinding protection)."`
	TrustedProxies   []string      `placeholder:"CIDR" help:"Networks of your reverse proxies (10.0.0.0/8); the per-address limit counts the client they name in X-Forwarded-For. Unset: every request counts against its TCP peer."`
	SessionsPerUser  int           `default:"${sessions_per_user}" help:"Sessions one user may hold on this instance; past it, the user's least recently used idle session is closed."`
}

// limitVars are the defaults of LimitFlags, for kong's interpolation.
func limitVars() kong.Vars {
	d, s := httpserver.DefaultLimits, shopwindow.DefaultLimits
	return kong.Vars{
		"toolsets": strings.Join(vitrine.ToolsetNames(), ", "), "default_toolsets": strings.Join(vitrine.DefaultToolsets(), ", "),
		"default_toolset_list": strings.Join(vitrine.DefaultToolsets(), ","),
		"ip_rate":              strconv.FormatFloat(d.IPRate, 'g', -1, 64), "ip_burst": strconv.Itoa(d.IPBurst),
		"token_rate": strconv.FormatFloat(d.TokenRate, 'g', -1, 64), "token_burst": strconv.Itoa(d.TokenBurst),
		"token_concurrency": strconv.Itoa(d.TokenConcurrency), "max_body": strconv.FormatInt(d.MaxBodyBytes, 10),
		"body_timeout": d.BodyTimeout.String(), "sessions_per_user": strconv.Itoa(d.SessionsPerUser),
		"facet_index_memory": strconv.Itoa(store.DefaultFacetIndexMemory >> 20),
		"shop_ip_rate":       strconv.FormatFloat(s.AddrRate, 'g', -1, 64), "shop_ip_burst": strconv.Itoa(s.AddrBurst),
		"shop_profile_rate": strconv.FormatFloat(s.ProfileRate, 'g', -1, 64), "shop_profile_burst": strconv.Itoa(s.ProfileBurst),
	}
}

func (f LimitFlags) limits() (httpserver.Limits, error) {
	l := httpserver.Limits{IPRate: f.IPRate, IPBurst: f.IPBurst, TokenRate: f.TokenRate, TokenBurst: f.TokenBurst,
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

// authServer builds Vitrine's own authorization server, or none (with a
// warning) when there is no public URL to be the issuer.
func (c *ServeCmd) authServer(ctx context.Context, svc *service.Service, log *slog.Logger, publicURL string) (*authserver.Server, error) {
	if publicURL == "" {
		log.Warn("OAuth sign-in is off: the server listens beyond loopback and has no --public-url to be its issuer; " +
			"set --public-url https://… to let clients connect by URL")
		return nil, nil
	}
	opts := authserver.Options{Issuer: publicURL, Resource: httpserver.ResourceURL(publicURL), Logger: log,
		InsecureClientMetadata: c.DevInsecureClientMetadata, InsecureIssuer: c.DevInsecurePublicURL}
	if c.LoginOIDCIssuer != "" || c.LoginOIDCClientID != "" {
		opts.Upstream = &authserver.Upstream{Issuer: c.LoginOIDCIssuer, ClientID: c.LoginOIDCClientID, ClientSecret: c.LoginOIDCClientSecret}
	}
	as, err := authserver.New(ctx, svc.Accounts(), opts)
	if err != nil {
		return nil, fmt.Errorf("OAuth sign-in: %w", err)
	}
	return as, nil
}

// Run serves until interrupted.
func (c *ServeCmd) Run(e *env) error {
	log, sdkLog := c.logger(e.stderr)
	reg := prometheus.NewRegistry()
	facetBytes, onIndexBytes := facetMemory(c.FacetIndexMemory)
	db, svc, closeDB, err := e.openServing(log, c.AuditFlags, store.Options{FacetIndexMemory: facetBytes, OnIndexBytes: onIndexBytes}, reg)
	if err != nil {
		return err
	}
	defer closeDB()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), poolCollector{db})
	oauth, err := c.config()
	if err != nil {
		return err
	}
	limits, err := c.limits()
	if err != nil {
		return err
	}
	shop, err := c.shop(log)
	if err != nil {
		return err
	}
	if c.Demo {
		// Agents discover a business at the root of its host: the demo's
		// windows are at {slug}.localhost too (which resolves to this
		// machine), unless the operator names a domain. And a shopping
		// agent tries them with the profile the demo serves itself, on a
		// laptop without the internet: the demo, and only the demo,
		// fetches agents' profiles from this machine.
		if shop.Options.ShopDomain == "" {
			shop.Options.ShopDomain = "localhost"
		}
		shop.Options.LoopbackProfiles = true
		log.Info("demo: shop windows fetch shopping agents' UCP profiles from this machine too (loopback addresses, over http): " +
			"the demo's own agent profile is at " + demo.AgentPath + "{release}.json; vitrine serve without --demo never does")
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return err
	}
	publicURL := c.PublicURL
	tcp, _ := ln.Addr().(*net.TCPAddr)
	localOnly := tcp != nil && c.PublicURL == "" && tcp.IP.IsLoopback() // only this machine's clients reach it
	if localOnly {
		publicURL = "http://" + ln.Addr().String()
	}
	var as *authserver.Server
	if oauth == nil && c.AuthServer {
		if as, err = c.authServer(e.ctx, svc, log, publicURL); err != nil {
			ln.Close()
			return err
		}
	}
	// get_shop lists the hosts of {slug}.{shop domain}, and update_shop
	// refuses a company's domain under it.
	mopts := mcpserver.Options{Logger: log, SDKLogger: sdkLog, Version: Version, Metrics: reg, ShopDomain: shop.Options.ShopDomain,
		DeletionGrace: c.Grace}
	if publicURL != "" {
		mopts.IconsURL = httpserver.IconsURL(publicURL)
		mopts.PublicURL = publicURL // where get_shop says the windows are
	}
	srv, err := mcpserver.New(svc, c.options(mopts))
	if err != nil {
		ln.Close()
		return err
	}
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	hopts := httpserver.Options{Logger: log, Metrics: reg, OAuth: oauth, PublicURL: publicURL, Limits: limits, Ready: db.Ready, Shop: shop}
	if as != nil {
		hopts.AuthorizationServer = as
	}
	if c.Demo {
		// The images the demo's products name, served by the server that
		// runs the demo only.
		// And its shopping agent's profile.
		hopts.Routes = map[string]http.Handler{"GET " + demo.ImagesPath + "{file}": demo.Images(),
			"GET " + demo.AgentPath + "{file}": demo.AgentProfiles(shopwindow.Versions)}
	}
	// The metrics name every tool and how it is used: not for whoever
	// reaches the main address, nor for the internet a proxy in front
	// opens it to.
	if c.MetricsAddr == "" && localOnly {
		hopts.MetricsHandler = metrics
	}
	web, err := httpserver.New(srv, svc, hopts)
	if err == nil {
		err = web.CheckOAuth(e.ctx)
	}
	if err != nil {
		ln.Close()
		if oauth != nil {
			return fmt.Errorf("OAuth: %w", err)
		}
		return err
	}
	url := fmt.Sprintf("http://%s%s", ln.Addr(), httpserver.MCPPath)
	if c.Demo {
		base := publicURL
		if base == "" {
			base = "http://" + ln.Addr().String()
		}
		w, err := demo.SeedAt(e.ctx, svc, base)
		if err != nil {
			ln.Close()
			return err
		}
		account, clientURL := "", url
		if publicURL != "" {
			clientURL = httpserver.ResourceURL(publicURL) // what clients reach, behind a proxy too
		}
		if as != nil {
			account = publicURL + "/account"
		}
		printDemo(e, w, clientURL, account)
		printWindows(e, db, w, base, shop.Options.ShopDomain)
	}

	if as != nil {
		log.Info("serving OAuth sign-in", "issuer", publicURL, "account", publicURL+"/account")
		go as.PurgeEvery(e.ctx, time.Hour)
	}
	if c.PurgeEvery > 0 {
		go purgeEvery(e.ctx, svc.Purger(purgeHolder(), log), c.PurgeEvery, log)
	}
	// The main server's routes bound a body's time themselves (--body-timeout);
	// ReadTimeout is the backstop for the whole request, headers and
	// body. net/http lifts it once the body is read, so answers (event
	// streams) are not cut by it.
	front := &http.Server{Handler: web.Handler(), ReadHeaderTimeout: headerTimeout, IdleTimeout: 2 * time.Minute}
	if limits.BodyTimeout > 0 {
		front.ReadTimeout = headerTimeout + limits.BodyTimeout
	}
	servers := []*http.Server{front}
	listeners := []net.Listener{ln}
	if c.MetricsAddr != "" {
		mln, err := net.Listen("tcp", c.MetricsAddr)
		if err != nil {
			ln.Close()
			return err
		}
		mmux := http.NewServeMux()
		mmux.Handle("GET /metrics", metrics)
		servers = append(servers, &http.Server{Handler: mmux, ReadHeaderTimeout: headerTimeout, ReadTimeout: sideTimeout})
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
		servers = append(servers, &http.Server{Handler: pmux, ReadHeaderTimeout: headerTimeout, ReadTimeout: sideTimeout})
		listeners = append(listeners, pln)
		log.Info("serving the profiler", "url", fmt.Sprintf("http://%s/debug/pprof/", pln.Addr()))
	}
	switch {
	case c.MetricsAddr != "":
	case localOnly:
		log.Info("serving metrics on the main address, which only this machine reaches; a proxy in front would publish them: set --metrics-addr",
			"url", fmt.Sprintf("http://%s/metrics", ln.Addr()))
	default:
		log.Warn("metrics are not served: the main address is reachable beyond this machine, or through the proxy --public-url names; " +
			"set --metrics-addr to a private address (127.0.0.1:9090, say) to scrape them")
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
	return shutdown(log, web, servers, c.ShutdownTimeout)
}

// headerTimeout bounds the time a client takes to send a request's
// headers; sideTimeout the whole request to the metrics and profiler
// addresses, which take no body.
const (
	headerTimeout = 10 * time.Second
	sideTimeout   = 30 * time.Second
)

// shutdown stops accepting, lets the calls in flight finish within the
// timeout, then ends the sessions still open (their idle event streams
// would hold the HTTP server forever).
func shutdown(log interface{ Info(string, ...any) }, web *httpserver.Server, servers []*http.Server, timeout time.Duration) error {
	log.Info("shutting down", "timeout", timeout)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan error, len(servers))
	for _, hs := range servers {
		go func() { done <- hs.Shutdown(ctx) }()
	}
	drained := web.Shutdown(ctx)
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
	AuditFlags
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
	db, svc, closeDB, err := e.openServing(log, c.AuditFlags, store.Options{}, nil)
	if err != nil {
		return err
	}
	defer closeDB()
	// The token is checked while the server is built: neither waits for
	// the other, and agents start vitrine stdio at every conversation.
	var (
		caller  *vitrine.Caller
		authErr error
		authed  = make(chan struct{})
	)
	go func() {
		defer close(authed)
		caller, authErr = svc.Accounts().Authenticate(e.ctx, token)
	}()
	srv, err := mcpserver.New(svc, c.options(mcpserver.Options{Logger: log, SDKLogger: sdkLog, Version: Version, Token: token}))
	<-authed
	var ae *accounts.AuthError
	switch {
	case errors.As(authErr, &ae):
		return &usageError{"VITRINE_TOKEN was refused: " + ae.Reason}
	case authErr != nil:
		return authErr
	case err != nil:
		return err
	}
	log.Info("serving MCP over stdio", "user", caller.User.Email, "db", db.Dialect())
	gate := newStdioGate(e.ctx, e.stdin, c.CallTimeout+5*time.Second)
	err = srv.Run(e.ctx, &mcp.IOTransport{Reader: readCloser{gate}, Writer: writeCloser{gateWriter{e.stdout, gate}}})
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
// sooner when memory runs short. main sets it before anything else: the
// start of vitrine stdio, which agents pay at every conversation, collected
// twice before answering, and the other commands are short-lived.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

// facetMemory turns --facet-index-memory (MiB) into the store's bytes
// (below 0 for none) and what the store tells the bytes its indexes hold.
// Unless GOMEMLIMIT is set, that sets the server's soft memory limit to
// the bytes the indexes and their builds under way hold, and 64 MiB for
// the rest (the requests' garbage), at least 128 MiB: at GOGC=400 the heap
// would grow to five times what is live between collections, and a build
// of a large company (every row of a chunk read as strings) piled its
// garbage up to a limit of the indexes' whole budget and more.
func facetMemory(mib int64) (bytes int64, onBytes func(int64)) {
	if mib <= 0 {
		return -1, nil
	}
	if os.Getenv("GOMEMLIMIT") != "" {
		return mib << 20, nil
	}
	debug.SetMemoryLimit(softLimit(0))
	return mib << 20, func(n int64) { debug.SetMemoryLimit(softLimit(n)) }
}

// softLimit is the server's soft memory limit while its facet indexes
// and their builds hold indexBytes.
func softLimit(indexBytes int64) int64 { return max(indexBytes+64<<20, 128<<20) }
