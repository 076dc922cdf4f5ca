package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/vitrine/vitrine/cmd/vitrine-bench/internal/harness"
)

type report struct {
	dialect     string
	server      string // the version line of the vitrine measured
	concurrency int
	protocol    string // the revision the clients asked for; "" for the go-sdk's newest
	gogc        string // the GOGC of every Go process measured
	idle        int    // the idle sessions each server held
	duration    time.Duration
	cpu         string
	sizes       []*sizeResult
}

type sizeResult struct {
	size     int
	ready    time.Duration
	rss      int64
	names    []string
	measures map[string]*harness.Measure
	// getTrips and createTrips are the round trips to PostgreSQL per call.
	getTrips, createTrips float64
	// stdio and stdioBare are the medians of exec to an answered
	// initialize: vitrine stdio, and a bare go-sdk stdio server.
	stdio, stdioBare time.Duration
}

// get returns a scenario's measure, if it ran.
func (s *sizeResult) get(name string) (*harness.Measure, bool) {
	m, ok := s.measures[name]
	return m, ok && m.Elapsed > 0
}

func (s *sizeResult) add(name string, m *harness.Measure) {
	if s.measures == nil {
		s.measures = map[string]*harness.Measure{}
	}
	s.names = append(s.names, name)
	s.measures[name] = m
}

// ceilingOf names the ceiling a scenario is measured against.
func ceilingOf(name string) string {
	switch name {
	case "get_product", "get_product (durable audit)":
		return "noop (protocol ceiling)"
	case "import_products (1000 rows)":
		return "import_products (storage ceiling: batched insert)"
	}
	return name + " (storage ceiling)"
}

func (r *report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s, %d sessions, %s a scenario\n\n", r.dialect, r.concurrency, r.duration)
	fmt.Fprintf(&b, "Measured %s on %d cores (%s), %s, %s.\n\n", time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), r.cpu, runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH)
	fmt.Fprintf(&b, "Server: %s. GOGC=%s for the server and the go-sdk ceilings alike.", r.server, r.gogc)
	protocol := r.protocol
	if protocol == "" {
		protocol = "2026-07-28, the go-sdk's newest"
	}
	fmt.Fprintf(&b, " Clients ask for MCP %s; the protocol ceiling serves it as the revision requires (sessionless: the SDK's stateless handler), and the session ceiling beside it serves every call in a session.", protocol)
	if r.idle > 0 {
		fmt.Fprintf(&b, " vitrine serve (with --sessions-per-user 0) and the protocol ceiling each held %d idle sessions of 2025-11-25 throughout (the durable-audit server, none).", r.idle)
	}
	b.WriteString("\n\n")
	for _, s := range r.sizes {
		fmt.Fprintf(&b, "### %d products\n\n", s.size)
		b.WriteString("| scenario | calls/s | rows/s | p50 | p99 | errors | vs its ceiling | server CPU a call |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		for _, name := range s.names {
			m, ran := s.get(name)
			if !ran {
				continue
			}
			rows := ""
			if m.Rows > 0 {
				rows = fmt.Sprintf("%.0f", m.PerSecond()*float64(m.Rows))
			}
			ratio := ""
			if c, ok := s.get(ceilingOf(name)); ok && !strings.Contains(name, "ceiling") && c.PerSecond() > 0 {
				ratio = fmt.Sprintf("%.0f%% of calls/s", 100*m.PerSecond()/c.PerSecond())
			}
			errs := fmt.Sprint(m.Errors)
			if m.FirstErr != nil {
				errs += " (" + harness.Truncate(m.FirstErr.Error(), 60) + ")"
			}
			cpu := ""
			if m.ServerCPU > 0 {
				cpu = fmt.Sprintf("%.0f µs", float64(m.CPUPerCall())/float64(time.Microsecond))
			}
			fmt.Fprintf(&b, "| %s | %.0f | %s | %s | %s | %s | %s | %s |\n", name, m.PerSecond(), rows, harness.MS(m.Percentile(.5)), harness.MS(m.Percentile(.99)), errs, ratio, cpu)
		}
		fmt.Fprintf(&b, "\nPeak RSS of the server: %.1f MiB. Start to ready: %s.", float64(s.rss)/(1<<20), harness.MS(s.ready))
		if s.stdio > 0 {
			fmt.Fprintf(&b, " vitrine stdio, exec to initialize answered (median of 10): %s; bare go-sdk stdio server: %s.", harness.MS(s.stdio), harness.MS(s.stdioBare))
		}
		if s.getTrips > 0 {
			fmt.Fprintf(&b, " Round trips to PostgreSQL per get_product: %.2f; per create_product: %.2f.", s.getTrips, s.createTrips)
		}
		b.WriteString("\n\n")
	}
	b.WriteString(r.targets())
	return b.String()
}

func (r *report) targets() string {
	t := harness.NewTargets()
	row := t.Row
	small, large := r.sizes[0], r.sizes[len(r.sizes)-1]
	want := 0.85
	if r.dialect == "postgres" {
		want = 0.75
	}
	for _, s := range r.sizes {
		g, ok1 := s.get("get_product")
		n, ok2 := s.get("noop (protocol ceiling)")
		if !ok1 || !ok2 {
			continue
		}
		ratio := g.PerSecond() / n.PerSecond()
		measured := fmt.Sprintf("%.0f%% (%.0f of %.0f)", 100*ratio, g.PerSecond(), n.PerSecond())
		if d, ok := s.get("get_product (durable audit)"); ok {
			measured += fmt.Sprintf("; with --audit-reads=durable %.0f%%", 100*d.PerSecond()/n.PerSecond())
		}
		if st, ok := s.get("noop, in sessions (session ceiling)"); ok {
			measured += fmt.Sprintf("; of the session ceiling %.0f%%", 100*g.PerSecond()/st.PerSecond())
		}
		row(fmt.Sprintf("get_product ≥ %.0f%% of the no-op ceiling's calls/s (%d products)", 100*want, s.size), measured, ratio >= want)
		if ts, ok := s.get("get_product (TypeScript SDK ceiling)"); ok {
			ratio := g.PerSecond() / ts.PerSecond()
			row(fmt.Sprintf("get_product ≥ 1.0 × the bare TypeScript SDK lookup's calls/s (%d products)", s.size),
				fmt.Sprintf("%.2f× (%.0f of %.0f)", ratio, g.PerSecond(), ts.PerSecond()), ratio >= 1)
		}
		if l, ok1 := s.get("list_products page 1"); ok1 {
			if p, ok2 := s.get("list_products page 1 (bare go-sdk page ceiling)"); ok2 {
				ratio := l.PerSecond() / p.PerSecond()
				row(fmt.Sprintf("list_products page of 50 ≥ 85%% of a bare go-sdk tool returning the same page (%d products)", s.size),
					fmt.Sprintf("%.0f%% (%.0f of %.0f)", 100*ratio, l.PerSecond(), p.PerSecond()), ratio >= 0.85)
			}
		}
		if s.getTrips > 0 {
			row(fmt.Sprintf("round trips per get_product ≤ 1.1, per create_product ≤ 3 (%d products)", s.size),
				fmt.Sprintf("%.2f, %.2f", s.getTrips, s.createTrips), s.getTrips <= 1.1 && s.createTrips <= 3)
		}
		if s.stdio > 0 {
			ratio := float64(s.stdio) / float64(s.stdioBare)
			row(fmt.Sprintf("vitrine stdio exec → initialize ≤ 2 × a bare go-sdk stdio server (%d products)", s.size),
				fmt.Sprintf("%.2f× (%s vs %s)", ratio, harness.MS(s.stdio), harness.MS(s.stdioBare)), ratio <= 2)
		}
	}
	deep, ok1 := large.get("list_products page 1000")
	first, ok2 := small.get("list_products page 1")
	if ok1 && ok2 {
		ratio := float64(deep.Percentile(.5)) / float64(first.Percentile(.5))
		row(fmt.Sprintf("list_products p50, page 1,000 of %d ≤ 1.3 × page 1 of %d", large.size, small.size),
			fmt.Sprintf("%.2f× (%s vs %s)", ratio, harness.MS(deep.Percentile(.5)), harness.MS(first.Percentile(.5))), ratio <= 1.3)
	}
	if g, ok := large.get("get_product"); ok {
		get := g.Percentile(.5)
		for _, c := range []struct {
			name  string
			limit float64
		}{{"search, rare word", 2}, {"search, word in 10%", 20}} {
			m, ok := large.get(c.name)
			if !ok {
				continue
			}
			p := m.Percentile(.5)
			ratio := float64(p) / float64(get)
			row(fmt.Sprintf("%s p50 ≤ %.0f × get_product p50 (%d products)", c.name, c.limit, large.size),
				fmt.Sprintf("%.2f× (%s vs %s)", ratio, harness.MS(p), harness.MS(get)), ratio <= c.limit)
		}
	}
	for _, s := range r.sizes {
		imp, ok1 := s.get("import_products (1000 rows)")
		ceil, ok2 := s.get("import_products (storage ceiling: batched insert)")
		if !ok1 || !ok2 {
			continue
		}
		ratio := imp.PerSecond() / ceil.PerSecond()
		row(fmt.Sprintf("import_products rows/s ≥ 50%% of the batched insert's (%d products)", s.size),
			fmt.Sprintf("%.0f%% (%.0f vs %.0f rows/s)", 100*ratio, imp.PerSecond()*1000, ceil.PerSecond()*1000), ratio >= 0.5)
	}
	row(fmt.Sprintf("peak RSS ≤ 150 MiB (%d products)", large.size), fmt.Sprintf("%.1f MiB", float64(large.rss)/(1<<20)), large.rss <= 150<<20)
	row(fmt.Sprintf("start to ready ≤ 300 ms (%d products)", large.size), harness.MS(large.ready), large.ready <= 300*time.Millisecond)
	return t.String() + "\n"
}
