package facetindex

import (
	"fmt"
	"testing"
)

func company(t *testing.T, products int) *Index {
	t.Helper()
	ix := New()
	for i := range products {
		if err := ix.Put(shirt(fmt.Sprintf("0190f000-0000-7000-8000-%012x", i), "Acme", "M", fmt.Sprintf("sku%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

// Companies past the budget drop the least recently used first; one
// larger than the whole budget is not held at all.
func TestCacheDropsTheLeastRecentlyUsed(t *testing.T) {
	a, b, c := company(t, 100), company(t, 100), company(t, 100)
	cache := NewCache(a.Bytes() + b.Bytes() + c.Bytes()/2)
	cache.Add("a", a)
	cache.Add("b", b)
	cache.Get("a")
	cache.Add("c", c) // over budget: b is the least recently used
	if cache.Get("a") != a || cache.Get("b") != nil || cache.Get("c") != c {
		t.Errorf("held a %v, b %v, c %v", cache.Get("a") != nil, cache.Get("b") != nil, cache.Get("c") != nil)
	}
	if cache.Bytes() != a.Bytes()+c.Bytes() {
		t.Errorf("holds %d bytes, want %d", cache.Bytes(), a.Bytes()+c.Bytes())
	}
	big := company(t, 1000)
	if cache.Add("big", big) || cache.Get("big") != nil || cache.Get("a") != a {
		t.Error("a company over the whole budget was held, or dropped the others")
	}
	// A company that grows past the budget with its writes is dropped.
	for i := range 1000 {
		if err := c.Put(shirt(fmt.Sprintf("0190f000-0000-7000-9000-%012x", i), "Zeta", "L")); err != nil {
			t.Fatal(err)
		}
	}
	cache.Resize("c")
	if cache.Get("c") != nil || cache.Get("a") != a {
		t.Error("a company grown past the budget is still held")
	}
	cache.Remove("a")
	if cache.Get("a") != nil || cache.Bytes() != 0 {
		t.Errorf("after removing the last: %d bytes", cache.Bytes())
	}
}
