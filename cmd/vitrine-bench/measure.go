package main

import (
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"
)

// measure is what one scenario did.
type measure struct {
	calls     int
	errors    int
	firstErr  error
	elapsed   time.Duration
	latencies []time.Duration
	rows      int // rows per call, for imports
	// serverCPU is the CPU time the answering process spent over the
	// scenario, user and system, all threads (0 when not read).
	serverCPU time.Duration
}

// cpuPerCall is the answering process's CPU time per call.
func (m *measure) cpuPerCall() time.Duration {
	if m.calls == 0 {
		return 0
	}
	return m.serverCPU / time.Duration(m.calls)
}

func (m *measure) perSecond() float64 { return float64(m.calls) / m.elapsed.Seconds() }

func (m *measure) percentile(p float64) time.Duration {
	if len(m.latencies) == 0 {
		return 0
	}
	return m.latencies[min(len(m.latencies)-1, int(p*float64(len(m.latencies))))]
}

// measureFor runs op on c workers for d and gathers its latencies.
func measureFor(c int, d time.Duration, op func(worker int, rng *rand.Rand) error) *measure {
	var (
		mu  sync.Mutex
		m   measure
		wg  sync.WaitGroup
		end = time.Now().Add(d)
	)
	start := time.Now()
	for i := range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			var lat []time.Duration
			errs := 0
			var first error
			for time.Now().Before(end) {
				t := time.Now()
				if err := op(i, rng); err != nil {
					errs++
					if first == nil {
						first = err
					}
					continue
				}
				lat = append(lat, time.Since(t))
			}
			mu.Lock()
			m.latencies = append(m.latencies, lat...)
			m.errors += errs
			if m.firstErr == nil {
				m.firstErr = first
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	m.elapsed = time.Since(start)
	m.calls = len(m.latencies)
	slices.Sort(m.latencies)
	return &m
}

// bearer is an HTTP transport that sends a bearer token.
type bearer string

// benchTransport keeps a connection per session alive (the default keeps
// two per host, and would measure TCP handshakes instead of calls).
var benchTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 256
	return t
}()

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return benchTransport.RoundTrip(r)
}
