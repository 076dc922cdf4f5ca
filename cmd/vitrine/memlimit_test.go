package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The soft memory limit an operator reads in /metrics: 128 MiB while the
// facet indexes hold little (what they and their builds hold plus 64
// MiB once that is more), and GOMEMLIMIT's when it is set, through the
// binary.
func TestServeSoftMemoryLimit(t *testing.T) {
	db := filepath.Join(t.TempDir(), "mem.db")
	var w struct {
		Tenants []struct{ ID string }
		Users   []struct{ Token string }
	}
	json.Unmarshal([]byte(must(t, "demo", "--db", db, "--json")), &w)
	limit := func(url string) int64 {
		t.Helper()
		_, metrics := get(t, url+"/metrics")
		m := regexp.MustCompile(`(?m)^go_gc_gomemlimit_bytes (\S+)$`).FindStringSubmatch(metrics)
		if m == nil {
			t.Fatalf("no go_gc_gomemlimit_bytes in /metrics")
		}
		f, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		return int64(f)
	}

	t.Setenv("GOMEMLIMIT", "")
	cmd, url, built := startServeWatching(t, db, regexp.MustCompile(`"msg":"facet index: built"`))
	defer cmd.Process.Kill()
	if got := limit(url); got != 128<<20 {
		t.Errorf("the soft memory limit at start: %d, want 128 MiB", got)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: &http.Client{Transport: bearer(w.Users[0].Token)}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_products", Arguments: map[string]any{
		"tenant_id": w.Tenants[0].ID, "facets": []string{"vendor", "tags"}}})
	if err != nil || res.IsError {
		t.Fatalf("a faceted list: %v %+v", err, res)
	}
	select {
	case <-built:
	case <-time.After(30 * time.Second):
		t.Fatal("the demo company's index was not built")
	}
	if got := limit(url); got != 128<<20 {
		t.Errorf("the soft memory limit with the demo's index: %d, want 128 MiB", got)
	}

	t.Setenv("GOMEMLIMIT", "300MiB")
	cmd2, url2 := startServe(t, db)
	defer cmd2.Process.Kill()
	if got := limit(url2); got != 300<<20 {
		t.Errorf("the soft memory limit under GOMEMLIMIT=300MiB: %d", got)
	}
}
