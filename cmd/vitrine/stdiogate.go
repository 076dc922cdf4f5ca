package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"
)

// stdioGate sits between vitrine stdio's streams and the SDK's transport,
// so that requests piped in (a script's, stdin then closed) are all
// answered: the SDK handles messages concurrently and ends at the end of
// its input, cancelling what is in flight, and would read
// notifications/initialized before it is done with initialize. The gate
// holds the lines after an initialize request until it is answered, and
// the end of the input until every request read has its answer (or
// drain has passed). Other requests flow as they come: a client may still
// cancel one while it runs.
type stdioGate struct {
	in    *bufio.Reader
	drain time.Duration

	mu      sync.Mutex
	changed *sync.Cond
	pending map[string]bool // ids of the requests read and not answered
	initID  string          // the initialize request's, until answered
	stopped bool            // the command was interrupted: nothing waits
	line    []byte          // the rest of the line being read
	out     []byte          // what was written and does not end a line yet
}

func newStdioGate(ctx context.Context, r io.Reader, drain time.Duration) *stdioGate {
	g := &stdioGate{in: bufio.NewReaderSize(r, 64<<10), drain: drain, pending: map[string]bool{}}
	g.changed = sync.NewCond(&g.mu)
	context.AfterFunc(ctx, func() {
		g.mu.Lock()
		g.stopped = true
		g.mu.Unlock()
		g.changed.Broadcast()
	})
	return g
}

type rpcHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// Read gives the input a line at a time, holding it as the gate says.
func (g *stdioGate) Read(p []byte) (int, error) {
	if len(g.line) == 0 {
		g.wait(func() bool { return g.initID == "" }, 0)
		line, err := g.in.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				g.wait(func() bool { return len(g.pending) == 0 }, g.drain)
			}
			return 0, err
		}
		var h rpcHead
		if json.Unmarshal(bytes.TrimSpace(line), &h) == nil && len(h.ID) > 0 && h.Method != "" {
			g.mu.Lock()
			g.pending[string(h.ID)] = true
			if h.Method == "initialize" {
				g.initID = string(h.ID)
			}
			g.mu.Unlock()
		}
		g.line = line
	}
	n := copy(p, g.line)
	g.line = g.line[n:]
	return n, nil
}

// wait blocks until done holds, or for at most limit when it is not 0.
func (g *stdioGate) wait(done func() bool, limit time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	expired := false
	if limit > 0 {
		t := time.AfterFunc(limit, func() {
			g.mu.Lock()
			expired = true
			g.mu.Unlock()
			g.changed.Broadcast()
		})
		defer t.Stop()
	}
	for !done() && !expired && !g.stopped {
		g.changed.Wait()
	}
}

// answered notes the answers among the lines written.
func (g *stdioGate) answered(p []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.out = append(g.out, p...)
	for {
		i := bytes.IndexByte(g.out, '\n')
		if i < 0 {
			return
		}
		var h rpcHead
		if json.Unmarshal(g.out[:i], &h) == nil && len(h.ID) > 0 && h.Method == "" {
			delete(g.pending, string(h.ID))
			if string(h.ID) == g.initID {
				g.initID = ""
			}
			g.changed.Broadcast()
		}
		g.out = g.out[i+1:]
	}
}

// gateWriter writes to w and tells the gate what was answered.
type gateWriter struct {
	w io.Writer
	g *stdioGate
}

func (w gateWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.g.answered(p[:n])
	return n, err
}
