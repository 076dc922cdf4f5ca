package catalog_test

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/demo"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// relevanceQuery is a line of testdata/relevance/queries.tsv: a query a
// shopper's agent sends, of a kind, and the products it means (any of
// them in the first 10 is a hit).
type relevanceQuery struct {
	kind, query string
	want        []string
}

func readRelevanceQueries(t *testing.T) []relevanceQuery {
	f, err := os.Open("testdata/relevance/queries.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []relevanceQuery
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			cols := strings.Split(line, "\t")
			if len(cols) != 4 {
				t.Fatalf("queries.tsv: %q has %d columns", line, len(cols))
			}
			out = append(out, relevanceQuery{cols[1], cols[2], strings.Split(cols[3], "|")})
		}
	}
	return out
}

// score is hit@10 and the mean reciprocal rank of a set of queries.
type score struct {
	n, hits int
	rr      float64
}

func (s *score) add(ranked, want []string) {
	s.n++
	for i, name := range ranked[:min(10, len(ranked))] {
		if slices.Contains(want, name) {
			s.hits++
			s.rr += 1 / float64(i+1)
			return
		}
	}
}

func (s score) String() string {
	return strings.TrimSpace(strings.Join([]string{
		"hit@10 " + itoa(s.hits) + "/" + itoa(s.n),
		"MRR " + strings.TrimRight(strings.TrimRight(ftoa(s.rr/float64(max(s.n, 1))), "0"), "."),
	}, ", "))
}

// TestRelevanceOfQuerySet measures the labelled queries of
// testdata/relevance (Portuguese over the demo's companies, English and
// Spanish over a sample catalog) through list_products' query, and the
// same queries as the search before the text analysis read them (every
// word a prefix of a product's word, the name's matches first), from
// the same products. It prints both, by kind, and fails when the analysis
// finds less than the words did. (go test -v -run TestRelevanceOfQuerySet
// ./service/catalog)
func TestRelevanceOfQuerySet(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		if _, err := demo.Seed(ctx, w.svc); err != nil {
			t.Fatal(err)
		}
		sample := shop(t, w, "sample")
		b, err := os.ReadFile("testdata/relevance/sample.json")
		if err != nil {
			t.Fatal(err)
		}
		var products []struct {
			Name, SKU, Vendor, Type, Description string
			Tags                                 []string
		}
		if err := json.Unmarshal(b, &products); err != nil {
			t.Fatal(err)
		}
		for _, p := range products {
			if _, err := w.cat.CreateProduct(ctx, sample, catalog.NewProduct{Name: p.Name, SKU: p.SKU, Vendor: p.Vendor, ProductType: p.Type,
				Tags: p.Tags, Description: p.Description, Price: "10.00"}, ""); err != nil {
				t.Fatal(err)
			}
		}
		// Each company's products, whole, and where each name is.
		shops := map[string]*service.Access{"sample": sample}
		for _, slug := range []string{"technova", "mercado-verde"} {
			a, err := w.svc.Operator().Actor(ctx, slug, "", "relevance test")
			if err != nil {
				t.Fatal(err)
			}
			shops[slug] = a
		}
		all := map[string][]*vitrine.Product{}
		shopOf := map[string]string{}
		for slug, a := range shops {
			page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{}, 100, "")
			if err != nil {
				t.Fatal(err)
			}
			all[slug] = page.Products
			for _, p := range page.Products {
				shopOf[p.Name] = slug
			}
		}
		before, after := map[string]*score{}, map[string]*score{}
		for _, q := range readRelevanceQueries(t) {
			slug := shopOf[q.want[0]]
			if slug == "" {
				t.Fatalf("%q: no product %q", q.query, q.want[0])
			}
			for _, m := range []map[string]*score{before, after} {
				for _, k := range []string{q.kind, "all"} {
					if m[k] == nil {
						m[k] = &score{}
					}
				}
			}
			old := wordsSearch(all[slug], q.query)
			before[q.kind].add(old, q.want)
			before["all"].add(old, q.want)
			var now []string
			page, err := w.cat.ListProducts(ctx, shops[slug], vitrine.ProductQuery{Query: vitrine.QueryText(q.query)}, 10, "")
			if err == nil {
				for _, p := range page.Products {
					now = append(now, p.Name)
				}
			}
			after[q.kind].add(now, q.want)
			after["all"].add(now, q.want)
			if testing.Verbose() && !slices.ContainsFunc(now, func(n string) bool { return slices.Contains(q.want, n) }) {
				t.Logf("miss %-8s %q: %q", q.kind, q.query, now)
			}
		}
		for _, k := range []string{"exact", "order", "plural", "typo", "synonym", "phrase", "all"} {
			t.Logf("%-8s before: %-28s after: %s", k, before[k], after[k])
		}
		if a, b := after["all"], before["all"]; a.hits < b.hits || a.rr < b.rr {
			t.Errorf("the analysis finds less than the words: %s, before %s", a, b)
		}
		for _, k := range []string{"exact", "order"} {
			if a := after[k]; a.hits != a.n {
				t.Errorf("%s queries: %s, want every one", k, a)
			}
		}
	})
}

// wordsSearch is the search before the text analysis, on products in
// memory: the products holding a word that starts with each of the
// query's words, the SKU's first, then those whose name holds them, by
// name.
func wordsSearch(products []*vitrine.Product, query string) []string {
	words := vitrine.SearchWords(query)
	holds := func(have []string) bool {
		for _, w := range words {
			if !slices.ContainsFunc(have, func(h string) bool { return strings.HasPrefix(h, w) }) {
				return false
			}
		}
		return true
	}
	type hit struct {
		rank int
		key  string
		name string
	}
	var hits []hit
	for _, p := range products {
		all := vitrine.Words(p.Name + " " + p.Vendor + " " + p.ProductType + " " + p.Description + " " + strings.Join(p.Tags, " "))
		rank := 2
		for _, v := range p.Variants {
			all = append(all, vitrine.Words(v.SKU+" "+v.Barcode)...)
			for _, o := range v.Options {
				all = append(all, vitrine.Words(o)...)
			}
			if v.SKU != "" && vitrine.SKUKey(v.SKU) == vitrine.SKUKey(query) {
				rank = 0
			}
		}
		if len(words) == 0 || !holds(all) {
			continue
		}
		if rank != 0 && holds(vitrine.Words(p.Name)) {
			rank = 1
		}
		hits = append(hits, hit{rank, vitrine.Fold(p.Name), p.Name})
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return strings.Compare(a.key, b.key)
	})
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.name
	}
	return out
}

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }
