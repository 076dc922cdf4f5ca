package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/store"
)

// Three instances serve one database, each with its facet index. Writes
// go through one of them, which is killed (SIGKILL) in the middle of them;
// every faceted list on the others counts, at its next call, every write
// acknowledged before that call started; once the load is over, their
// counts are the database's (as the SQL counts them, with no index); and
// an instance started after the kill, and the killed one started again,
// answer the same at their first call.
func TestFacetsThroughKilledInstances(t *testing.T) { dbtest.Each(t, testFacetsThroughKilledInstances) }

const clusterTag = "kill-load"

var clusterFacets = []string{"vendor", "tags", "status", "product_type"}

func testFacetsThroughKilledInstances(t *testing.T, db string) {
	tenant, token := demoWorld(t, db)
	writer, writerURL := startServe(t, db)
	defer func() { writer.Process.Kill(); writer.Wait() }()
	built := regexp.MustCompile(`"msg":"facet index: built".*"tenant_id":"` + tenant + `"`)
	readers := make([]string, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var sessions []*mcp.ClientSession
	for i := range readers {
		cmd, url, indexed := startServeWatching(t, db, built)
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		readers[i] = url
		cs := connect(t, ctx, url, token)
		defer cs.Close()
		sessions = append(sessions, cs)
		facetsOf(t, ctx, cs, tenant, nil) // the company's index starts building
		// The lists below are the index's, not the SQL's of a build.
		select {
		case <-indexed:
		case <-time.After(30 * time.Second):
			t.Fatal("the company's facet index was never built")
		}
	}

	var (
		mu    sync.Mutex
		acked int
	)
	load, stopLoad := context.WithCancel(ctx)
	killAt := make(chan struct{})
	wg := createLoad(t, load, writerURL, token, 4, func(g, i int) (string, map[string]any) {
		sku := fmt.Sprintf("KL-%d-%d", g, i)
		return sku, map[string]any{"tenant_id": tenant, "sku": sku, "name": "Kill load " + sku, "price": "1.00", "stock": 1,
			"vendor": fmt.Sprintf("Kill Vendor %d", i%3), "tags": []string{clusterTag, fmt.Sprintf("kl-%d", g)}}
	}, func(string) {
		mu.Lock()
		acked++
		if acked == 120 {
			close(killAt)
		}
		mu.Unlock()
	})
	// The readers list while the writes go on: each call counts at least
	// the writes acknowledged before it started.
	reads := 0
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for load.Err() == nil {
				mu.Lock()
				before := acked
				mu.Unlock()
				got := facetsOf(t, load, cs, tenant, []string{clusterTag})
				if got == nil {
					return
				}
				if n := got["tags"][clusterTag]; n < int64(before) {
					t.Errorf("a faceted list counts %d products tagged %s, after %d were acknowledged", n, clusterTag, before)
					return
				}
				mu.Lock()
				reads++
				mu.Unlock()
			}
		}()
	}
	select {
	case <-killAt:
	case <-time.After(60 * time.Second):
		t.Fatal("the load never reached 120 writes")
	}
	writer.Process.Signal(syscall.SIGKILL) // mid-load: other writes are in flight
	writer.Wait()
	// The readers go on past the kill, then stop.
	time.AfterFunc(2*time.Second, stopLoad)
	wg.Wait()
	if t.Failed() {
		return
	}

	// The database's counts, by SQL: no index in this store.
	s, err := store.Open(ctx, db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	names := make([]vitrine.FacetName, len(clusterFacets))
	for i, n := range clusterFacets {
		names[i] = vitrine.FacetName(n)
	}
	want := map[string]map[string]map[string]int64{}
	for _, tags := range [][]string{nil, {clusterTag}} {
		q := vitrine.ProductQuery{Facets: names, Sort: vitrine.SortName}
		for _, tag := range tags {
			q.Tags = append(q.Tags, vitrine.QueryText(tag))
		}
		f, err := vitrine.NewProductFilter(q)
		if err != nil {
			t.Fatal(err)
		}
		found, err := s.FindProducts(ctx, tenant, f.Page(1, nil))
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]map[string]int64{}
		for name, values := range found.Facets.Values {
			counts[string(name)] = map[string]int64{}
			for _, v := range values {
				counts[string(name)][v.Value] = v.Count
			}
		}
		want[fmt.Sprint(tags)] = counts
	}
	if n := want[fmt.Sprint([]string{clusterTag})]["tags"][clusterTag]; n < int64(acked) {
		t.Fatalf("%d products tagged in the database, %d acknowledged", n, acked)
	}

	// Those still up, one started after the kill, and the killed one
	// started again all count as the database does, at their first call.
	again, againURL := startServe(t, db)
	defer func() { again.Process.Kill(); again.Wait() }()
	fresh, freshURL := startServe(t, db)
	defer func() { fresh.Process.Kill(); fresh.Wait() }()
	for i, url := range append(readers, againURL, freshURL) {
		cs := connect(t, ctx, url, token)
		for _, tags := range [][]string{nil, {clusterTag}} {
			got := facetsOf(t, ctx, cs, tenant, tags)
			for _, name := range clusterFacets {
				if w := want[fmt.Sprint(tags)][name]; !maps.Equal(got[name], w) {
					t.Errorf("instance %d, tags %v, facet %s: %v, the database counts %v", i, tags, name, got[name], w)
				}
			}
		}
		cs.Close()
	}
	t.Logf("%d writes acknowledged before the kill, %d faceted lists during the load, every one counting them", acked, reads)
}

// facetsOf lists the company's products, with tags if given, and returns
// their facets' counts by facet and value; nil when the server is gone.
func facetsOf(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tenant string, tags []string) map[string]map[string]int64 {
	t.Helper()
	args := map[string]any{"tenant_id": tenant, "facets": clusterFacets, "limit": 1}
	if tags != nil {
		args["tags"] = tags
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_products", Arguments: args})
	if err != nil {
		if ctx.Err() == nil {
			t.Errorf("list_products: %v", err)
		}
		return nil
	}
	if res.IsError {
		t.Errorf("list_products: %s", res.Content[0].(*mcp.TextContent).Text)
		return nil
	}
	var out struct {
		Facets map[string][]vitrine.FacetValue `json:"facets"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Errorf("list_products' facets: %v", err)
		return nil
	}
	counts := map[string]map[string]int64{}
	for _, name := range slices.Sorted(maps.Keys(out.Facets)) {
		counts[name] = map[string]int64{}
		for _, v := range out.Facets[name] {
			counts[name][v.Value] = v.Count
		}
	}
	return counts
}
