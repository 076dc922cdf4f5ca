package harness

import (
	"context"
	"math/rand/v2"
	"os/exec"
	"slices"
	"sync"
	"time"
)

// Measure is what one scenario did.
type Measure struct {
	Calls     int
	Errors    int
	FirstErr  error
	Elapsed   time.Duration
	Latencies []time.Duration // of the calls that did not fail, sorted
	Rows      int             // rows per call, for imports
	// ServerCPU is the CPU time the answering process spent over the
	// scenario, user and system, all threads (0 when not read).
	ServerCPU time.Duration
}

// CPUPerCall is the answering process's CPU time per call.
func (m *Measure) CPUPerCall() time.Duration {
	if m.Calls == 0 {
		return 0
	}
	return m.ServerCPU / time.Duration(m.Calls)
}

// PerSecond is the calls that did not fail a second.
func (m *Measure) PerSecond() float64 { return float64(m.Calls) / m.Elapsed.Seconds() }

// Percentile is the latency below which p (0 to 1) of the calls took.
func (m *Measure) Percentile(p float64) time.Duration {
	if len(m.Latencies) == 0 {
		return 0
	}
	return m.Latencies[min(len(m.Latencies)-1, int(p*float64(len(m.Latencies))))]
}

// MeasureFor runs op on c workers for d and gathers its latencies.
func MeasureFor(c int, d time.Duration, op func(worker int, rng *rand.Rand) error) *Measure {
	var (
		mu  sync.Mutex
		m   Measure
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
			m.Latencies = append(m.Latencies, lat...)
			m.Errors += errs
			if m.FirstErr == nil {
				m.FirstErr = first
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	m.Elapsed = time.Since(start)
	m.Calls = len(m.Latencies)
	slices.Sort(m.Latencies)
	return &m
}

// Server is the process that answers a scenario's calls, and the profiler
// it serves (with --profile).
type Server struct {
	Proc      *exec.Cmd // nil for a scenario run in this process (a storage ceiling)
	PprofAddr string    // "" for none
}

// MeasureServer runs op as MeasureFor does, reading the CPU time of the
// server's process before and after; with a profiler, it writes the
// process's CPU profile over the scenario to profile (none when it is "").
// A profile that could not be written is the error; the measure stands all
// the same.
func MeasureServer(ctx context.Context, s Server, profile string, c int, d time.Duration, op func(worker int, rng *rand.Rand) error) (*Measure, error) {
	var saved chan error
	if s.PprofAddr != "" && profile != "" {
		saved = make(chan error, 1)
		go func() { saved <- SaveProfile(ctx, s.PprofAddr, d, profile) }()
	}
	before := CPUTime(s.Proc)
	m := MeasureFor(c, d, op)
	if before >= 0 {
		m.ServerCPU = CPUTime(s.Proc) - before
	}
	if saved != nil {
		return m, <-saved
	}
	return m, nil
}
