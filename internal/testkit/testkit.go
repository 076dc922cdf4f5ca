// Package testkit holds the small helpers that tests of several packages
// share: a log that goroutines write to, and an HTTP client that sends a
// bearer token.
package testkit

import (
	"bytes"
	"net/http"
	"sync"
)

// SyncBuffer is a log that several goroutines write to and a test reads.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Bearer is a transport that sends its token as "Authorization: Bearer".
type Bearer string

func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// BearerClient is an HTTP client that sends token with every request.
func BearerClient(token string) *http.Client { return &http.Client{Transport: Bearer(token)} }
