package shopwindow

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// The instance answers at most WholeInFlight whole catalogs at once, for
// every address together; a place comes back when its answer ends.
func TestWholeCatalogPlaces(t *testing.T) {
	s := &Server{metrics: newMetrics(nil), wholeSlots: make(chan struct{}, 2)}
	var releases []func()
	for i := range 2 {
		release, ok := s.takeWhole(httptest.NewRecorder(), "203.0.113."+string(rune('1'+i)))
		if !ok {
			t.Fatalf("place %d refused", i+1)
		}
		releases = append(releases, release)
	}
	w := httptest.NewRecorder()
	if _, ok := s.takeWhole(w, "198.51.100.9"); ok || w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("a third at once: ok %v, %d %v", ok, w.Code, w.Header())
	}
	releases[0]()
	if release, ok := s.takeWhole(httptest.NewRecorder(), "198.51.100.9"); !ok {
		t.Fatal("a place given back was not taken again")
	} else {
		release()
	}
}
