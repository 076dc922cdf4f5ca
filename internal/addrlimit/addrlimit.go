// Package addrlimit keeps a token bucket per key (a client's address, a
// token) in a table of bounded size that an attacker cannot empty: an
// entry is forgotten only once its bucket is full again, so that a key
// held back stays held back however many others come; when the table is
// full of keys still held back, new keys share one overflow bucket. IPv6
// addresses are counted by /64 (Key), the network one subscriber gets,
// so that one client does not get 2^64 buckets.
//
// Both the MCP endpoint's limits (httpserver) and the sign-in pages'
// (authserver) use it.
package addrlimit

import (
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultMax is the number of keys a table holds by default.
const DefaultMax = 10000

// sweepEvery bounds how often a full table looks for recovered entries:
// under a flood of new keys, each does not pay a scan of the table.
const sweepEvery = time.Second

// Table holds one bucket per key.
type Table struct {
	limit rate.Limit
	burst int
	max   int

	mu       sync.Mutex
	buckets  map[string]*rate.Limiter
	overflow *rate.Limiter
	swept    time.Time
}

// New returns a table of buckets that refill at limit a second, hold
// burst, and number at most size (DefaultMax when size <= 0).
func New(limit rate.Limit, burst, size int) *Table {
	if size <= 0 {
		size = DefaultMax
	}
	burst = max(burst, 1)
	return &Table{limit: limit, burst: burst, max: size, buckets: map[string]*rate.Limiter{},
		overflow: rate.NewLimiter(limit, burst)}
}

// Wait takes one request of key at now: it returns 0 when the request may
// go ahead (and counts it), or how long the key must wait for its next
// one (and counts nothing).
func (t *Table) Wait(key string, now time.Time) time.Duration { return t.WaitN(key, now, 1) }

// WaitN takes n requests of key at once (the calls of one JSON-RPC batch),
// all or none: it returns 0 when they may go ahead (and counts them), or
// how long the key must wait before they may (and counts nothing). n past
// the burst never may: WaitN then returns rate.InfDuration.
func (t *Table) WaitN(key string, now time.Time, n int) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	lim := t.bucket(key, now)
	res := lim.ReserveN(now, n)
	if !res.OK() {
		return rate.InfDuration
	}
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return d
	}
	return 0
}

// Allow reports whether key may make a request at now, counting it.
func (t *Table) Allow(key string, now time.Time) bool { return t.Wait(key, now) == 0 }

// Len is the number of keys the table holds (not the overflow's).
func (t *Table) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.buckets)
}

// bucket returns key's bucket; t.mu is held.
func (t *Table) bucket(key string, now time.Time) *rate.Limiter {
	if lim, ok := t.buckets[key]; ok {
		return lim
	}
	if len(t.buckets) >= t.max && now.Sub(t.swept) >= sweepEvery {
		t.swept = now
		for k, lim := range t.buckets {
			if lim.TokensAt(now) >= float64(t.burst) {
				delete(t.buckets, k) // recovered: a new bucket would be the same
			}
		}
	}
	if len(t.buckets) >= t.max {
		return t.overflow
	}
	lim := rate.NewLimiter(t.limit, t.burst)
	t.buckets[key] = lim
	return lim
}

// Key is what an address is counted under: an IPv4 address (also written
// as IPv6, ::ffff:a.b.c.d) by itself, an IPv6 address by its /64; a string
// that is no address, as it is.
func Key(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}
