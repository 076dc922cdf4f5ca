package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/vitrine/vitrine/cmd/vitrine-bench/internal/harness"
)

// catalogReport is what the catalog command measured.
type catalogReport struct {
	dialect     string
	server      string
	cpu         string
	gogc        string
	concurrency int
	duration    time.Duration
	// indexMemory is the server's --facet-index-memory, in MiB (0: its
	// default).
	indexMemory int64

	fills []fillResult
	// products and variants are the list's catalog's.
	products, variants int
	// indexWait is how long the benchmark waited, after its probes, for
	// the server to build the company's facet index.
	indexWait time.Duration
	// indexBuilt and rssIndexBuilt are the server's log lines of the
	// builds of the index (its products, bytes and time), of the reads'
	// catalog and of the memory's.
	indexBuilt, rssIndexBuilt string
	// indexOver is the server's log line saying the reads' index was over
	// its memory: the faceted lists were counted by the database.
	indexOver string

	names    []string
	measures map[string]*harness.Measure
	// matching is how many products each faceted list's filter matches;
	// bytes, the size of each scenario's result.
	matching map[string]int64
	bytes    map[string]int
	readsRSS int64
	// richTrips and singleTrips are the round trips to PostgreSQL per
	// get_product of each kind of product.
	richTrips, singleTrips float64

	imports []*importResult

	rssVariants int
	rssMix      *harness.Measure
	rss         int64
	// rssBuild is the peak RSS of the server as its index was built (one
	// faceted list having started it), before the mix.
	rssBuild int64
}

// fillResult is one fill of a company through the store.
type fillResult struct {
	what               string
	products, variants int
	elapsed            time.Duration
	rates              fillRates
	// load is the load average at its end (/proc/loadavg).
	load string
	// kept is when a run with --keep made it, if it was not this run.
	kept time.Time
}

func (r *catalogReport) add(name string, m *harness.Measure) {
	if r.measures == nil {
		r.measures = map[string]*harness.Measure{}
	}
	r.names = append(r.names, name)
	r.measures[name] = m
}

const scenarioHeader = "| scenario | calls/s | p50 | p99 | errors | server CPU a call | result | products matching |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"

// scenarioRow writes a scenario's row: size is its result's, in bytes (0:
// not measured), matching how many products its filter matches.
func scenarioRow(b *strings.Builder, name string, m *harness.Measure, size int, matching string) {
	errs := fmt.Sprint(m.Errors)
	if m.FirstErr != nil {
		errs += " (" + harness.Truncate(m.FirstErr.Error(), 60) + ")"
	}
	result := ""
	if size > 0 {
		result = fmt.Sprintf("%.1f KiB", float64(size)/1024)
	}
	fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", name, perSecond(m.PerSecond()), harness.MS(m.Percentile(.5)), harness.MS(m.Percentile(.99)), errs, micros(m.CPUPerCall()), result, matching)
}

// perSecond shows a rate: whole numbers, but for the slowest scenarios.
func perSecond(f float64) string {
	if f < 10 {
		return fmt.Sprintf("%.2f", f)
	}
	return fmt.Sprintf("%.0f", f)
}

func micros(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func (r *catalogReport) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## catalog, %s, %d sessions, %s a scenario\n\n", r.dialect, r.concurrency, r.duration)
	fmt.Fprintf(&b, "Measured %s on %d cores (%s), %s, %s. Server: %s, GOGC=%s.\n\n", time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), r.cpu, runtime.Version(),
		runtime.GOOS+"/"+runtime.GOARCH, r.server, r.gogc)
	if r.indexMemory != 0 {
		fmt.Fprintf(&b, "The server's --facet-index-memory: %d MiB. ", r.indexMemory)
	}
	fmt.Fprintf(&b, "Load average at the report: %s.\n\n", harness.LoadAverage())
	if r.products > 0 { // not --imports-only
		b.WriteString("Filled through the store: ")
		for i, f := range r.fills {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%s, %d products and %d variants in %s (%.0f variants/s", f.what, f.products, f.variants, f.elapsed.Round(time.Millisecond),
				float64(f.variants)/f.elapsed.Seconds())
			if f.rates.first > 0 && f.rates.last > 0 {
				fmt.Fprintf(&b, "; first tenth %.0f products/s, last %.0f, last/first %.2f", f.rates.first, f.rates.last, f.rates.last/f.rates.first)
			}
			if f.load != "" {
				fmt.Fprintf(&b, "; load average at its end %s", f.load)
			}
			if !f.kept.IsZero() {
				fmt.Fprintf(&b, "; kept (--keep), filled %s", f.kept.Format(time.RFC3339))
			}
			b.WriteString(")")
		}
		b.WriteString(".\n\n")

		fmt.Fprintf(&b, "### get_product and list_products (%d products, %d variants)\n\n", r.products, r.variants)
		b.WriteString(scenarioHeader)
		for _, name := range r.names {
			matching := ""
			if n := r.matching[name]; n > 0 {
				matching = fmt.Sprint(n)
			}
			scenarioRow(&b, name, r.measures[name], r.bytes[name], matching)
		}
		fmt.Fprintf(&b, "\nPeak RSS of the server: %s.", mib(r.readsRSS))
		switch {
		case r.indexOver != "":
			fmt.Fprintf(&b, " The company's facet index, built, was over the server's --facet-index-memory: the faceted lists were counted by the database (`%s`).", strings.TrimSpace(r.indexOver))
		case r.indexWait > 0:
			fmt.Fprintf(&b, " The faceted lists measured on the company's facet index, whose build a faceted list of no product started (waited for %s).", r.indexWait.Round(time.Millisecond))
		}
		if r.indexBuilt != "" {
			fmt.Fprintf(&b, " The server's log of the build: `%s`.", strings.TrimSpace(r.indexBuilt))
		}
		if r.richTrips > 0 {
			fmt.Fprintf(&b, " Round trips to PostgreSQL per get_product: %.2f (10 variants, 10 images), %.2f (1 variant).", r.richTrips, r.singleTrips)
		}
		b.WriteString("\n\n")
	}
	b.WriteString("### vitrine product import, the same products in each format, each into a new company\n\n")
	b.WriteString("| import | database | products | variants | file | time | variants/s | first / last products, variants/s | CPU of the import | its peak RSS | result |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, im := range r.imports {
		result := fmt.Sprintf("%d created, %d failed", im.created, im.failed)
		if im.err != nil {
			result = "error: " + im.err.Error()
		}
		db, rates := im.dialect, ""
		if im.login != "" {
			db += " (login " + im.login + ")"
		}
		if im.window > 0 {
			rates = fmt.Sprintf("%d: %.0f / %.0f", im.window, im.firstRate, im.lastRate)
		}
		fmt.Fprintf(&b, "| --format %s | %s | %d | %d | %s | %.2f s | %.0f | %s | %.2f s | %s | %s |\n", im.format, db, im.products, im.variants, mib(im.bytes),
			im.elapsed.Seconds(), im.perSecond(), rates, im.cpu.Seconds(), mib(im.maxRSS), result)
	}
	b.WriteString("\n")

	if r.rssMix != nil {
		fmt.Fprintf(&b, "### Memory (%d variants)\n\n", r.rssVariants)
		b.WriteString(scenarioHeader)
		scenarioRow(&b, scMix, r.rssMix, 0, "")
		fmt.Fprintf(&b, "\nPeak RSS of the server (VmHWM): %s; %s when its facet index was built, before the mix.", mib(r.rss), mib(r.rssBuild))
		if r.rssIndexBuilt != "" {
			fmt.Fprintf(&b, " The server's log of the build: `%s`.", strings.TrimSpace(r.rssIndexBuilt))
		}
		b.WriteString("\n\n")
	}
	b.WriteString(r.targets())
	return b.String()
}

func (r *catalogReport) targets() string {
	t := harness.NewTargets()
	row := t.Row
	single, rich := r.measures[scGetSingle], r.measures[scGetRich]
	if single != nil && rich != nil && single.PerSecond() > 0 {
		ratio := rich.PerSecond() / single.PerSecond()
		row("get_product of 10 variants and 10 images ≥ 0.8 × a one-variant get_product's calls/s",
			fmt.Sprintf("%.2f× (%.0f vs %.0f calls/s; server CPU a call %s vs %s)", ratio, rich.PerSecond(), single.PerSecond(), micros(rich.CPUPerCall()), micros(single.CPUPerCall())),
			ratio >= 0.8)
	}
	if r.richTrips > 0 {
		row("round trips to PostgreSQL per get_product of 10 variants and 10 images ≤ 1.1 (one)", fmt.Sprintf("%.2f (1 variant: %.2f)", r.richTrips, r.singleTrips), r.richTrips <= 1.1)
	}
	if plain := r.measures[scPlain]; plain != nil && plain.Calls > 0 {
		for _, name := range []string{scOptions, scTag, scQuery} {
			m := r.measures[name]
			if m == nil || m.Calls == 0 {
				continue
			}
			ratio := float64(m.Percentile(.5)) / float64(plain.Percentile(.5))
			cpu := ""
			if plain.CPUPerCall() > 0 {
				cpu = fmt.Sprintf("; server CPU a call %.2f× (%s vs %s)", float64(m.CPUPerCall())/float64(plain.CPUPerCall()), micros(m.CPUPerCall()), micros(plain.CPUPerCall()))
			}
			if base := r.measures[scQueryPage]; name == scQuery && base != nil && base.Calls > 0 {
				// What the facets add to the query's own page (issue 35:
				// a text query's facets cost what a filter's do).
				ratio := float64(m.Percentile(.5)) / float64(base.Percentile(.5))
				t.Row(fmt.Sprintf("%s p50 ≤ 1.5 × the same query without facets", name),
					fmt.Sprintf("%.2f× (%s vs %s)", ratio, harness.MS(m.Percentile(.5)), harness.MS(base.Percentile(.5))), ratio <= 1.5)
			}
			row(fmt.Sprintf("%s p50 ≤ 3 × a plain page of 50's (%d products)", name, r.products),
				fmt.Sprintf("%.2f× (%s vs %s; %s vs %s calls/s%s)", ratio, harness.MS(m.Percentile(.5)), harness.MS(plain.Percentile(.5)), perSecond(m.PerSecond()), perSecond(plain.PerSecond()), cpu), ratio <= 3)
		}
	}
	var jsonl, shop, sqliteJSONL *importResult
	for _, im := range r.imports {
		switch {
		case im.dialect != r.dialect:
			sqliteJSONL = im
		case im.format == "jsonl":
			jsonl = im
		case im.format == "shopify":
			shop = im
		}
	}
	if jsonl != nil && sqliteJSONL != nil && sqliteJSONL.perSecond() > 0 {
		ratio := jsonl.perSecond() / sqliteJSONL.perSecond()
		row(fmt.Sprintf("JSON Lines import on PostgreSQL (a login not a superuser) ≥ 0.5 × SQLite's variants/s (%d products, %d variants)", jsonl.products, jsonl.variants),
			fmt.Sprintf("%.2f× (%.0f vs %.0f variants/s)", ratio, jsonl.perSecond(), sqliteJSONL.perSecond()), ratio >= 0.5 && jsonl.err == nil && sqliteJSONL.err == nil)
	}
	if jsonl != nil && jsonl.firstRate > 0 {
		ratio := jsonl.lastRate / jsonl.firstRate
		row(fmt.Sprintf("JSON Lines import on PostgreSQL: its last %d products ≥ 0.8 × the rate of its first %d (linear)", jsonl.window, jsonl.window),
			fmt.Sprintf("%.2f× (%.0f vs %.0f variants/s)", ratio, jsonl.lastRate, jsonl.firstRate), ratio >= 0.8 && jsonl.err == nil)
	}
	if jsonl != nil && shop != nil && jsonl.perSecond() > 0 {
		ratio := shop.perSecond() / jsonl.perSecond()
		ok := ratio >= 0.5 && jsonl.err == nil && shop.err == nil
		row(fmt.Sprintf("Shopify CSV import ≥ 0.5 × the JSON Lines import's variants/s (%d variants)", shop.variants),
			fmt.Sprintf("%.2f× (%.0f vs %.0f variants/s)", ratio, shop.perSecond(), jsonl.perSecond()), ok)
	}
	if r.rssMix != nil {
		row(fmt.Sprintf("peak RSS of the server ≤ 200 MiB (%d variants)", r.rssVariants), mib(r.rss), r.rss <= 200<<20)
	}
	return t.String() + "\n"
}
