package main

import (
	"testing"
	"time"
)

// A fill's tenths: ten batches of 100 products, at one a second and then
// at one every two seconds, read as 100 products a second first and 50
// last.
func TestFillTenths(t *testing.T) {
	start := time.Unix(1000, 0)
	var written []commit
	at := start
	for i := range 10 {
		step := time.Second
		if i >= 5 {
			step = 2 * time.Second
		}
		at = at.Add(step)
		written = append(written, commit{at: at, products: 100})
	}
	if r := tenths(start, written); r.first != 100 || r.last != 50 {
		t.Errorf("tenths: %+v, want first 100 and last 50 products a second", r)
	}
}
