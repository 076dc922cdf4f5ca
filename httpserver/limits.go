package httpserver

import (
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vitrine/vitrine/internal/addrlimit"
	"golang.org/x/time/rate"
)

// Limits bound what one client may ask of an HTTP server. A zero rate or
// count disables that limit. They hold per instance: behind a load
// balancer, each instance counts its own.
type Limits struct {
	// IPRate and IPBurst bound the requests of one remote address, before
	// any token is read (per second, and at once).
	IPRate  float64
	IPBurst int
	// TokenRate and TokenBurst bound the requests made with one token.
	TokenRate  float64
	TokenBurst int
	// TokenConcurrency bounds the requests (POSTs) of one token in flight.
	TokenConcurrency int
	// MaxBodyBytes bounds a request body; 0 keeps the SDK's 4 MiB.
	MaxBodyBytes int64
	// BodyTimeout bounds the time a client may take to send a body.
	BodyTimeout time.Duration
	// AllowedOrigins are the browser origins (scheme://host[:port]) whose
	// requests are served; other cross-origin requests are refused
	// (DNS-rebinding protection). Unset, same-origin requests pass, and on
	// a loopback listener those of loopback origins too (a page the
	// person runs on their machine). When set, only these origins pass,
	// wherever the server listens.
	AllowedOrigins []string
	// TrustedProxies are the networks of the reverse proxies whose
	// X-Forwarded-For is believed: a request from one of them counts
	// against the address of the client the proxies name, not the proxy's.
	TrustedProxies []netip.Prefix
	// SessionsPerUser bounds the sessions one user holds on this instance;
	// past it, the user's least recently used idle session is closed.
	SessionsPerUser int
}

// DefaultLimits are generous for agents and tight for floods.
var DefaultLimits = Limits{
	IPRate: 200, IPBurst: 400,
	TokenRate: 50, TokenBurst: 100,
	TokenConcurrency: 16,
	MaxBodyBytes:     4 << 20,
	BodyTimeout:      30 * time.Second,
	SessionsPerUser:  20,
}

// limiter holds the rate limiters and in-flight counts by key.
type limiter struct {
	cfg     Limits
	metrics *metrics

	// ips and tokens are nil when their limit is off.
	ips, tokens *addrlimit.Table

	mu       sync.Mutex
	inFlight map[string]int
}

func newLimiter(cfg Limits, m *metrics) *limiter {
	l := &limiter{cfg: cfg, metrics: m, inFlight: map[string]int{}}
	if cfg.IPRate > 0 {
		l.ips = addrlimit.New(rate.Limit(cfg.IPRate), cfg.IPBurst, 0)
	}
	if cfg.TokenRate > 0 {
		l.tokens = addrlimit.New(rate.Limit(cfg.TokenRate), cfg.TokenBurst, 0)
	}
	return l
}

// wait returns how long the key must wait before its next n requests, or
// 0 to go ahead now.
func (l *limiter) wait(table *addrlimit.Table, key string, n int) time.Duration {
	if table == nil {
		return 0
	}
	return table.WaitN(key, time.Now(), n)
}

// acquire counts n calls of the token in flight, refusing them past the cap.
func (l *limiter) acquire(token string, n int) bool {
	if l.cfg.TokenConcurrency <= 0 {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight[token]+n > l.cfg.TokenConcurrency {
		return false
	}
	l.inFlight[token] += n
	return true
}

func (l *limiter) release(token string, n int) {
	if l.cfg.TokenConcurrency <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight[token] -= n; l.inFlight[token] <= 0 {
		delete(l.inFlight, token)
	}
}

// maxBatch is the most calls one request of a token may carry: what its
// burst and its cap on calls in flight both allow (0: no bound).
func (l *limiter) maxBatch() int {
	n := 0
	if l.tokens != nil {
		n = max(l.cfg.TokenBurst, 1)
	}
	if c := l.cfg.TokenConcurrency; c > 0 && (n == 0 || c < n) {
		n = c
	}
	return n
}

// tooMany answers 429 with the seconds to wait.
func (l *limiter) tooMany(w http.ResponseWriter, limit string, after time.Duration) {
	l.metrics.limited.WithLabelValues(limit).Inc()
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(max(after, time.Second).Seconds()))))
	writeJSON(w, http.StatusTooManyRequests, map[string]string{"error": "rate_limited",
		"error_description": "too many requests (" + limit + "); retry after the time in Retry-After"})
}

// everyRequest is what comes before every route, the authorization
// server's included, in order: the per-address rate limit (before any
// token is read, so that a flood costs no database work), then the body
// bounds.
func (l *limiter) everyRequest(next http.Handler) http.Handler {
	return l.byIP(l.boundBody(next))
}

// checkOrigin refuses cross-origin browser requests (originAllowed).
func (l *limiter) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !l.originAllowed(r) {
			http.Error(w, "Forbidden: cross-origin request from "+r.Header.Get("Origin"), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// byIP applies the per-address rate limit.
func (l *limiter) byIP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d := l.wait(l.ips, addrlimit.Key(l.clientAddr(r)), 1); d > 0 {
			l.tooMany(w, "ip", d)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// boundBody bounds a request body's size and the time to send it. The
// time is a read deadline on the connection, lifted once the body is read
// (net/http lifts it too, once a request's body is done), so that the
// answer may stream for as long as it takes.
func (l *limiter) boundBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			if l.cfg.MaxBodyBytes > 0 {
				r.Body = http.MaxBytesReader(w, r.Body, l.cfg.MaxBodyBytes)
			}
			if l.cfg.BodyTimeout > 0 {
				rc := http.NewResponseController(w)
				if err := rc.SetReadDeadline(time.Now().Add(l.cfg.BodyTimeout)); err == nil {
					r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// byToken applies the per-token rate limit and concurrency cap to a
// request that carries calls calls: each message of a JSON-RPC batch counts
// as a request of its own, since the SDK runs them as if each had come
// alone (at once, and on MCP 2025-03-26, whose clients may batch, whatever
// the session negotiated). A batch of more calls than the token may send at
// once is refused whole, 400, naming the bound: waiting would not help it.
func (l *limiter) byToken(token string, calls int, w http.ResponseWriter, r *http.Request, next http.Handler) {
	if most := l.maxBatch(); most > 0 && calls > most {
		l.metrics.limited.WithLabelValues("batch").Inc()
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request",
			"error_description": fmt.Sprintf("a batch of %d calls is more than the %d one token may send at once; send them in smaller batches", calls, most)})
		return
	}
	if d := l.wait(l.tokens, token, calls); d > 0 {
		l.tooMany(w, "token", d)
		return
	}
	if r.Method == http.MethodPost {
		if !l.acquire(token, calls) {
			l.tooMany(w, "concurrency", time.Second)
			return
		}
		defer l.release(token, calls)
	}
	next.ServeHTTP(w, r)
}

// originAllowed refuses the requests of browsers from other origins.
// Requests without an Origin header (every non-browser client) pass. With
// AllowedOrigins, only those origins pass: a Host header is the client's
// to write, so "same origin" proves nothing then. Without, same-origin
// requests pass, and on a loopback listener those of a loopback origin
// (http://localhost:5173, say): a page elsewhere on the web is refused
// there as anywhere (the SDK also refuses, on loopback, requests for
// another Host).
func (l *limiter) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if len(l.cfg.AllowedOrigins) > 0 {
		return slices.Contains(l.cfg.AllowedOrigins, origin)
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if u.Host == r.Host {
		return true
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	ip, _, err := net.SplitHostPort(local.String())
	return err == nil && net.ParseIP(ip).IsLoopback() && isLoopback(u.Hostname())
}

// clientAddr is the address the per-address limit counts a request
// against: its TCP peer, unless the peer is a trusted proxy; then, reading
// X-Forwarded-For from the right, the first address that is not one.
func (l *limiter) clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil || !l.trusted(addr) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a hop that is no address: believe nothing further left
		}
		if !l.trusted(hop) {
			return hop.String()
		}
		addr = hop
	}
	return addr.String()
}

func (l *limiter) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range l.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// deadlineBody lifts the read deadline once the whole body is read, so
// that a long answer streamed back (SSE) is not cut by it. A body that
// fails keeps it: the server then gives up on the connection instead of
// waiting for the rest.
type deadlineBody struct {
	ReadCloser io.ReadCloser
	rc         *http.ResponseController
	done       bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

func (b *deadlineBody) Close() error { return b.ReadCloser.Close() }
