package httpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	segjson "github.com/segmentio/encoding/json"
)

// gate holds back a response until the pipeline has checked its caller's
// access epoch, which it does before anything of the call is sent: the
// SDK writes a tool call's response, or the first message on its stream,
// after the handler has run. If the caller's token was refused on a
// recheck (answer), the response becomes that refusal and what the SDK
// writes after it is dropped; otherwise everything passes through.
type gate struct {
	http.ResponseWriter
	mu      sync.Mutex
	refusal func(http.ResponseWriter)
	decided bool
	open    bool
}

// answer makes the response the one write gives, unless it has begun.
func (g *gate) answer(write func(http.ResponseWriter)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.decided {
		g.refusal = write
	}
}

// pass decides, at the response's first byte, whether it goes out.
func (g *gate) pass() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.decided {
		g.decided, g.open = true, g.refusal == nil
		if !g.open {
			h := g.ResponseWriter.Header()
			for k := range h {
				delete(h, k)
			}
			g.refusal(g.ResponseWriter)
		}
	}
	return g.open
}

func (g *gate) WriteHeader(code int) {
	if g.pass() {
		g.ResponseWriter.WriteHeader(code)
	}
}

func (g *gate) Write(b []byte) (int, error) {
	if g.pass() {
		return g.ResponseWriter.Write(b)
	}
	return len(b), nil
}

func (g *gate) Flush() {
	if f, ok := g.ResponseWriter.(http.Flusher); ok && g.pass() {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController set deadlines on the connection.
func (g *gate) Unwrap() http.ResponseWriter { return g.ResponseWriter }

// rpc is what the token check reads of a POST's JSON-RPC message: its
// method and its params, or, of a batch (which MCP 2025-03-26 allows), how
// many messages it holds.
type rpc struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	// batch is the number of messages of a batch; 0 for one message.
	batch int
}

// calls is the number of calls the request counts for against the
// per-token limits: each message of a batch, else one.
func (m rpc) calls() int { return max(m.batch, 1) }

// readRPC reads the request's JSON-RPC message, if it is one. It reads the
// body, bounded as limits set it, and puts it back as it was, a read error
// included, for the SDK. It parses the message in place (segmentio's
// Parse, the decoder the SDK parses it with again), with no copy of the
// body and no pass over it to validate it first: encoding/json's took a
// twentieth of a get_product's own work. A message it cannot read is the
// SDK's to refuse.
func readRPC(r *http.Request) rpc {
	var m rpc
	if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
		return m
	}
	body, err := io.ReadAll(r.Body)
	r.Body = readBack{Reader: io.MultiReader(bytes.NewReader(body), errorReader{err}), Closer: r.Body}
	if err != nil {
		return rpc{}
	}
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		// A batch: its messages are the SDK's to read; only their number
		// matters here. One it cannot read is the SDK's to refuse.
		var batch []segjson.RawMessage
		if _, err := segjson.Parse(t, &batch, segjson.ZeroCopy); err == nil {
			m.batch = len(batch)
		}
		return m
	}
	if _, err := segjson.Parse(body, &m, segjson.DontMatchCaseInsensitiveStructFields|segjson.ZeroCopy); err != nil {
		return rpc{}
	}
	return m
}

// pipelined reports whether the message is one call that the MCP pipeline
// runs and checks the access epoch of (tools/call, resources/read).
func (m rpc) pipelined() bool { return m.Method == "tools/call" || m.Method == "resources/read" }

type readBack struct {
	io.Reader
	io.Closer
}

// errorReader ends a body read back with the error its first read met.
type errorReader struct{ err error }

func (e errorReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}
