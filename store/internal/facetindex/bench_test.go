package facetindex

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/vitrine/vitrine"
)

// The catalog of bin/vitrine-bench catalog (cmd/vitrine-bench/catalogfill.go):
// products of three variants (3 of 5 sizes in one of 8 colors), a vendor
// of 50, a type of 20 nouns, 3 tags of 100, a leaf of a tree of 30
// categories, one in five on sale, most active; and the words its store
// indexes for them (store/internal/catalog/products.go, words).
var (
	bNouns      = strings.Fields("cadeira mesa luminária tapete estante poltrona sofá cortina espelho vaso relógio quadro almofada banqueta cômoda cabide prateleira lixeira baú escrivaninha")
	bAdjectives = strings.Fields("azul verde rústico moderno compacto dobrável clássico industrial escandinavo minimalista grande pequeno alto baixo redondo quadrado")
	bMaterials  = strings.Fields("madeira metal vidro bambu couro linho algodão mármore cerâmica acrílico palha veludo")
	bSizes      = []string{"XS", "S", "M", "L", "XL"}
	bColors     = []string{"Azul", "Verde", "Preto", "Branco", "Cinza", "Vermelho", "Bege", "Marrom"}
	bRoots      = []string{"Casa", "Escritório", "Jardim", "Roupas", "Infantil"}
)

// benchCatalog generates the catalog's products, and holds the words of
// its vocabulary folded once (as the store's search column holds them).
type benchCatalog struct {
	rng    *rand.Rand
	words  map[string][]string
	names  map[string]string // the names' keys, folded once
	leaves []Category
	tree   []Category
}

func newBenchCatalog() *benchCatalog {
	c := &benchCatalog{rng: rand.New(rand.NewPCG(3, 4)), words: map[string][]string{}, names: map[string]string{}}
	for i, root := range bRoots {
		r := Category{ID: benchID(1<<40 + i*10), Name: root}
		c.tree = append(c.tree, r)
		for j := range 5 {
			l := Category{ID: benchID(1<<40 + i*10 + j + 1), ParentID: r.ID, Name: fmt.Sprintf("%s %d", root, j+1)}
			c.tree = append(c.tree, l)
			c.leaves = append(c.leaves, l)
		}
	}
	return c
}

func benchID(i int) string { return fmt.Sprintf("0190f000-0000-7000-8000-%012x", i) }

func (c *benchCatalog) fold(s string) []string {
	w, ok := c.words[s]
	if !ok {
		w = vitrine.Words(s)
		c.words[s] = w
	}
	return w
}

func (c *benchCatalog) product(i int) *Product {
	rng := c.rng
	sku := fmt.Sprintf("C%07d", i)
	noun, adj, mat := bNouns[rng.IntN(len(bNouns))], bAdjectives[rng.IntN(len(bAdjectives))], bMaterials[rng.IntN(len(bMaterials))]
	status := vitrine.ProductActive
	switch n := rng.IntN(20); {
	case n < 2:
		status = vitrine.ProductDraft
	case n < 3:
		status = vitrine.ProductArchived
	}
	name := noun + " " + adj + " de " + mat
	if i%10 == 3 {
		name += " premium" // the catalog's common word
	}
	key, ok := c.names[name]
	if !ok {
		key = vitrine.Fold(name)
		c.names[name] = key
	}
	p := &Product{ID: benchID(i), NameKey: key, Status: status, Vendor: fmt.Sprintf("Fornecedor %02d", rng.IntN(50)+1), ProductType: bNouns[rng.IntN(len(bNouns))],
		Categories: []string{c.leaves[rng.IntN(len(c.leaves))].ID}, Currency: "BRL", Options: []string{"Size", "Color"},
		UpdatedAt: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)}
	for len(p.Tags) < 3 {
		if t := fmt.Sprintf("coleção-%02d", rng.IntN(100)+1); !slices.Contains(p.Tags, t) {
			p.Tags = append(p.Tags, t)
		}
	}
	sizes := slices.Clone(bSizes)
	rng.Shuffle(len(sizes), func(a, b int) { sizes[a], sizes[b] = sizes[b], sizes[a] })
	color := bColors[rng.IntN(len(bColors))]
	price := int64(1000 + rng.IntN(200000))
	sale := rng.IntN(5) == 0
	for _, s := range sizes[:3] {
		v := Variant{Values: []string{s, color}, Price: price, Stock: int64(rng.IntN(20))}
		if sale {
			cp := price * 12 / 10
			v.CompareAtPrice = &cp
		}
		p.Variants = append(p.Variants, v)
	}
	// The search text: name, vendor, type, tags, option values, SKUs,
	// description, each word once.
	ws := []string{strings.ToLower(sku)}
	for _, s := range []string{noun, adj, "de", mat, p.Vendor, p.ProductType, "Feito em", bMaterials[rng.IntN(len(bMaterials))], "acabamento", bAdjectives[rng.IntN(len(bAdjectives))], color} {
		ws = append(ws, c.fold(s)...)
	}
	for _, t := range p.Tags {
		ws = append(ws, c.fold(t)...)
	}
	for _, s := range sizes[:3] {
		ws = append(ws, c.fold(s)...)
	}
	slices.Sort(ws)
	p.Words = slices.Compact(ws)
	p.NameWords = c.fold(name)
	// The label's words: vendor, type, tags.
	p.LabelWords = append(slices.Clone(c.fold(p.Vendor)), c.fold(p.ProductType)...)
	for _, t := range p.Tags {
		p.LabelWords = append(p.LabelWords, c.fold(t)...)
	}
	// A company of three locales, half its products translated whole in
	// one, a third in the other (as BenchmarkTranslations' in the store).
	if i%2 == 0 {
		p.Translated = append(p.Translated, "es")
	}
	if i%3 == 0 {
		p.Translated = append(p.Translated, "en")
	}
	return p
}

// The sizes benchmarked: 100,000 products (300,000 variants), the
// catalog's targets at 3×, and 333,334 (1,000,002 variants), the RSS's;
// FACETINDEX_BENCH_PRODUCTS names others (1000000: the target at 5×).
var benchSizes = func() []int {
	var out []int
	for _, f := range strings.Fields(strings.ReplaceAll(os.Getenv("FACETINDEX_BENCH_PRODUCTS"), ",", " ")) {
		if n, err := strconv.Atoi(f); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		out = []int{100_000, 333_334}
	}
	return out
}()

var built = struct {
	sync.Mutex
	ix map[int]*Index
}{ix: map[int]*Index{}}

// benchIndex returns the index of the catalog of n products, built once.
func benchIndex(b *testing.B, n int) *Index {
	built.Lock()
	defer built.Unlock()
	if ix := built.ix[n]; ix != nil {
		return ix
	}
	c := newBenchCatalog()
	bl := NewBuilder(n)
	bl.SetCategories(c.tree)
	for i := range n {
		if err := bl.Add(c.product(i)); err != nil {
			b.Fatal(err)
		}
	}
	built.ix[n] = bl.Finish(1)
	return built.ix[n]
}

// cpuTime is the process's CPU time so far: on a machine others load,
// what a build costs better than the time it takes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// perOp runs fn b.N times and reports the CPU time an op took beside
// the time: the machine's other work leaves the CPU time nearly alone.
func perOp(b *testing.B, fn func()) {
	start := cpuTime()
	for b.Loop() {
		fn()
	}
	b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkBuild builds a company's index from its products in memory
// (what a build costs beside reading them from the database), and
// reports the heap the index holds after a collection, its own estimate
// (Bytes), the share of the text search (terms and their postings, the
// records' words; namepost, the names' postings within terms) and of the names' keys the pages sort by (the records').
func BenchmarkBuild(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("products=%d", n), func(b *testing.B) {
			var ix *Index
			var heap uint64
			var cpu time.Duration
			for b.Loop() {
				// The products come in batches, as a build reads them from
				// the database; making them is not timed.
				b.StopTimer()
				ix = nil
				c := newBenchCatalog()
				before := heapAlloc()
				bl := NewBuilder(n)
				bl.SetCategories(c.tree)
				for i := 0; i < n; i += 5000 {
					b.StopTimer()
					batch := make([]*Product, 0, 5000)
					for j := i; j < min(n, i+5000); j++ {
						batch = append(batch, c.product(j))
					}
					start := cpuTime()
					b.StartTimer()
					for _, p := range batch {
						if err := bl.Add(p); err != nil {
							b.Fatal(err)
						}
					}
					cpu += cpuTime() - start
				}
				start := cpuTime()
				ix = bl.Finish(1)
				cpu += cpuTime() - start
				b.StopTimer()
				heap = heapAlloc() - before
				b.StartTimer()
			}
			var words, names int64
			var v view
			for o := range ix.live.Iterate {
				ix.decode(o, &v, withWords)
				words += int64(len(appendSorted(nil, v.words)))
				names += int64(len(binary.AppendUvarint(nil, uint64(len(ix.nameOf(o)))))) + int64(len(ix.nameOf(o)))
			}
			terms := ix.words.bytes()
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
			b.ReportMetric(float64(ix.Bytes())/(1<<20), "est-MiB")
			b.ReportMetric(float64(terms)/(1<<20), "terms-MiB")
			b.ReportMetric(float64(ix.words.names.bytes())/(1<<20), "namepost-MiB")
			b.ReportMetric(float64(ix.words.labels.bytes())/(1<<20), "labelpost-MiB")
			b.ReportMetric(float64(ix.translated.bytes())/(1<<20), "translated-MiB")
			b.ReportMetric(float64(words)/(1<<20), "recwords-MiB")
			b.ReportMetric(float64(names)/(1<<20), "recnames-MiB")
			b.ReportMetric(float64(len(ix.pool))/(1<<20), "records-MiB")
			b.ReportMetric(float64(len(ix.words.off)), "terms")
			b.ReportMetric(float64(heap)/float64(n*3), "B/variant")
		})
	}
}

// The faceted lists measured: the two of docs/performance.md's targets, the text
// query with the same facets, and the plans' extremes.
var benchQueries = []struct {
	name string
	q    Query
}{
	{"size M + vendor", Query{Filter: Terms{Options: map[string]string{"Size": "M"}, Vendor: "Fornecedor 07"}}},
	{"tag", Query{Filter: Terms{Tags: []vitrine.QueryText{"coleção-42"}}}},
	{"query", Query{Filter: Terms{Words: []string{"cadeira"}}}},
	{"query + vendor", Query{Filter: Terms{Words: []string{"cadeira"}, Vendor: "Fornecedor 07"}}},
	{"query of 2 words", Query{Filter: Terms{Words: []string{"cadeira", "azul"}}}},
	{"query of a SKU prefix", Query{Filter: Terms{Words: []string{"c000"}}}},
	{"everything", Query{}},
	{"active", Query{Filter: Terms{Status: vitrine.ProductActive}}},
	{"size M in stock to 500", Query{Filter: Terms{Options: map[string]string{"Size": "M"}, InStock: new(true),
		MaxMinor: new(int64(50000)), Currency: "BRL"}}},
}

var benchFacets = []vitrine.FacetName{vitrine.FacetVendor, vitrine.FacetTags, vitrine.FacetOptions, vitrine.FacetStatus}

// BenchmarkFacets counts the four facets of the catalog benchmark under
// each filter; matches is the filter's products.
func BenchmarkFacets(b *testing.B) {
	for _, n := range benchSizes {
		for _, bq := range benchQueries {
			b.Run(fmt.Sprintf("products=%d/%s", n, bq.name), func(b *testing.B) {
				ix := benchIndex(b, n)
				q := bq.q
				q.Facets = benchFacets
				b.ReportAllocs()
				perOp(b, func() { ix.Facets(q) })
				b.ReportMetric(float64(ix.Count(q)), "matches")
			})
		}
	}
}

// BenchmarkPage picks a page of 50 of each filter's products in the
// order of names (many alike: ties broken by id) and of prices,
// descending: the candidates found, then each compared with the page so
// far. The candidates' cost alone is BenchmarkFacets's without counting;
// pageNs is what a candidate adds.
func BenchmarkPage(b *testing.B) {
	for _, n := range benchSizes {
		for _, bq := range benchQueries {
			for _, sort := range []vitrine.ProductSort{vitrine.SortName, vitrine.SortPriceDesc} {
				b.Run(fmt.Sprintf("products=%d/%s/%s", n, bq.name, sort), func(b *testing.B) {
					ix := benchIndex(b, n)
					b.ReportAllocs()
					perOp(b, func() { ix.PageOf(bq.q, Page{Sort: sort, Limit: 50}) })
					b.ReportMetric(float64(ix.Count(bq.q)), "matches")
				})
			}
		}
	}
}

// BenchmarkFound counts the facets of a text query whose products the
// caller found (the alternative to the index's own terms): the index's
// side only, the ids handed over.
func BenchmarkFound(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("products=%d", n), func(b *testing.B) {
			ix := benchIndex(b, n)
			found := ix.Match(Query{Filter: Terms{Words: []string{"cadeira"}}})
			q := Query{Found: found, Facets: benchFacets}
			b.ReportAllocs()
			perOp(b, func() { ix.Facets(q) })
			b.ReportMetric(float64(len(found)), "matches")
		})
	}
}

// sample returns n products of the index, spread over its ordinals.
func sample(ix *Index, n int) *roaring.Bitmap {
	rng := rand.New(rand.NewPCG(5, 6))
	all := ix.live.ToArray()
	rng.Shuffle(len(all), func(a, b int) { all[a], all[b] = all[b], all[a] })
	return roaring.BitmapOf(all[:min(n, len(all))]...)
}

// BenchmarkCountPlans counts the four facets (and then the categories) of
// n candidates by each plan: the crossover the choice (walks) is set to.
func BenchmarkCountPlans(b *testing.B) {
	defer func(p int) { countPlan = p }(countPlan)
	for _, size := range benchSizes {
		for _, facets := range [][]vitrine.FacetName{benchFacets, {vitrine.FacetCategories}} {
			for _, n := range []int{0, 300, 1000, 3000, 10000, 30000, 100000} {
				for plan, name := range []string{"chosen", "walk", "bitmaps", "bitset", "chosen before the bitset", "bitmaps or bitset"} {
					// candidates=0: those of the query "cadeira".
					b.Run(fmt.Sprintf("products=%d/%s/candidates=%d/%s", size, joined(facets), n, name), func(b *testing.B) {
						ix := benchIndex(b, size)
						cand := sample(ix, n)
						if n == 0 {
							cand = ix.candidates(&Query{Filter: Terms{Words: []string{"cadeira"}}}, new(scratch)).Clone()
						}
						countPlan = plan
						s := new(scratch)
						perOp(b, func() { ix.count(cand, facets, s) })
					})
				}
			}
		}
	}
}

// BenchmarkWordPlans keeps the candidates holding a word by each plan:
// their records' words, or the union of the terms the word starts.
func BenchmarkWordPlans(b *testing.B) {
	ix := benchIndex(b, benchSizes[0])
	defer func(p int) { wordPlan = p }(wordPlan)
	for _, w := range []string{"cadeira", "c000"} {
		for _, n := range []int{300, 1000, 3000, 10000, 30000} {
			cand := sample(ix, n)
			for plan, name := range []string{"chosen", "walk", "union"} {
				b.Run(fmt.Sprintf("%s/candidates=%d/%s", w, n, name), func(b *testing.B) {
					wordPlan = plan
					s := new(scratch)
					perOp(b, func() { ix.matchWord(cand.Clone(), w, s) })
				})
			}
		}
	}
}

// BenchmarkRelevancePage picks a relevance page of 51 of a text query's
// products and counts its 4 facets (FacetsPageAt, the index's share of
// BenchmarkTextQuery's "query, relevance, 4 facets"), by the plans chosen
// with rank 1 by the candidates' names read (namePlan 1), and as before
// the names' postings and the bitset (namePlan 1, countPlan 4). x-filter is the op's CPU time against
// that of a filter's page of 51 in name order with the same facets (the
// tag of BenchmarkFacets), measured in the same run: the target is 1.
func BenchmarkRelevancePage(b *testing.B) {
	defer func(n, c int) { namePlan, countPlan = n, c }(namePlan, countPlan)
	for _, n := range benchSizes {
		for _, words := range [][]string{{"cadeira"}, {"cadeira", "azul"}, {"ca"}} {
			for _, plan := range []struct {
				name         string
				names, count int
			}{{"chosen", 0, 0}, {"names read", 1, 0}, {"before: names read, no bitset", 1, 4}} {
				b.Run(fmt.Sprintf("products=%d/%s/%s", n, strings.Join(words, " "), plan.name), func(b *testing.B) {
					ix := benchIndex(b, n)
					namePlan, countPlan = 0, 0
					filter := Query{Filter: benchQueries[1].q.Filter, Facets: benchFacets}
					const rounds = 20
					start := cpuTime()
					for range rounds {
						ix.FacetsPageAt(ix.Seq(), filter, Page{Sort: vitrine.SortName, Limit: 51}, 1<<30)
					}
					base := float64((cpuTime() - start).Nanoseconds()) / rounds
					namePlan, countPlan = plan.names, plan.count
					q := Query{Filter: Terms{Words: words}, Facets: benchFacets}
					b.ReportAllocs()
					start = cpuTime()
					for b.Loop() {
						ix.FacetsPageAt(ix.Seq(), q, Page{Sort: vitrine.SortRelevance, Limit: 51}, 1<<30)
					}
					op := float64((cpuTime() - start).Nanoseconds()) / float64(b.N)
					b.ReportMetric(op, "cpu-ns/op")
					b.ReportMetric(op/base, "x-filter")
					b.ReportMetric(float64(ix.Count(q)), "matches")
				})
			}
		}
	}
}

// BenchmarkNamePlans finds rank 1 of a relevance page (the candidates
// whose name holds the query's words) by each plan: the names' postings
// united, or each candidate's name words read; the crossover nameMatches
// is set to. candidates=0 are the query's own.
func BenchmarkNamePlans(b *testing.B) {
	ix := benchIndex(b, benchSizes[0])
	defer func(p int) { namePlan = p }(namePlan)
	for _, words := range [][]string{{"cadeira"}, {"cadeira", "azul"}, {"c"}, {"c000"}} {
		for _, n := range []int{0, 300, 3000, 30000} {
			cand := sample(ix, n)
			if n == 0 {
				cand = ix.candidates(&Query{Filter: Terms{Words: words}}, new(scratch)).Clone()
			}
			for plan, name := range []string{"chosen", "names read", "postings"} {
				b.Run(fmt.Sprintf("%s/candidates=%d/%s", strings.Join(words, " "), n, name), func(b *testing.B) {
					namePlan = plan
					s := new(scratch)
					perOp(b, func() { ix.nameMatches(cand, words, s) })
					b.ReportMetric(float64(ix.nameMatches(cand, words, s).GetCardinality()), "rank1")
				})
			}
		}
	}
}

// BenchmarkPut replaces a product (its new form: other tags, sizes and
// words), the time a write holds the lock; and deletes and puts it back.
func BenchmarkPut(b *testing.B) {
	ix := benchIndex(b, benchSizes[0])
	c := newBenchCatalog()
	next := make([]*Product, 1000)
	for i := range next {
		next[i] = c.product(i * 97)
	}
	b.Run("replace", func(b *testing.B) {
		i := 0
		perOp(b, func() {
			if err := ix.Put(next[i%len(next)]); err != nil {
				b.Fatal(err)
			}
			i++
		})
	})
	b.Run("delete and put", func(b *testing.B) {
		i := 0
		perOp(b, func() {
			p := next[i%len(next)]
			ix.Delete(p.ID)
			if err := ix.Put(p); err != nil {
				b.Fatal(err)
			}
			i++
		})
	})
}

// BenchmarkFacetsWhileWriting runs the first scenario in parallel
// readers, alone and while a writer replaces products without pause:
// what the read-write lock costs readers.
func BenchmarkFacetsWhileWriting(b *testing.B) {
	ix := benchIndex(b, benchSizes[0])
	c := newBenchCatalog()
	next := make([]*Product, 1000)
	for i := range next {
		next[i] = c.product(i * 89)
	}
	q := benchQueries[0].q
	q.Facets = benchFacets
	for _, writing := range []bool{false, true} {
		b.Run(fmt.Sprintf("writing=%v", writing), func(b *testing.B) {
			stop := make(chan struct{})
			var writes int
			var wg sync.WaitGroup
			if writing {
				wg.Go(func() {
					for i := 0; ; i++ {
						select {
						case <-stop:
							writes = i
							return
						default:
						}
						_ = ix.Put(next[i%len(next)])
					}
				})
			}
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					ix.Facets(q)
				}
			})
			close(stop)
			wg.Wait()
			b.ReportMetric(float64(writes)/b.Elapsed().Seconds(), "writes/s")
		})
	}
}

// BenchmarkCopyOnWrite is what a write would copy were readers never to
// wait on it: the bitmaps one product is in (a vendor's, a type's, a
// status's, three tags', its category's and the one above, its options'
// names and values, its words' shared terms, and the flags'), cloned.
func BenchmarkCopyOnWrite(b *testing.B) {
	ix := benchIndex(b, benchSizes[0])
	var v view
	ix.decode(0, &v, withWords)
	var bms []*roaring.Bitmap
	add := func(ps *postings, e uint32) {
		if w := ps.word(e); w&bmFlag != 0 {
			bms = append(bms, ps.bms[w&^bmFlag])
		}
	}
	add(&ix.vendor.post, ix.vendor.formKey[v.vendor])
	add(&ix.ptype.post, ix.ptype.formKey[v.ptype])
	add(&ix.status.post, v.status)
	add(&ix.currency.post, v.currency)
	for _, f := range v.tags {
		add(&ix.tags.post, ix.tags.formKey[f])
	}
	for _, k := range ix.counted(v.cats, nil) {
		add(&ix.below, k)
		add(&ix.cats.post, k)
	}
	for _, f := range v.optNames {
		add(&ix.optNames.post, ix.optNames.formKey[f])
	}
	for _, e := range v.optVals {
		add(&ix.optVals.post, e)
	}
	for _, id := range v.words {
		add(&ix.words.post, id)
	}
	bms = append(bms, ix.live, ix.inStock, ix.onSale)
	perOp(b, func() {
		for _, bm := range bms {
			bm.Clone()
		}
	})
	b.ReportMetric(float64(len(bms)), "bitmaps")
}

// joined names facets in a benchmark's name: vendor+tags.
func joined(facets []vitrine.FacetName) string {
	names := make([]string, len(facets))
	for i, f := range facets {
		names[i] = string(f)
	}
	return strings.Join(names, "+")
}
