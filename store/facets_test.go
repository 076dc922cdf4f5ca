package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/store"
)

// openWith opens url with opts, closing it when t ends.
func openWith(t *testing.T, url string, opts store.Options) *store.DB {
	t.Helper()
	db, err := store.Open(ctx, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// facetCatalog writes a random catalog into the tenant: vendors and tags
// in several forms that compare alike, options on some products, a tree
// of categories, attributes, prices, stock and sales of every kind.
type facetCatalog struct {
	cats  []*vitrine.Category
	words []string
	skus  []string // a SKU of each product
}

var (
	fVendors = []string{"Acme", "ACME", "acme", "Zeta", "Órbita", ""}
	fTypes   = []string{"Shirt", "shirt", "Mug", ""}
	fTags    = []string{"Sale", "sale", "new", "Summer", "inverno", "Ação"}
	fSizes   = []string{"S", "M", "L", "m"}
	fColors  = []string{"Red", "Blue", "red"}
	fNames   = []string{"Camisa azul", "Caneca", "Camiseta verde", "Casaco", "Meia", "Cadeira"}
	// Names whose keys tie, or hold bytes past ASCII that sort apart from
	// their letters (Ø, ß folded to ss, 日本), for the pages' order.
	fTies = []string{"Cadeira", "cadeira", "CADEIRA", "Øre", "Straße", "Strasse", "日本茶", "Zebra", "Ärmel", "Ármel"}
	// fAt is the time of many products' updated_at: ties in that order too.
	fAt    = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	fMater = []string{"cotton", "wool", "linen"}
)

func writeFacetCatalog(t *testing.T, db *store.DB, r *rand.Rand, tenantID string, n int) *facetCatalog {
	t.Helper()
	fc := &facetCatalog{words: []string{"cam", "camisa", "caneca", "acme", "sale", "m", "verde", "zz"}}
	now := vitrine.Now()
	for i := range 6 {
		c := &vitrine.Category{ID: vitrine.NewID(), TenantID: tenantID, Name: fmt.Sprintf("Cat %d", i), Handle: fmt.Sprintf("cat-%d", i),
			Position: i, CreatedAt: now, UpdatedAt: now}
		if i > 0 && r.IntN(3) > 0 {
			c.ParentID = fc.cats[r.IntN(i)].ID
		}
		if err := db.SaveCategory(ctx, testChange, c, false); err != nil {
			t.Fatal(err)
		}
		fc.cats = append(fc.cats, c)
	}
	if err := db.SaveAttribute(ctx, testChange, &vitrine.Attribute{TenantID: tenantID, Key: "material", Name: "Material", Type: vitrine.AttributeText,
		CreatedAt: now, UpdatedAt: now}, false); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		p := randomProduct(r, tenantID, fc, i)
		if err := createProduct(db, p); err != nil {
			t.Fatalf("product %d: %v", i, err)
		}
		fc.skus = append(fc.skus, p.Variants[len(p.Variants)-1].SKU)
	}
	return fc
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func randomProduct(r *rand.Rand, tenantID string, fc *facetCatalog, i int) *vitrine.Product {
	sku := fmt.Sprintf("SKU-%d-%d", i, r.IntN(1000))
	name := pick(r, fNames) + fmt.Sprintf(" %d", i)
	if r.IntN(3) == 0 {
		name = pick(r, fTies)
	}
	p := newProduct(tenantID, sku, name, 0, pick(r, []vitrine.ProductStatus{vitrine.ProductActive, vitrine.ProductDraft, vitrine.ProductArchived}))
	p.Vendor, p.ProductType = pick(r, fVendors), pick(r, fTypes)
	if r.IntN(3) == 0 {
		p.Description = "Feito de " + pick(r, fMater)
	}
	for range r.IntN(3) {
		if tag := pick(r, fTags); !slices.ContainsFunc(p.Tags, func(t string) bool { return vitrine.TagKey(t) == vitrine.TagKey(tag) }) {
			p.Tags = append(p.Tags, tag)
		}
	}
	for range r.IntN(3) {
		if c := pick(r, fc.cats); !slices.ContainsFunc(p.Categories, func(pc vitrine.ProductCategory) bool { return pc.ID == c.ID }) {
			p.Categories = append(p.Categories, vitrine.ProductCategory{ID: c.ID})
		}
	}
	if r.IntN(2) == 0 {
		p.Attributes = map[string]any{"material": pick(r, fMater)}
	}
	base := p.Variants[0]
	p.Variants = nil
	switch r.IntN(3) {
	case 0: // no options: one variant
		v := *base
		p.Variants = []*vitrine.Variant{&v}
	default:
		p.Options = []vitrine.Option{{Name: pick(r, []string{"Size", "size"})}}
		if r.IntN(2) == 0 {
			p.Options = append(p.Options, vitrine.Option{Name: "Color"})
		}
		seen := map[string]bool{}
		for j := range 1 + r.IntN(4) {
			opts := map[string]string{p.Options[0].Name: pick(r, fSizes)}
			if len(p.Options) > 1 {
				opts["Color"] = pick(r, fColors)
			}
			key := fmt.Sprint(opts)
			if seen[key] {
				continue
			}
			seen[key] = true
			v := *base
			v.ID, v.SKU, v.Options, v.Position = vitrine.NewID(), fmt.Sprintf("%s-%d", sku, j), opts, len(p.Variants)+1
			p.Variants = append(p.Variants, &v)
		}
		for k := range p.Options {
			for _, v := range p.Variants {
				if val := v.Options[p.Options[k].Name]; !slices.Contains(p.Options[k].Values, val) {
					p.Options[k].Values = append(p.Options[k].Values, val)
				}
			}
		}
	}
	for _, v := range p.Variants {
		v.Price = int64(100 * (1 + r.IntN(20)))
		v.Stock = int64(r.IntN(3))
		if r.IntN(4) == 0 {
			c := v.Price + int64(r.IntN(3)-1)*50
			v.CompareAtPrice = &c
		}
	}
	p.UpdatedAt = p.UpdatedAt.Add(-time.Duration(r.IntN(10)) * time.Hour)
	if r.IntN(3) == 0 {
		p.UpdatedAt = fAt
	}
	p.Summarize()
	return p
}

// randomFilter is a filter of a few random terms, with every facet.
func randomFilter(r *rand.Rand, fc *facetCatalog) vitrine.ProductFilter {
	return filterOf(randomQuery(r, fc))
}

// randomQuery is a query of a few random terms, with every facet, and a
// page size.
func randomQuery(r *rand.Rand, fc *facetCatalog) (vitrine.ProductQuery, int) {
	f := vitrine.ProductQuery{Facets: vitrine.FacetNames, Sort: pick(r, vitrine.ProductSorts)}
	limit := 1 + r.IntN(7)
	var words []string
	yes, no := true, false
	for range r.IntN(4) {
		switch r.IntN(11) {
		case 0:
			f.Status = pick(r, []vitrine.ProductStatus{vitrine.ProductActive, vitrine.ProductDraft})
		case 1:
			f.Vendor = vitrine.QueryText(pick(r, fVendors[:5]))
		case 2:
			f.ProductType = vitrine.QueryText(pick(r, fTypes[:3]))
		case 3:
			f.Tags = append(f.Tags, vitrine.QueryText(pick(r, fTags)))
		case 4:
			f.CategoryID = pick(r, fc.cats).ID
		case 5:
			if f.Options == nil {
				f.Options = map[string]string{}
			}
			if r.IntN(2) == 0 {
				f.Options[pick(r, []string{"Size", "size"})] = pick(r, fSizes)
			} else {
				f.Options["Color"] = pick(r, fColors)
			}
		case 6:
			f.Attributes = map[string]any{"material": pick(r, fMater)}
		case 7:
			f.OnSale = pick(r, []*bool{&yes, &no})
		case 8:
			f.InStock = pick(r, []*bool{&yes, &no})
		case 9:
			lo, hi := int64(100*r.IntN(10)), int64(100*(5+r.IntN(20)))
			lo, hi = min(lo, hi), max(lo, hi) // a query's range is never inverted
			f.MinPrice, f.MaxPrice, f.Currency = vitrine.Decimal(vitrine.FormatPrice(lo, 2)), vitrine.Decimal(vitrine.FormatPrice(hi, 2)), "BRL"
		case 10:
			words = append(words, vitrine.Words(pick(r, fc.words))...)
		}
	}
	if r.IntN(8) == 0 {
		since := vitrine.Now().Add(-time.Duration(r.IntN(10)) * time.Hour)
		f.UpdatedSince = since.Format(time.RFC3339Nano)
	}
	f.Query = vitrine.QueryText(strings.Join(words, " "))
	if f.Sort == vitrine.SortRelevance && len(words) == 0 {
		f.Sort = vitrine.SortName
	}
	return f, limit
}

// filterOf is q in its one form, reading limit products.
func filterOf(q vitrine.ProductQuery, limit int) vitrine.ProductFilter {
	f, err := vitrine.NewProductFilter(q)
	if err != nil {
		panic(fmt.Sprintf("filter %+v: %v", q, err))
	}
	return f.Page(limit, nil)
}

// TestFacetsFromTheIndexAreSQLs holds the facet index to the SQL it stands
// for: over random catalogs and random filters, a faceted list counts the
// same from a store whose index answers as from one without an index (the
// SQL path), on both databases; another company's products are never
// counted; the first faceted call, while the index builds, answers at
// once, by SQL, the same.
func TestFacetsFromTheIndexAreSQLs(t *testing.T) {
	defer store.BuildChunk(7)() // a build of many chunks
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana := f.user("ana@example.com")
		a, b := f.tenant("a", ana), f.tenant("b", ana)
		r := rand.New(rand.NewPCG(35, 2))
		fc := writeFacetCatalog(t, f.db, r, a.ID, 150)
		writeFacetCatalog(t, f.db, r, b.ID, 40) // another company's: never counted
		bySQL := openWith(t, url, store.Options{FacetIndexMemory: -1})

		// Three pages of each list, each after the last key of the one
		// before: the index gives the page its products (when the filter
		// keeps few), in the order and after the keyset of SQL's, ties
		// (names alike once folded, prices, times) broken by id.
		check := func(t *testing.T, flt vitrine.ProductFilter) {
			t.Helper()
			for range 3 {
				got, err := f.db.FindProducts(ctx, a.ID, flt)
				if err != nil {
					t.Fatal(err)
				}
				want, err := bySQL.FindProducts(ctx, a.ID, flt)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := fmt.Sprint(got.Facets.Values, got.Facets.Options), fmt.Sprint(want.Facets.Values, want.Facets.Options); g != w {
					t.Fatalf("filter %+v:\n index %s\n   sql %s", flt, g, w)
				}
				if !slices.Equal(ids(got.Products), ids(want.Products)) || !slices.Equal(got.Keys, want.Keys) {
					t.Fatalf("filter %+v: page %v, want %v", flt, ids(got.Products), ids(want.Products))
				}
				if len(got.Keys) == 0 {
					break
				}
				flt = flt.Page(flt.Limit(), &got.Keys[len(got.Keys)-1])
			}
		}
		// The first call: no index yet; it builds meanwhile.
		check(t, filterOf(vitrine.ProductQuery{Facets: vitrine.FacetNames, Sort: vitrine.SortName}, 5))
		if s := f.db.IndexStats(); s.SQL < 1 {
			t.Fatalf("the first faceted call: %+v, want it by SQL", s)
		}
		f.db.WaitIndexes()
		before := f.db.IndexStats()
		for range 300 {
			check(t, randomFilter(r, fc))
		}
		if s := f.db.IndexStats(); s.Index < before.Index+300 || s.SQL != before.SQL || s.Builds != 1 || s.Among < 100 {
			t.Fatalf("after the build: %+v, before %+v: want every list counted by the index, one build", s, before)
		}
		// Text queries in relevance order, typos among them: the index
		// picks the ranks past the SKU's product, rank 0, which SQL reads
		// by key (by level of the words' alternatives, names holding every
		// word, then the other matches); every page, its ranks and its
		// keys as SQL's, cursors of each rank included. The typos' words
		// are the index's dictionary here, SQL's there: the same.
		before = f.db.IndexStats()
		for i := range 200 {
			q, limit := randomQuery(r, fc)
			var words []string
			for range 1 + r.IntN(2) {
				words = append(words, vitrine.Words(pick(r, append(fc.words, "cadeira", "c", "camiseta", "feito", "sku")))...)
			}
			if w := words[0]; r.IntN(3) == 0 && len(w) > 3 && utf8.ValidString(w) && utf8.RuneCountInString(w) == len(w) {
				// A typo: a letter dropped, doubled or two swapped.
				switch i := 1 + r.IntN(len(w)-2); r.IntN(3) {
				case 0:
					words[0] = w[:i] + w[i+1:]
				case 1:
					words[0] = w[:i] + w[i:i+1] + w[i:]
				default:
					words[0] = w[:i] + w[i+1:i+2] + w[i:i+1] + w[i+2:]
				}
			}
			q.Sort, q.Query = vitrine.SortRelevance, vitrine.QueryText(strings.Join(words, " "))
			if i%4 == 0 { // a query that is a product's SKU
				q.Query = vitrine.QueryText(pick(r, fc.skus))
			}
			check(t, filterOf(q, limit))
		}
		if s := f.db.IndexStats(); s.SQL != before.SQL || s.Among < before.Among+150 {
			t.Fatalf("text queries in relevance order: %+v, before %+v: want their pages picked by the index", s, before)
		}
	})
}

// TestUntranslatedFromTheIndexIsSQLs: list_products {untranslated} with
// facets is counted by the index, which holds by locale the products
// translated whole and current, and its counts and pages are SQL's: after
// the build, after translations written and after a source changed (which
// outdates the product's translations), each brought in by the catalog
// sequence.
func TestUntranslatedFromTheIndexIsSQLs(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana := f.user("ana@example.com")
		a := f.tenant("a", ana)
		tn, err := f.db.TenantByID(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		tn.Locales, tn.UpdatedAt = []string{"pt-BR", "es", "en"}, vitrine.Now()
		if err := f.db.UpdateTenant(ctx, testChange, tn); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(47, 2))
		fc := writeFacetCatalog(t, f.db, r, a.ID, 90)
		all, err := f.db.FindProducts(ctx, a.ID, filterOf(vitrine.ProductQuery{Sort: vitrine.SortName}, 200))
		if err != nil {
			t.Fatal(err)
		}
		// Whole in es (one in two), in en (one in three), the name alone
		// in es (one in five: still untranslated there).
		translate := func(p *vitrine.Product, locale string, whole bool) {
			t.Helper()
			var ts []*vitrine.Translation
			for _, tf := range p.TranslatableFields() {
				if whole || tf.Field == vitrine.FieldName {
					ts = append(ts, tr(vitrine.TranslateProduct, p.ID, locale, tf.Field, tf.Source+" "+locale, tf.Source))
				}
			}
			if err := f.db.SaveTranslations(ctx, testChange, a.ID, ts); err != nil {
				t.Fatal(err)
			}
		}
		for i, p := range all.Products {
			switch {
			case i%2 == 0:
				translate(p, "es", true)
			case i%5 == 0:
				translate(p, "es", false)
			}
			if i%3 == 0 {
				translate(p, "en", true)
			}
		}
		bySQL := openWith(t, url, store.Options{FacetIndexMemory: -1})
		check := func(step string, n int) {
			t.Helper()
			before := f.db.IndexStats()
			for i := range n {
				q, limit := randomQuery(r, fc)
				q.Untranslated = vitrine.LocaleTag(pick(r, []string{"es", "en"}))
				flt := filterOf(q, limit)
				for range 3 {
					got, err := f.db.FindProducts(ctx, a.ID, flt)
					if err != nil {
						t.Fatal(err)
					}
					want, err := bySQL.FindProducts(ctx, a.ID, flt)
					if err != nil {
						t.Fatal(err)
					}
					if g, w := fmt.Sprint(got.Facets.Values, got.Facets.Options), fmt.Sprint(want.Facets.Values, want.Facets.Options); g != w {
						t.Fatalf("%s, list %d, filter %+v:\n index %s\n   sql %s", step, i, flt, g, w)
					}
					if !slices.Equal(ids(got.Products), ids(want.Products)) || !slices.Equal(got.Keys, want.Keys) {
						t.Fatalf("%s, list %d, filter %+v: page %v, want %v", step, i, flt, ids(got.Products), ids(want.Products))
					}
					if len(got.Keys) == 0 {
						break
					}
					flt = flt.Page(flt.Limit(), &got.Keys[len(got.Keys)-1])
				}
			}
			if s := f.db.IndexStats(); s.SQL != before.SQL || s.Index < before.Index+int64(n) {
				t.Fatalf("%s: %+v, before %+v: want every list counted by the index", step, s, before)
			}
		}
		if _, err := f.db.FindProducts(ctx, a.ID, filterOf(vitrine.ProductQuery{Facets: vitrine.FacetNames, Sort: vitrine.SortName}, 5)); err != nil {
			t.Fatal(err)
		}
		f.db.WaitIndexes()
		check("built", 60)

		// A product translated whole in es since, another's source
		// changed (its translations outdated: untranslated everywhere).
		translate(all.Products[1], "es", true)
		if _, err := f.db.UpdateProduct(ctx, testChange, a.ID, all.Products[0].ID, func(p *vitrine.Product) error {
			p.Name += " novo"
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		untranslated := func(db *store.DB, locale string) []string {
			t.Helper()
			found, err := db.FindProducts(ctx, a.ID, filterOf(vitrine.ProductQuery{Untranslated: vitrine.LocaleTag(locale), Facets: vitrine.FacetNames, Sort: vitrine.SortName}, 200))
			if err != nil {
				t.Fatal(err)
			}
			return ids(found.Products)
		}
		if got := untranslated(f.db, "es"); slices.Contains(got, all.Products[1].ID) || !slices.Contains(got, all.Products[0].ID) {
			t.Fatalf("untranslated in es after the writes: %v", got)
		}
		if got := untranslated(f.db, "en"); !slices.Contains(got, all.Products[0].ID) {
			t.Fatalf("untranslated in en after its source changed: %v", got)
		}
		check("caught up", 30)
	})
}

// TestFacetsCoherentAcrossInstances writes through one instance and lists
// through another, each with its own index of the company: every write is
// in the other's counts at its next call (products created, updated,
// deleted, imported; a category deleted), which brings its index up by
// the changes recorded with the write, and counts what SQL counts.
func TestFacetsCoherentAcrossInstances(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana := f.user("ana@example.com")
		a := f.tenant("a", ana)
		r := rand.New(rand.NewPCG(35, 3))
		fc := writeFacetCatalog(t, f.db, r, a.ID, 60)
		other := openWith(t, url, store.Options{})
		bySQL := openWith(t, url, store.Options{FacetIndexMemory: -1})
		all := filterOf(vitrine.ProductQuery{Facets: vitrine.FacetNames, Sort: vitrine.SortName}, 5)
		counts := func(db *store.DB, flt vitrine.ProductFilter) string {
			t.Helper()
			found, err := db.FindProducts(ctx, a.ID, flt)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(found.Facets.Values, found.Facets.Options)
		}
		counts(other, all)
		other.WaitIndexes()
		same := func(step string) {
			t.Helper()
			before := other.IndexStats()
			for _, flt := range []vitrine.ProductFilter{all, filterOf(vitrine.ProductQuery{Facets: vitrine.FacetNames, Vendor: "acme", Sort: vitrine.SortName}, 5),
				filterOf(vitrine.ProductQuery{Facets: vitrine.FacetNames, Query: "cam", Sort: vitrine.SortName}, 5)} {
				if got, want := counts(other, flt), counts(bySQL, flt); got != want {
					t.Fatalf("%s: the other instance counts\n %s\nwant\n %s", step, got, want)
				}
			}
			if s := other.IndexStats(); s.Index != before.Index+3 {
				t.Fatalf("%s: %+v, before %+v: the index did not answer", step, s, before)
			}
		}
		same("built")

		p := randomProduct(r, a.ID, fc, 1000)
		p.Vendor, p.Tags = "Brand new", []string{"fresh"}
		if err := createProduct(f.db, p); err != nil {
			t.Fatal(err)
		}
		if got := counts(other, all); !strings.Contains(got, "Brand new") || !strings.Contains(got, "fresh") {
			t.Fatalf("a product created on one instance is not in the other's counts: %s", got)
		}
		same("created")

		if _, err := f.db.UpdateProduct(ctx, testChange, a.ID, p.ID, func(p *vitrine.Product) error {
			p.Vendor = "Renamed"
			p.Variants[0].Stock = 0
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got := counts(other, all); strings.Contains(got, "Brand new") || !strings.Contains(got, "Renamed") {
			t.Fatalf("a product updated on one instance is not so in the other's counts: %s", got)
		}
		same("updated")

		if err := f.db.DeleteProduct(ctx, testChange, a.ID, p.ID); err != nil {
			t.Fatal(err)
		}
		if got := counts(other, all); strings.Contains(got, "Renamed") || strings.Contains(got, "fresh") {
			t.Fatalf("a product deleted on one instance is still in the other's counts: %s", got)
		}
		same("deleted")

		var writes []vitrine.ProductWrite
		for i := range 20 {
			writes = append(writes, vitrine.ProductWrite{Create: randomProduct(r, a.ID, fc, 2000+i)})
		}
		if _, err := f.db.WriteProducts(ctx, testChange, a.ID, writes, false, nil); err != nil {
			t.Fatal(err)
		}
		same("imported")

		// A category without children deleted: its products leave it.
		leaf := fc.cats[len(fc.cats)-1]
		for _, c := range fc.cats {
			if c.ParentID == leaf.ID {
				t.Skip("the last category has children")
			}
		}
		if err := f.db.DeleteCategory(ctx, testChange, a.ID, leaf.ID); err != nil {
			t.Fatal(err)
		}
		if got := counts(other, all); strings.Contains(got, leaf.ID) {
			t.Fatalf("a deleted category is still in the other's counts: %s", got)
		}
		same("category deleted")
		fc.cats = fc.cats[:len(fc.cats)-1]
		// Writes at once, each its own transaction: their changes commit
		// in the order of their sequences, and are all counted.
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 5 {
					p := randomProduct(rand.New(rand.NewPCG(uint64(w), uint64(i))), a.ID, fc, 3000+10*w+i)
					p.Vendor = fmt.Sprintf("Writer %d", w)
					if err := createProduct(f.db, p); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		same("written at once")
		if s := other.IndexStats(); s.Builds != 1 || s.CaughtUp < 6 {
			t.Fatalf("%+v: want one build, every change applied to it", s)
		}
	})
}

// TestFacetsAfterPrunedChanges: an index older than the changes kept
// (pruned past a few sequences here) is not brought up by the rest: the
// list counts by SQL, as exactly, while the index is built again.
func TestFacetsAfterPrunedChanges(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		defer store.PruneChanges(2, 5000, 1)()
		f := newFixture(t, url)
		a := f.tenant("a", f.user("ana@example.com"))
		r := rand.New(rand.NewPCG(35, 4))
		fc := writeFacetCatalog(t, f.db, r, a.ID, 30)
		other := openWith(t, url, store.Options{})
		bySQL := openWith(t, url, store.Options{FacetIndexMemory: -1})
		all := filterOf(vitrine.ProductQuery{Facets: vitrine.FacetNames, Sort: vitrine.SortName}, 5)
		counts := func(db *store.DB) string {
			t.Helper()
			found, err := db.FindProducts(ctx, a.ID, all)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(found.Facets.Values, found.Facets.Options)
		}
		counts(other)
		other.WaitIndexes()
		for i := range 5 {
			p := randomProduct(r, a.ID, fc, 100+i)
			p.Vendor = fmt.Sprintf("Vendor %d", i)
			if err := createProduct(f.db, p); err != nil {
				t.Fatal(err)
			}
		}
		before := other.IndexStats()
		if got, want := counts(other), counts(bySQL); got != want || !strings.Contains(got, "Vendor 0") {
			t.Fatalf("after pruned changes:\n %s\nwant\n %s", got, want)
		}
		if s := other.IndexStats(); s.SQL != before.SQL+1 {
			t.Fatalf("%+v, before %+v: want the list counted by SQL", s, before)
		}
		other.WaitIndexes()
		if got, want := counts(other), counts(bySQL); got != want {
			t.Fatalf("rebuilt:\n %s\nwant\n %s", got, want)
		}
		if s := other.IndexStats(); s.Builds != 2 || s.Index != before.Index+1 {
			t.Fatalf("%+v: want a second build, answering", s)
		}
	})
}

// TestFacetIndexesWithinTheirMemory: the indexes of many companies stay
// within the memory given, the least recently listed dropped first; a
// company whose index is dropped is counted by SQL, as exactly, and its
// index built again.
func TestFacetIndexesWithinTheirMemory(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana := f.user("ana@example.com")
		r := rand.New(rand.NewPCG(35, 5))
		var tenants []string
		for i := range 3 {
			tn := f.tenant(fmt.Sprintf("t%d", i), ana)
			writeFacetCatalog(t, f.db, r, tn.ID, 40)
			tenants = append(tenants, tn.ID)
		}
		// Measure one company's index, then allow two and a half.
		probe := openWith(t, url, store.Options{})
		all := filterOf(vitrine.ProductQuery{Facets: vitrine.FacetNames, Sort: vitrine.SortName}, 5)
		if _, err := probe.FindProducts(ctx, tenants[0], all); err != nil {
			t.Fatal(err)
		}
		probe.WaitIndexes()
		one := probe.IndexBytes()
		if one == 0 {
			t.Fatal("no index built")
		}
		budget := one * 5 / 2
		db := openWith(t, url, store.Options{FacetIndexMemory: budget})
		bySQL := openWith(t, url, store.Options{FacetIndexMemory: -1})
		list := func(tenant string) {
			t.Helper()
			got, err := db.FindProducts(ctx, tenant, all)
			if err != nil {
				t.Fatal(err)
			}
			want, err := bySQL.FindProducts(ctx, tenant, all)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := fmt.Sprint(got.Facets.Values, got.Facets.Options), fmt.Sprint(want.Facets.Values, want.Facets.Options); g != w {
				t.Fatalf("%s:\n %s\nwant\n %s", tenant, g, w)
			}
			db.WaitIndexes()
			if b := db.IndexBytes(); b > budget {
				t.Fatalf("the indexes hold %d bytes, over %d", b, budget)
			}
		}
		for _, tn := range tenants { // each built; the third drops the first
			list(tn)
		}
		before := db.IndexStats()
		list(tenants[2])
		list(tenants[1])
		if s := db.IndexStats(); s.Index != before.Index+2 || s.Builds != 3 {
			t.Fatalf("%+v, before %+v: the two most recent companies are held", s, before)
		}
		list(tenants[0]) // dropped: by SQL, and built again
		if s := db.IndexStats(); s.SQL != before.SQL+1 || s.Builds != 4 {
			t.Fatalf("%+v, before %+v: the least recently listed company was not the one dropped", s, before)
		}
	})
}

// TestFacetsBySQLOutOfTime: a faceted list that its company's index
// cannot count (the index over the memory of the indexes, not built yet,
// or none kept) is counted by SQL within the call's time but a margin;
// past it, the list answers an error that says why, the call still alive
// to give it, never an internal error; so does a list that runs out of
// its time otherwise. With the time, the same list answers.
func TestFacetsBySQLOutOfTime(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		a := f.tenant("a", f.user("ana@example.com"))
		writeFacetCatalog(t, f.db, rand.New(rand.NewPCG(35, 6)), a.ID, 30)
		all := filterOf(vitrine.ProductQuery{Facets: vitrine.FacetNames, Sort: vitrine.SortName}, 5)
		over := openWith(t, url, store.Options{FacetIndexMemory: 1}) // one byte: no index fits
		none := openWith(t, url, store.Options{FacetIndexMemory: -1})
		building := openWith(t, url, store.Options{})
		// The first list of over builds its index, which is refused.
		if _, err := over.FindProducts(ctx, a.ID, all); err != nil {
			t.Fatal(err)
		}
		over.WaitIndexes()
		call, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		// The list has half its call's time, its count by SQL none of it.
		restore := store.FacetsBudget(func(left time.Duration) time.Duration {
			if left > 30*time.Second {
				return 30 * time.Second
			}
			return 0
		})
		for db, why := range map[*store.DB]string{over: "larger than the memory this server gives facet indexes",
			none: "this server keeps no facet index", building: "it is being built: try again in a few minutes"} {
			found, err := db.FindProducts(call, a.ID, all)
			e := vitrine.AsError(err)
			if e == nil || e.Type != vitrine.GenericError || !strings.Contains(e.Message, "The facets of this list could not be counted in time") ||
				!strings.Contains(e.Message, why) || !strings.Contains(e.Message, "List without facets") {
				t.Errorf("%q: %v, %v: want an error saying the facets could not be counted in time", why, found, err)
			}
		}
		restore()
		// A list that runs out of its time, with or without facets,
		// answers an error that says so.
		restore = store.FacetsBudget(func(time.Duration) time.Duration { return 0 })
		for _, f := range []vitrine.ProductFilter{all, filterOf(vitrine.ProductQuery{Sort: vitrine.SortName}, 5)} {
			found, err := none.FindProducts(call, a.ID, f)
			if e := vitrine.AsError(err); e == nil || e.Type != vitrine.GenericError || !strings.Contains(e.Message, "This list could not be read in time") {
				t.Errorf("%v, %v: want an error saying the list could not be read in time", found, err)
			}
		}
		restore()
		building.WaitIndexes()
		for _, db := range []*store.DB{over, none} {
			if found, err := db.FindProducts(call, a.ID, all); err != nil || len(found.Facets.Values[vitrine.FacetStatus]) == 0 {
				t.Errorf("with the time: %v, %v", found, err)
			}
		}
	})
}

// A list row's price and compare-at price are one variant's: the cheapest
// that the filter keeps (README's blue shirt in size M under R$70 costs
// 59.90 and has no compare-at price, though a black one costs 49.90 and
// was 69.90), the same from the facet index as from SQL, on both
// databases.
func TestListRowShowsOneVariantsPrice(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		a := f.tenant("a", f.user("ana@example.com"))
		p := newProduct(a.ID, "CAM-AZ-P", "Camiseta", 5990, vitrine.ProductActive)
		at := func(v int64) *int64 { return &v }
		p.Options = []vitrine.Option{{Name: "Cor", Values: []string{"Azul", "Preta"}}, {Name: "Tamanho", Values: []string{"P", "M", "GG"}}}
		p.Variants = nil
		for i, v := range []struct {
			color, size string
			price       int64
			compareAt   *int64
			stock       int64
		}{{"Azul", "P", 5990, nil, 6}, {"Azul", "M", 5990, nil, 8}, {"Azul", "GG", 6990, nil, 0},
			{"Preta", "P", 4990, at(5990), 4}, {"Preta", "M", 4990, at(5990), 0}, {"Preta", "GG", 5990, at(6990), 2}} {
			p.Variants = append(p.Variants, &vitrine.Variant{ID: vitrine.NewID(), SKU: "CAM-" + v.color + "-" + v.size, Options: map[string]string{"Cor": v.color, "Tamanho": v.size},
				Price: v.price, CompareAtPrice: v.compareAt, Stock: v.stock, Policy: vitrine.PolicyDeny, RequiresShipping: true, Taxable: true, Position: i + 1})
		}
		p.Summarize()
		if err := createProduct(f.db, p); err != nil {
			t.Fatal(err)
		}
		bySQL := openWith(t, url, store.Options{FacetIndexMemory: -1})
		f.db.FindProducts(ctx, a.ID, filterOf(vitrine.ProductQuery{Facets: vitrine.FacetNames}, 5))
		f.db.WaitIndexes()
		yes := true
		for _, c := range []struct {
			name             string
			q                vitrine.ProductQuery
			price, compareAt string
		}{
			{"blue, M, under 70", vitrine.ProductQuery{Options: map[string]string{"Cor": "Azul", "Tamanho": "M"}, MaxPrice: "70", Currency: "BRL"}, "5990", ""},
			{"no filter: the cheapest variant", vitrine.ProductQuery{}, "4990", "5990"},
			{"GG", vitrine.ProductQuery{Options: map[string]string{"Tamanho": "GG"}}, "5990", "6990"},
			{"from 55 in stock", vitrine.ProductQuery{MinPrice: "55", Currency: "BRL", InStock: &yes}, "5990", ""},
			{"on sale", vitrine.ProductQuery{OnSale: &yes}, "4990", "5990"},
		} {
			for _, facets := range [][]vitrine.FacetName{nil, vitrine.FacetNames} {
				c.q.Facets = facets
				for name, db := range map[string]*store.DB{"index": f.db, "sql": bySQL} {
					found, err := db.FindProducts(ctx, a.ID, filterOf(c.q, 5))
					if err != nil || len(found.Products) != 1 || len(found.Shown) != 1 {
						t.Fatalf("%s (%s): %v, %d products", c.name, name, err, len(found.Products))
					}
					v := found.Shown[0]
					compareAt := ""
					if v.CompareAtPrice != nil {
						compareAt = fmt.Sprint(*v.CompareAtPrice)
					}
					if fmt.Sprint(v.Price) != c.price || compareAt != c.compareAt {
						t.Errorf("%s (%s, facets %v): the row shows %d, compare-at %q; want %s, %q", c.name, name, facets != nil, v.Price, compareAt, c.price, c.compareAt)
					}
				}
			}
		}
	})
}

// A call's store keeps, across calls, the company's analyzed synonyms and,
// without a facet index, the words its typos are found among: each call
// read and analyzed them again (a call's store began with none). The words
// kept are the catalog's at its sequence: a product written after is
// found by a typo of its word at the next call. Both databases.
func TestCallsKeepSynonymsAndWordsUntilTheCatalogChanges(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		a := f.tenant("a", f.user("ana@example.com"))
		none := openWith(t, url, store.Options{FacetIndexMemory: -1})
		if err := createProduct(none, newProduct(a.ID, "BR-1", "Bracelete de prata", 1, vitrine.ProductActive)); err != nil {
			t.Fatal(err)
		}
		find := func(query string) []string {
			t.Helper()
			var names []string
			for _, p := range pages(t, none, a.ID, filterOf(vitrine.ProductQuery{Query: vitrine.QueryText(query)}, 10)) {
				names = append(names, p.Name)
			}
			return names
		}
		if got := find("braclete"); !slices.Equal(got, []string{"Bracelete de prata"}) {
			t.Fatalf("a typo of bracelete: %v", got)
		}
		if th, words := none.Kept(); th != 1 || words != 1 {
			t.Fatalf("after a call: %d thesauri, %d companies' words kept; want 1 and 1", th, words)
		}
		find("braclete")
		if th, words := none.Kept(); th != 1 || words != 1 {
			t.Fatalf("after a second call: %d thesauri, %d companies' words kept; want 1 and 1", th, words)
		}
		if err := createProduct(none, newProduct(a.ID, "JK-1", "Jaqueta jeans", 1, vitrine.ProductActive)); err != nil {
			t.Fatal(err)
		}
		if got := find("jaquta"); !slices.Equal(got, []string{"Jaqueta jeans"}) {
			t.Fatalf("a typo of a word written after the words were kept: %v", got)
		}
	})
}
