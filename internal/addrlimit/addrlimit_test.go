package addrlimit

import (
	"fmt"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// A key held back stays held back however many new keys come: the table
// forgets only recovered buckets, and when it is full of keys still held
// back, new keys share one overflow bucket (it once started over, and the
// held-back address with it).
func TestHeldBackStaysHeldBack(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	tab := New(rate.Every(time.Minute), 1, 100)
	if !tab.Allow("203.0.113.66", now) || tab.Allow("203.0.113.66", now) {
		t.Fatal("a burst of 1")
	}
	for i := range 1000 {
		tab.Allow(fmt.Sprintf("198.51.%d.%d", i/256, i%256), now.Add(time.Duration(i)*time.Millisecond))
	}
	if tab.Len() > 100 {
		t.Errorf("the table holds %d keys, more than its 100", tab.Len())
	}
	if tab.Allow("203.0.113.66", now.Add(2*time.Second)) {
		t.Error("the held-back address was forgotten under a flood of others")
	}
	// The flood's new keys share one bucket: only one got through.
	through := 0
	for i := range 50 {
		if tab.Allow(fmt.Sprintf("192.0.2.%d", i), now.Add(3*time.Second)) {
			through++
		}
	}
	if through > 1 {
		t.Errorf("%d new addresses went through a full table, want at most 1 (the overflow bucket's burst)", through)
	}
	// A minute on, every bucket has recovered: the table makes room again.
	later := now.Add(2 * time.Minute)
	if !tab.Allow("192.0.2.200", later) || !tab.Allow("203.0.113.66", later) {
		t.Error("recovered buckets are not forgotten")
	}
}

func TestKey(t *testing.T) {
	for addr, want := range map[string]string{
		"203.0.113.7":          "203.0.113.7",
		"::ffff:203.0.113.7":   "203.0.113.7",
		"2001:db8:1:2:3:4:5:6": "2001:db8:1:2::/64",
		"2001:db8:1:2::ffff":   "2001:db8:1:2::/64",
		"2001:db8:1:3::1":      "2001:db8:1:3::/64",
		"fe80::1%eth0":         "fe80::/64",
		"not an address":       "not an address",
	} {
		if got := Key(addr); got != want {
			t.Errorf("Key(%q) = %q, want %q", addr, got, want)
		}
	}
}
