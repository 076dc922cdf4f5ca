package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
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

// The words of the text query benchmark's catalog, as vitrine-bench
// catalog makes them: a name of a noun, an adjective and a material; the
// noun is also one product type of 20.
var (
	qbNouns     = strings.Fields("cadeira mesa luminária tapete estante poltrona sofá cortina espelho vaso relógio quadro almofada banqueta cômoda cabide prateleira lixeira baú escrivaninha")
	qbAdjective = strings.Fields("azul verde rústico moderno compacto dobrável clássico industrial escandinavo minimalista grande pequeno alto baixo redondo quadrado")
	qbMaterials = strings.Fields("madeira metal vidro bambu couro linho algodão mármore cerâmica acrílico palha veludo")
)

// BenchmarkTextQuery measures a text query's first page against a plain
// page and a faceted filter, on a catalog of SEARCH_BENCH_PRODUCTS
// products (default 2,000; issue 35 asks the query with facets within 3×
// a plain page at 100,000), three variants each, in one company beside a
// smaller one. The query "cadeira" is the first word of a twentieth of
// the names and a twentieth of the product types: the names that start
// with it sit together in name order, after a fifth of the catalog.
// Read the ratios of one run (-count 1: the fill is most of the time).
func BenchmarkTextQuery(b *testing.B) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("SEARCH_BENCH_PRODUCTS")); err == nil && v > 0 {
		n = v
	}
	facets := []vitrine.FacetName{vitrine.FacetVendor, vitrine.FacetTags, vitrine.FacetOptions, vitrine.FacetStatus}
	query := func(f vitrine.ProductQuery) vitrine.ProductQuery {
		f.Query = "cadeira"
		return f
	}
	lists := []struct {
		name string
		f    vitrine.ProductQuery
	}{
		{"plain page", vitrine.ProductQuery{Sort: vitrine.SortName}},
		{"tag, 4 facets", vitrine.ProductQuery{Sort: vitrine.SortName, Tags: []vitrine.QueryText{"coleção-42"}, Facets: facets}},
		{"query, relevance", query(vitrine.ProductQuery{Sort: vitrine.SortRelevance})},
		{"query, relevance, 4 facets", query(vitrine.ProductQuery{Sort: vitrine.SortRelevance, Facets: facets})},
		{"query, name", query(vitrine.ProductQuery{Sort: vitrine.SortName})},
		{"query, price", query(vitrine.ProductQuery{Sort: vitrine.SortPrice})},
		{"query, relevance, second page", query(vitrine.ProductQuery{Sort: vitrine.SortRelevance})},
	}
	for _, d := range dbtest.Dialects() {
		b.Run(d.Name, func(b *testing.B) {
			db := dbtest.Open(b, d.URL(b))
			big, small := benchTenant(b, db, "big"), benchTenant(b, db, "small")
			fillQueryBench(b, db, big, n)
			fillQueryBench(b, db, small, n/10)
			// The index built, as in a server that has listed before.
			if _, err := db.FindProducts(ctx, big, filterOf(vitrine.ProductQuery{Facets: facets, Sort: vitrine.SortName}, 51)); err != nil {
				b.Fatal(err)
			}
			db.WaitIndexes()
			for _, l := range lists {
				b.Run(l.name, func(b *testing.B) {
					f := filterOf(l.f, 51)
					if strings.HasSuffix(l.name, "second page") {
						first, err := db.FindProducts(ctx, big, f)
						if err != nil {
							b.Fatal(err)
						}
						f = f.Page(51, &first.Keys[49])
					}
					// Labelled, so that a CPU profile of the run reads one list
					// alone (go tool pprof -tagfocus 'list=plain page').
					pprof.Do(ctx, pprof.Labels("list", l.name), func(ctx context.Context) {
						for b.Loop() {
							found, err := db.FindProducts(ctx, big, f)
							if err != nil {
								b.Fatal(err)
							}
							if len(found.Products) != 51 {
								b.Fatalf("%d products, want 51", len(found.Products))
							}
						}
					})
				})
			}
			// The target's ratio measured alternately, a plain page then
			// the query's relevance page with 4 facets, each round: the
			// machine's load, shared with other work, then weighs on both
			// alike (the lists above, run one after the other, each see
			// the load of their own seconds).
			b.Run("relevance, 4 facets ÷ plain page, alternately", func(b *testing.B) {
				plain, relevance := filterOf(lists[0].f, 51), filterOf(lists[3].f, 51)
				var took [2]time.Duration
				for b.Loop() {
					for i, f := range []vitrine.ProductFilter{plain, relevance} {
						start := time.Now()
						if found, err := db.FindProducts(ctx, big, f); err != nil || len(found.Products) != 51 {
							b.Fatal(err)
						}
						took[i] += time.Since(start)
					}
				}
				b.ReportMetric(float64(took[0].Nanoseconds())/float64(b.N), "plain-ns/op")
				b.ReportMetric(float64(took[1].Nanoseconds())/float64(b.N), "relevance-ns/op")
				b.ReportMetric(float64(took[1])/float64(took[0]), "x-plain")
			})
		})
	}
}

// benchTenant creates a company of the slug, owned by a user of its own.
func benchTenant(b *testing.B, db *store.DB, slug string) string {
	now := vitrine.Now()
	u := &vitrine.User{ID: vitrine.NewID(), Email: slug + "@example.com", Name: slug, CreatedAt: now, UpdatedAt: now}
	if err := db.CreateUser(ctx, u); err != nil {
		b.Fatal(err)
	}
	tn := &vitrine.Tenant{ID: vitrine.NewID(), Name: slug, Slug: slug, CreatedAt: now, UpdatedAt: now}
	m := &vitrine.Membership{ID: vitrine.NewID(), TenantID: tn.ID, UserID: u.ID, Role: vitrine.RoleOwner, Status: vitrine.MembershipActive, CreatedAt: now, UpdatedAt: now}
	if err := db.CreateTenant(ctx, testChange, tn, m); err != nil {
		b.Fatal(err)
	}
	return tn.ID
}

// fillQueryBench writes n of the text query benchmark's products into the
// company, a thousand a call, the same products for the same n.
func fillQueryBench(b *testing.B, db *store.DB, tenantID string, n int) {
	r := rand.New(rand.NewPCG(35, 35))
	for done := 0; done < n; done += 1000 {
		writes := make([]vitrine.ProductWrite, min(1000, n-done))
		for i := range writes {
			writes[i].Create = queryBenchProduct(r, tenantID, done+i)
		}
		if _, err := db.WriteProducts(ctx, testChange, tenantID, writes, true, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// queryBenchProduct is product i of the text query benchmark: the shape
// of vitrine-bench catalog's products.
func queryBenchProduct(r *rand.Rand, tenantID string, i int) *vitrine.Product {
	sku := fmt.Sprintf("QB%07d", i)
	name := pick(r, qbNouns) + " " + pick(r, qbAdjective) + " de " + pick(r, qbMaterials)
	p := newProduct(tenantID, sku, strings.ToUpper(name[:1])+name[1:], 0, vitrine.ProductActive)
	p.Description = "Feito em " + pick(r, qbMaterials) + ", acabamento " + pick(r, qbAdjective) + "."
	p.Vendor, p.ProductType = fmt.Sprintf("Fornecedor %02d", 1+r.IntN(50)), pick(r, qbNouns)
	for len(p.Tags) < 3 {
		if t := fmt.Sprintf("coleção-%02d", 1+r.IntN(100)); !slices.Contains(p.Tags, t) {
			p.Tags = append(p.Tags, t)
		}
	}
	sizes := []string{"XS", "S", "M", "L", "XL"}
	r.Shuffle(len(sizes), func(a, b int) { sizes[a], sizes[b] = sizes[b], sizes[a] })
	color := pick(r, []string{"Azul", "Verde", "Preto", "Branco"})
	price := int64(1000 + r.IntN(200000))
	base := p.Variants[0]
	p.Variants = nil
	p.Options = []vitrine.Option{{Name: "Size", Values: sizes[:3]}, {Name: "Color", Values: []string{color}}}
	for j, s := range sizes[:3] {
		v := *base
		v.ID, v.SKU, v.Options, v.Position, v.Price, v.Stock = vitrine.NewID(), fmt.Sprintf("%s-%s", sku, s), map[string]string{"Size": s, "Color": color}, j+1, price, int64(r.IntN(20))
		p.Variants = append(p.Variants, &v)
	}
	p.Summarize()
	return p
}
