package sdkcost

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// server is a bare go-sdk server with one tool that does nothing.
func server() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "noop", InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"id": {Type: "string"}}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
		})
	return s
}

// recorded is an HTTP request as the go-sdk client sent it.
type recorded struct {
	header http.Header
	body   []byte
}

// recordCall connects the go-sdk client to h, calls the tool once, and
// returns the tools/call request exactly as the client sent it (headers,
// session id if the handler handed one out, and body).
func recordCall(t testing.TB, h http.Handler) recorded {
	var (
		mu   sync.Mutex
		last recorded
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			mu.Lock()
			last = recorded{r.Header.Clone(), body}
			mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Closed after the benchmark: closing ends the session it replays.
	t.Cleanup(func() { cs.Close() })
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "noop", Arguments: map[string]any{"id": "p-1"}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if last.body == nil {
		t.Fatal("the client sent no tools/call")
	}
	return last
}

// BenchmarkToolCall serves the go-sdk client's own tools/call request
// again and again, in process (no network): on the default handler, which
// hands the client a session and serves its calls in it, and on the
// stateless handler, the path every request of the sessionless protocol
// revision (2026-07-28) takes on a server that holds no sessions.
func BenchmarkToolCall(b *testing.B) {
	for _, c := range []struct {
		name string
		opts *mcp.StreamableHTTPOptions
	}{{"session", nil}, {"stateless", &mcp.StreamableHTTPOptions{Stateless: true}}} {
		b.Run(c.name, func(b *testing.B) {
			s := server()
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, c.opts)
			req := recordCall(b, h)
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(req.body))
				r.Header = req.header.Clone()
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte(`"result"`)) {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}

// BenchmarkUnmarshal is the root of most of it: the SDK's internal
// json.Unmarshal wraps every byte slice it decodes in a new segmentio
// Decoder, which allocates and clears a 32 KiB buffer to read it from,
// about six times per tools/call on the stateless path. Parsing the slice
// in place, with the same flags, allocates nothing of the kind.
func BenchmarkUnmarshal(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"noop","arguments":{"id":"p-1"}}}`)
	type message struct {
		ID     int64  `json:"id"`
		Method string `json:"method"`
	}
	b.Run("Decoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m message
			d := segjson.NewDecoder(bytes.NewReader(msg))
			d.DontMatchCaseInsensitiveStructFields()
			if err := d.Decode(&m); err != nil || m.Method != "tools/call" {
				b.Fatal(err, m)
			}
		}
	})
	b.Run("Parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m message
			if _, err := segjson.Parse(msg, &m, segjson.DontMatchCaseInsensitiveStructFields); err != nil || m.Method != "tools/call" {
				b.Fatal(err, m)
			}
		}
	})
}
