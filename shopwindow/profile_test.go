package shopwindow

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// An address past its fetch quota is answered 429 for a profile not kept,
// and served a profile kept but past its time, for up to a day.
func TestProfileFetchQuotaServesStale(t *testing.T) {
	fetches := 0
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches++
		fmt.Fprint(w, `{"ucp":{"version":"`+Version+`","capabilities":{"`+CapSearch+`":[{"version":"`+Version+`"}]}}}`)
	}))
	defer agent.Close()
	now := time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)
	ps := newProfiles(true, false, func(string) {})
	ps.now = func() time.Time { return now }
	kept := agent.URL + "/kept.json"
	if p, err := ps.get(context.Background(), "203.0.113.7", kept); err != nil || !p.Capabilities[CapSearch] {
		t.Fatalf("the first fetch: %v %v", p, err)
	}
	for i := 1; i < profileFetchAddrBurst; i++ {
		if _, err := ps.get(context.Background(), "203.0.113.7", fmt.Sprintf("%s/%d.json", agent.URL, i)); err != nil {
			t.Fatalf("fetch %d within the quota: %v", i, err)
		}
	}
	if _, err := ps.get(context.Background(), "203.0.113.7", agent.URL+"/new.json"); err == nil || err.code != "rate_limited" || err.retryAfter <= 0 {
		t.Errorf("a new profile past the quota: %v", err)
	}
	spend := func() {
		for i := range profileFetchAddrBurst + 1 {
			ps.get(context.Background(), "203.0.113.7", fmt.Sprintf("%s/%s/%d.json", agent.URL, now.Format("150405"), i))
		}
	}
	now = now.Add(2 * time.Hour) // kept.json is past its time
	spend()
	before := fetches
	if p, err := ps.get(context.Background(), "203.0.113.7", kept); err != nil || p == nil || fetches != before {
		t.Errorf("a stale profile past the quota: %v %v, %d fetches", p, err, fetches-before)
	}
	now = now.Add(profileStaleMax)
	spend()
	if _, err := ps.get(context.Background(), "203.0.113.7", kept); err == nil || err.code != "rate_limited" {
		t.Errorf("a profile stale past a day, past the quota: %v", err)
	}
	// Another address is not held back by this one.
	if _, err := ps.get(context.Background(), "198.51.100.9", kept); err != nil {
		t.Errorf("another address: %v", err)
	}
}
