package store_test

import (
	"context"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/store"
)

// The Spanish of the text query benchmark's nouns, in qbNouns' order.
// "Poltrona" is "butaca", not "sillón": sillón's stem starts with silla's
// ("sill"), and the query in es would then match twice the products the
// query in pt-BR does (9,987 against 5,022 at 100,000 products), which
// costs as much in either language (the same walk with a pt-BR query of
// two nouns' matches: 22.9 against 14.0 ms); each language's nouns stand
// apart, so the two queries compare the locale, not the matches.
var qbNounsES = strings.Fields("silla mesa lámpara alfombra estantería butaca sofá cortina espejo florero reloj cuadro cojín taburete cómoda percha repisa papelera baúl escritorio")

// BenchmarkTranslations measures, on the text query benchmark's catalog of
// TRANSLATION_BENCH_PRODUCTS products (default 2,000; issue 47 asks
// 100,000) in a company of three locales (pt-BR, es, en), every product's
// name and description translated into es and en, and every field of half
// of them into es: a text query in es (its translated words) against the
// same query in the default locale (as list_products asks it, and as the
// window's search_catalog does: active products within a price, a page of
// 10), and list_products {untranslated: es} with four facets against a
// plain page. The lists are timed alternately,
// their p50s over the run reported, and the ratios issue 47 bounds (≤ 1.2,
// ≤ 3) as metrics of the run: read them from one run (-count 1; the fill
// is most of the time). TRANSLATION_BENCH_CPUPROFILE=file profiles the
// lists alone.
func BenchmarkTranslations(b *testing.B) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("TRANSLATION_BENCH_PRODUCTS")); err == nil && v > 0 {
		n = v
	}
	facets := []vitrine.FacetName{vitrine.FacetVendor, vitrine.FacetTags, vitrine.FacetOptions, vitrine.FacetStatus}
	for _, d := range dbtest.Dialects() {
		b.Run(d.Name, func(b *testing.B) {
			db := dbtest.Open(b, d.URL(b))
			big := benchTenant(b, db, "big")
			tn, err := db.TenantByID(ctx, big)
			if err != nil {
				b.Fatal(err)
			}
			tn.Locales = []string{"pt-BR", "es", "en"}
			if err := db.UpdateTenant(ctx, testChange, tn); err != nil {
				b.Fatal(err)
			}
			fillQueryBench(b, db, big, n)
			translateQueryBench(b, db, big)
			if _, err := db.FindProducts(ctx, big, filterOf(vitrine.ProductQuery{Facets: facets, Sort: vitrine.SortName}, 51)); err != nil {
				b.Fatal(err)
			}
			db.WaitIndexes()
			// The lists are timed alternately, one of each a round,
			// so the machine's load, shared with other work, weighs on
			// each ratio's two lists alike (timed one list after the
			// other, each saw the load of its own seconds: a plain page's
			// p50 moved 4× between two runs at load 1 and 5).
			queries := []vitrine.ProductQuery{
				{Query: "cadeira"},
				{Query: "silla", Locale: "es"},
				{Sort: vitrine.SortName},
				{Sort: vitrine.SortName, Untranslated: "es", Facets: facets},
				// The window's search_catalog of vitrine-bench shop: active
				// products within a price, a page of 10.
				{Query: "cadeira", Status: vitrine.ProductActive, MaxPrice: "500.00", Currency: "BRL"},
				{Query: "silla", Locale: "es", Status: vitrine.ProductActive, MaxPrice: "500.00", Currency: "BRL"},
			}
			p50s := func(rounds int) []time.Duration {
				took := make([][]time.Duration, len(queries))
				for range rounds {
					for i, q := range queries {
						f := filterOf(q, 51)
						if q.MaxPrice != "" {
							f = filterOf(q, 11)
						}
						var found *vitrine.FoundProducts
						var err error
						start := time.Now()
						// Labelled by the list's place: go tool pprof
						// -tagfocus list=5 shows one list's profile.
						pprof.Do(ctx, pprof.Labels("list", strconv.Itoa(i)), func(ctx context.Context) {
							found, err = db.FindProducts(ctx, big, f)
						})
						if err != nil {
							b.Fatal(err)
						}
						took[i] = append(took[i], time.Since(start))
						if len(found.Products) == 0 {
							b.Fatalf("%+v found nothing", q)
						}
					}
				}
				out := make([]time.Duration, len(queries))
				for i, ds := range took {
					slices.Sort(ds)
					out[i] = ds[len(ds)/2]
				}
				return out
			}
			if path := os.Getenv("TRANSLATION_BENCH_CPUPROFILE"); path != "" {
				// The lists alone profiled, not the fill.
				out, err := os.Create(path)
				if err != nil {
					b.Fatal(err)
				}
				if err := pprof.StartCPUProfile(out); err != nil {
					b.Fatal(err)
				}
				p50s(500)
				pprof.StopCPUProfile()
				out.Close()
			}
			for b.Loop() {
				p := p50s(200)
				def, es, plain, untr, shopDef, shopES := p[0], p[1], p[2], p[3], p[4], p[5]
				b.ReportMetric(float64(shopES)/float64(shopDef), "window-query-es/default")
				b.ReportMetric(float64(def.Microseconds()), "µs-query-default-p50")
				b.ReportMetric(float64(es.Microseconds()), "µs-query-es-p50")
				b.ReportMetric(float64(es)/float64(def), "query-es/default")
				b.ReportMetric(float64(plain.Microseconds()), "µs-plain-p50")
				b.ReportMetric(float64(untr.Microseconds()), "µs-untranslated-facets-p50")
				b.ReportMetric(float64(untr)/float64(plain), "untranslated-facets/plain")
			}
		})
	}
}

// translateQueryBench translates every product's name and description of
// the company into es and en, and every other field of half of them into
// es, a thousand products a write.
func translateQueryBench(b *testing.B, db *store.DB, tenantID string) {
	f := filterOf(vitrine.ProductQuery{Sort: vitrine.SortName}, 1000)
	var after *vitrine.ProductKey
	for i := 0; ; {
		found, err := db.FindProducts(ctx, tenantID, f.Page(1000, after))
		if err != nil {
			b.Fatal(err)
		}
		var ts []*vitrine.Translation
		for k, p := range found.Products {
			es := p.Name
			for j, noun := range qbNouns {
				if after, ok := strings.CutPrefix(strings.ToLower(es), noun+" "); ok {
					es = qbNounsES[j] + " " + after
					break
				}
			}
			add := func(locale, field, value, source string) {
				ts = append(ts, tr(vitrine.TranslateProduct, p.ID, locale, field, value, source))
			}
			add("es", vitrine.FieldName, es, p.Name)
			add("es", vitrine.FieldDescription, "Hecho a mano. "+p.Description, p.Description)
			add("en", vitrine.FieldName, "EN "+p.Name, p.Name)
			add("en", vitrine.FieldDescription, "Handmade. "+p.Description, p.Description)
			if (i+k)%2 == 0 {
				for _, tf := range p.TranslatableFields() {
					if tf.Field != vitrine.FieldName && tf.Field != vitrine.FieldDescription {
						add("es", tf.Field, tf.Source+"-es", tf.Source)
					}
				}
			}
		}
		if err := db.SaveTranslations(ctx, testChange, tenantID, ts); err != nil {
			b.Fatal(err)
		}
		i += len(found.Products)
		if len(found.Products) < 1000 {
			return
		}
		after = &found.Keys[len(found.Keys)-1]
	}
}
