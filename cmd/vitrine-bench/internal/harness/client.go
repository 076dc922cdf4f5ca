package harness

import (
	"context"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bearer is an HTTP transport that sends a bearer token.
type Bearer string

// benchTransport keeps a connection per session alive (the default keeps
// two per host, and would measure TCP handshakes instead of calls).
var benchTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 256
	return t
}()

// RoundTrip sends r with the token.
func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return benchTransport.RoundTrip(r)
}

// OpenSessions connects n go-sdk client sessions to the MCP endpoint of
// base, each asking for the revision protocol ("" for the newest).
func OpenSessions(ctx context.Context, base, token, protocol string, n int) ([]*mcp.ClientSession, error) {
	out := make([]*mcp.ClientSession, n)
	for i := range out {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: Bearer(token)}, MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: protocol})
		if err != nil {
			for _, cs := range out[:i] {
				cs.Close()
			}
			return nil, err
		}
		out[i] = cs
	}
	return out, nil
}

// CallTool calls a tool; a tool's error result is an error.
func CallTool(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, errors.New(res.Content[0].(*mcp.TextContent).Text)
	}
	return res, nil
}
