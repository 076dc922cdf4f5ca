package store_test

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/store"
)

// TestIndexBytesReported holds the store to what vitrine serve sets its
// memory limit by: while a company's index builds, a chunk at a time, the
// bytes told grow with the build; once it is built, they are the bytes
// the indexes hold; once a write brings the index up, they follow it.
func TestIndexBytesReported(t *testing.T) {
	defer store.BuildChunk(20)() // a build of several chunks
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana := f.user("ana@example.com")
		a := f.tenant("a", ana)
		writeFacetCatalog(t, f.db, rand.New(rand.NewPCG(35, 3)), a.ID, 120)

		var (
			mu   sync.Mutex
			told []int64
		)
		db := openWith(t, url, store.Options{OnIndexBytes: func(n int64) {
			mu.Lock()
			defer mu.Unlock()
			told = append(told, n)
		}})
		last := func() []int64 {
			mu.Lock()
			defer mu.Unlock()
			return append([]int64(nil), told...)
		}
		list := filterOf(vitrine.ProductQuery{Facets: vitrine.FacetNames, Sort: vitrine.SortName}, 5)
		if _, err := db.FindProducts(ctx, a.ID, list); err != nil {
			t.Fatal(err)
		}
		db.WaitIndexes()
		got := last()
		// Six chunks of 20 products: told after each, and once more when
		// the index is held.
		if len(got) < 7 {
			t.Fatalf("told %v while building six chunks", got)
		}
		for i := 1; i < len(got)-1; i++ {
			if got[i] <= got[i-1] {
				t.Fatalf("the bytes told while building do not grow: %v", got)
			}
		}
		built := db.IndexBytes()
		if built == 0 || got[len(got)-1] != built {
			t.Fatalf("told %v after the build, the indexes hold %d", got, built)
		}

		// A write, brought into the index by the next faceted list.
		p := newProduct(a.ID, "BYTES-1", "A product with a long name that the index holds as well", 0, vitrine.ProductActive)
		p.Tags = []string{"a-new-tag", "another-new-tag"}
		if _, err := f.db.CreateProduct(ctx, testChange, p, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := db.FindProducts(ctx, a.ID, list); err != nil {
			t.Fatal(err)
		}
		if s := db.IndexStats(); s.CaughtUp != 1 {
			t.Fatalf("index stats %+v, want the write caught up", s)
		}
		got = last()
		if now := db.IndexBytes(); got[len(got)-1] != now || now == built {
			t.Fatalf("after a write: told %d, the indexes hold %d (%d before)", got[len(got)-1], now, built)
		}
	})
}
