package facetindex

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vitrine/vitrine"
)

// Products put, replaced and deleted in any order, and the tree changed
// under them, leave the index answering as a catalog built of what is
// left does; the pool and the terms of what left are compacted away.
func TestRandomUpdates(t *testing.T) {
	defer func(n int) { compactAt = n }(compactAt)
	compactAt = 64
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 11))
		b := newBrute()
		b.cats = randomTree(rng, 10)
		ix := New()
		ix.SetCategories(b.cats)
		var ids []string
		if seed%2 == 1 {
			// Built: its products ranked by name, those written after
			// (added, renamed, written again as they were) among them.
			bl := NewBuilder(0)
			bl.SetCategories(b.cats)
			for i := range 50 + rng.IntN(200) {
				p := randomProduct(rng, randomID(rng), i, b.cats)
				if err := bl.Add(p); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, p.ID)
				b.products[p.ID] = p
			}
			ix = bl.Finish(0)
		}
		for step := range 40 {
			var puts []*Product
			var dels []string
			for range rng.IntN(60) {
				switch n := rng.IntN(10); {
				case n < 5 || len(ids) == 0:
					id := randomID(rng)
					ids = append(ids, id)
					puts = append(puts, randomProduct(rng, id, rng.IntN(1000), b.cats))
				case n < 6:
					if p := b.products[pick(rng, ids)]; p != nil {
						puts = append(puts, p)
					}
				case n < 8:
					puts = append(puts, randomProduct(rng, pick(rng, ids), rng.IntN(1000), b.cats))
				default:
					i := rng.IntN(len(ids))
					dels = append(dels, ids[i])
					ids = slices.Delete(ids, i, i+1)
				}
			}
			if ok, err := ix.Apply(uint64(step+1), puts, dels); !ok || err != nil {
				t.Fatalf("apply at %d: %v %v", step+1, ok, err)
			}
			for _, p := range puts {
				b.products[p.ID] = p
			}
			for _, id := range dels {
				delete(b.products, id)
				for _, p := range puts {
					if p.ID == id {
						ids = slices.DeleteFunc(ids, func(s string) bool { return s == id })
					}
				}
			}
			if rng.IntN(8) == 0 {
				b.cats = randomTree(rng, 10)
				ix.SetCategories(b.cats)
			}
			if ix.Len() != len(b.products) || ix.Seq() != uint64(step+1) {
				t.Fatalf("step %d: %d products at %d, want %d", step, ix.Len(), ix.Seq(), len(b.products))
			}
			t.Run(fmt.Sprintf("seed %d step %d", seed, step), func(t *testing.T) { check(t, rng, ix, b, 4) })
		}
	}
}

// Changes older than the index are not applied, and the index answers
// for the snapshot of its own sequence only.
func TestApplyOlderChanges(t *testing.T) {
	ix := New()
	p := shirt("0190f000-0000-7000-8000-000000000001", "Acme", "M")
	if ok, err := ix.Apply(5, []*Product{p}, nil); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, _ := ix.Apply(4, nil, []string{p.ID}); ok || ix.Len() != 1 || ix.Seq() != 5 {
		t.Errorf("an older change was applied: %d products at %d", ix.Len(), ix.Seq())
	}
	q := Query{Facets: []vitrine.FacetName{vitrine.FacetVendor}}
	if _, ok := ix.FacetsAt(4, q); ok {
		t.Error("an index at 5 answered for a snapshot at 4")
	}
	if f, ok := ix.FacetsAt(5, q); !ok || fmt.Sprint(f.Values[vitrine.FacetVendor]) != "[{Acme  1}]" {
		t.Errorf("at its own sequence: %v %v", f, ok)
	}
}

func shirt(id, vendor string, sizes ...string) *Product {
	p := &Product{ID: id, Status: vitrine.ProductActive, Vendor: vendor, Currency: "BRL", Options: []string{"Size"}, Tags: []string{"Summer"},
		Words: vitrine.Words("Shirt " + strings.Join(sizes, " "))}
	for _, s := range sizes {
		p.Variants = append(p.Variants, Variant{Values: []string{s}, Price: 100, Stock: 1})
	}
	return p
}

// What a merchant sees: the counts follow each write at once, a product
// counts once per value however many variants hold it, and a value
// written in two forms shows the form of the lowest id.
func TestFacetsFollowWrites(t *testing.T) {
	ix := New()
	a, b, c := "0190f000-0000-7000-8000-00000000000a", "0190f000-0000-7000-8000-00000000000b", "0190f000-0000-7000-8000-00000000000c"
	for _, p := range []*Product{shirt(b, "ACME", "M", "L"), shirt(a, "Acme", "M"), shirt(c, "Zeta", "S", "M")} {
		if err := ix.Put(p); err != nil {
			t.Fatal(err)
		}
	}
	q := Query{Facets: []vitrine.FacetName{vitrine.FacetVendor, vitrine.FacetOptions}}
	facets := func() string {
		f := ix.Facets(q)
		return fmt.Sprint(f.Values[vitrine.FacetVendor], f.Options)
	}
	if got, want := facets(), "[{Acme  2} {Zeta  1}] map[Size:[{M  3} {L  1} {S  1}]]"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	ix.Delete(a) // the lowest id: ACME now shows as its other product writes it
	if err := ix.Put(shirt(c, "Zeta", "XL")); err != nil {
		t.Fatal(err)
	}
	if got, want := facets(), "[{ACME  1} {Zeta  1}] map[Size:[{L  1} {M  1} {XL  1}]]"; got != want {
		t.Errorf("after a delete and a replace: got %s, want %s", got, want)
	}
	q.Filter.Options = map[string]string{"size": "M"}
	if got := ix.Match(q); !reflect.DeepEqual(got, []string{b}) {
		t.Errorf("Size M: %v", got)
	}
	q.Filter = Terms{Words: []string{"x"}}
	if got := ix.Match(q); !reflect.DeepEqual(got, []string{c}) {
		t.Errorf("a word of the replaced product: %v", got)
	}
}

// Readers and writers at once: every read sees a whole write (the race
// detector watches the rest), and the end is the last writes' catalog.
func TestConcurrentReadsAndWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := newBrute()
	b.cats = randomTree(rng, 8)
	ix := New()
	ix.SetCategories(b.cats)
	var ids []string
	for i := range 300 {
		id := randomID(rng)
		ids = append(ids, id)
		p := randomProduct(rng, id, i, b.cats)
		b.products[id] = p
		if err := ix.Put(p); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(r), 3))
			for range 200 {
				// One read sees one catalog: a product has one status, so
				// the statuses count the filter's products, and no value
				// counts more.
				q := randomFilter(rng, b)
				q.Facets = vitrine.FacetNames
				facets := ix.Facets(q)
				var n int64
				for _, v := range facets.Values[vitrine.FacetStatus] {
					n += v.Count
				}
				for _, vs := range facets.Options {
					for _, v := range vs {
						if v.Count > n {
							t.Errorf("%s counts %d of %d products", v.Value, v.Count, n)
						}
					}
				}
			}
		})
	}
	writes := make([]*Product, 400)
	for i := range writes {
		writes[i] = randomProduct(rng, pick(rng, ids), i, b.cats)
	}
	wg.Go(func() {
		for _, p := range writes {
			if err := ix.Put(p); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	for _, p := range writes {
		b.products[p.ID] = p
	}
	check(t, rng, ix, b, 20)
}
